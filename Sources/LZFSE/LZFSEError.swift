import FormatSupport

/// A stream that cannot be decoded: truncated, corrupt, or larger than the caller allows.
///
/// LZVN payloads decoded on their own (`LZVN.decompress`) report the same errors, since LZVN is one of
/// LZFSE's block encodings.
public struct LZFSEError: CodedError, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The input ends inside a block, or without the `bvx$` end-of-stream block.
        case truncated
        /// A block starts with four bytes that are not one of the known block magics.
        case badBlockMagic
        /// A block header holds values outside what the format allows (table sizes, states, counts).
        case corruptHeader
        /// The compressed payload does not decode: bad opcode, distance before the start of the
        /// output, bit stream overrun, or a block whose output differs from its declared size.
        case corruptData
        /// The stream would decode to more bytes than the caller's limit.
        case outputLimitExceeded
    }

    public let kind: Kind
    /// Offset in the compressed input where the problem was found.
    public let offset: Int
    /// What exactly is wrong, as part of a sentence.
    public let detail: String

    public init(_ kind: Kind, offset: Int, _ detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    public var code: String {
        switch kind {
        case .truncated: "LZFSE_TRUNCATED"
        case .badBlockMagic: "LZFSE_BAD_BLOCK_MAGIC"
        case .corruptHeader: "LZFSE_CORRUPT_HEADER"
        case .corruptData: "LZFSE_CORRUPT_DATA"
        case .outputLimitExceeded: "LZFSE_OUTPUT_LIMIT"
        }
    }

    public var category: ErrorCategory { .invalidInput }

    public var description: String {
        "compressed data cannot be decoded: \(detail) (at byte \(offset))"
    }
}
