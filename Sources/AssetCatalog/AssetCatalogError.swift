import FormatSupport

/// Why an `Assets.car` file, or one of its renditions, cannot be read.
///
/// Structural problems (a block outside the file, a tree that loops, a header whose lengths lie) stop
/// `AssetCatalog(bytes:)`; problems with one rendition's pixels are thrown by `image(for:)` and
/// `rawData(for:)` only, so the rest of the catalog stays readable.
public struct AssetCatalogError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        /// The file does not start with a BOM store header (`BOMStore`, version 1).
        case notBOMStore = "CAR_NOT_BOM_STORE"
        /// A structure of the BOM container (header, block table, variables) runs past the end of the file.
        case truncated = "CAR_TRUNCATED"
        /// A block index is outside the block table, or a block's range is outside the file.
        case blockOutOfRange = "CAR_BLOCK_OUT_OF_RANGE"
        /// A variable the catalog needs (`CARHEADER`, `KEYFORMAT`, `RENDITIONS`) is absent.
        case missingVariable = "CAR_MISSING_VARIABLE"
        /// A BOM tree is malformed: bad magic, or a node whose entries do not fit its block.
        case invalidTree = "CAR_TREE_INVALID"
        /// A BOM tree's nodes form a loop or nest deeper than the limit.
        case treeLoop = "CAR_TREE_LOOP"
        /// `CARHEADER`, `KEYFORMAT`, `EXTENDED_METADATA` or a facet value is malformed.
        case invalidHeader = "CAR_HEADER_INVALID"
        /// A rendition's key or CSI header is malformed, or its lengths point past its data.
        case invalidRendition = "CAR_RENDITION_INVALID"
        /// More facets, renditions or chunks than the limits allow.
        case tooManyEntries = "CAR_TOO_MANY_ENTRIES"
        /// A bitmap whose dimensions are zero or exceed the pixel limit.
        case imageTooLarge = "CAR_IMAGE_TOO_LARGE"
        /// The pixel data of a rendition does not decode (bad chunk headers, corrupt compressed
        /// data, wrong decoded size).
        case invalidPixelData = "CAR_PIXEL_DATA_INVALID"
        /// The rendition holds something this library does not decode (PDF, JPEG, HEIF, proprietary
        /// CoreUI encodings such as palette-img or deepmap), or is not the kind asked for.
        case notExtractable = "CAR_NOT_EXTRACTABLE"
        /// An internal link points to no rendition, loops, or its frame lies outside its target.
        case invalidLink = "CAR_LINK_INVALID"
        /// The work on the input ran past `--time-limit` (the archive's time-limit code).
        case timeLimit = "ARCHIVE_TIME_LIMIT"
    }

    public let reason: Reason
    /// What exactly is wrong, as a sentence without a final period.
    public let detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { reason == .timeLimit ? detail : "asset catalog: \(detail)" }
}

/// Runs a bounds-checked read, turning running off the end into `reason` with a sentence naming `what`.
@inline(__always)
func reading<T>(
    _ reason: AssetCatalogError.Reason, _ what: @autoclosure () -> String,
    _ body: () throws(OutOfBoundsError) -> T
) throws(AssetCatalogError) -> T {
    do {
        return try body()
    } catch {
        throw AssetCatalogError(
            reason, "\(what()) runs past its end (\(error.length) byte(s) needed at offset \(error.offset), \(error.size) available)")
    }
}
