import FormatSupport

/// Why an `Assets.car` file, or one of its renditions, cannot be read.
///
/// Structural problems (a block outside the file, a tree that loops, a header whose lengths lie) stop
/// `AssetCatalog(bytes:)`; problems with one rendition's pixels are thrown by `image(for:)` and
/// `rawData(for:)` only, so the rest of the catalog stays readable.
public struct AssetCatalogError: CodedError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The file does not start with a BOM store header (`BOMStore`, version 1).
        case notBOMStore
        /// A structure of the BOM container (header, block table, variables) runs past the end of the file.
        case truncated
        /// A block index is outside the block table, or a block's range is outside the file.
        case blockOutOfRange
        /// A variable the catalog needs (`CARHEADER`, `KEYFORMAT`, `RENDITIONS`) is absent.
        case missingVariable
        /// A BOM tree is malformed: bad magic, or a node whose entries do not fit its block.
        case invalidTree
        /// A BOM tree's nodes form a loop or nest deeper than the limit.
        case treeLoop
        /// `CARHEADER`, `KEYFORMAT`, `EXTENDED_METADATA` or a facet value is malformed.
        case invalidHeader
        /// A rendition's key or CSI header is malformed, or its lengths point past its data.
        case invalidRendition
        /// More facets, renditions or chunks than the limits allow.
        case tooManyEntries
        /// A bitmap whose dimensions are zero or exceed the pixel limit.
        case imageTooLarge
        /// The pixel data of a rendition does not decode (bad chunk headers, corrupt compressed
        /// data, wrong decoded size).
        case invalidPixelData
        /// The rendition holds something this library does not decode (PDF, JPEG, HEIF, proprietary
        /// CoreUI encodings such as palette-img or deepmap), or is not the kind asked for.
        case notExtractable
        /// An internal link points to no rendition, loops, or its frame lies outside its target.
        case invalidLink
        /// The work on the input ran past `--time-limit` (the archive's time-limit code).
        case timeLimit
    }

    public let kind: Kind
    /// What exactly is wrong, as a sentence without a final period.
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var code: String {
        switch kind {
        case .notBOMStore: "CAR_NOT_BOM_STORE"
        case .truncated: "CAR_TRUNCATED"
        case .blockOutOfRange: "CAR_BLOCK_OUT_OF_RANGE"
        case .missingVariable: "CAR_MISSING_VARIABLE"
        case .invalidTree: "CAR_TREE_INVALID"
        case .treeLoop: "CAR_TREE_LOOP"
        case .invalidHeader: "CAR_HEADER_INVALID"
        case .invalidRendition: "CAR_RENDITION_INVALID"
        case .tooManyEntries: "CAR_TOO_MANY_ENTRIES"
        case .imageTooLarge: "CAR_IMAGE_TOO_LARGE"
        case .invalidPixelData: "CAR_PIXEL_DATA_INVALID"
        case .notExtractable: "CAR_NOT_EXTRACTABLE"
        case .invalidLink: "CAR_LINK_INVALID"
        case .timeLimit: WorkClock.timeLimitCode
        }
    }

    public var category: ErrorCategory { .invalidInput }

    public var description: String { kind == .timeLimit ? detail : "asset catalog: \(detail)" }
}

/// Runs a bounds-checked read, turning running off the end into `kind` with a sentence naming `what`.
@inline(__always)
func reading<T>(
    _ kind: AssetCatalogError.Kind, _ what: @autoclosure () -> String,
    _ body: () throws(OutOfBoundsError) -> T
) throws(AssetCatalogError) -> T {
    do {
        return try body()
    } catch {
        throw AssetCatalogError(
            kind, "\(what()) runs past its end (\(error.length) byte(s) needed at offset \(error.offset), \(error.size) available)")
    }
}
