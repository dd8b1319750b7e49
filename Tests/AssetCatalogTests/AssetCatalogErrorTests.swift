import AssetCatalog
import FormatSupport
import Testing

/// The codes and sentences users search for and the docs list stay what they are, whatever the
/// error is built on.
@Suite struct AssetCatalogErrorTests {
    @Test func everyReasonKeepsItsCode() {
        #expect(AssetCatalogError.Reason.allCases.map(\.rawValue) == [
            "CAR_NOT_BOM_STORE", "CAR_TRUNCATED", "CAR_BLOCK_OUT_OF_RANGE", "CAR_MISSING_VARIABLE", "CAR_TREE_INVALID",
            "CAR_TREE_LOOP", "CAR_HEADER_INVALID", "CAR_RENDITION_INVALID", "CAR_TOO_MANY_ENTRIES", "CAR_IMAGE_TOO_LARGE",
            "CAR_PIXEL_DATA_INVALID", "CAR_NOT_EXTRACTABLE", "CAR_LINK_INVALID", "ARCHIVE_TIME_LIMIT",
        ])
        #expect(AssetCatalogError.Reason.timeLimit.rawValue == WorkClock.timeLimitCode)
        for reason in AssetCatalogError.Reason.allCases {
            let error = AssetCatalogError(reason, "x")
            #expect(error.code == reason.rawValue)
            #expect(error.category == .invalidInput)
        }
    }

    @Test func theMessageSaysAssetCatalogButForTheTimeLimit() {
        #expect(AssetCatalogError(.treeLoop, "the tree loops").description == "asset catalog: the tree loops")
        #expect(AssetCatalogError(.timeLimit, "took too long").description == "took too long")
    }
}
