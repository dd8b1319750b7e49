import FormatSupport

/// A stream that cannot be decoded: truncated, corrupt, or larger than the caller allows.
///
/// LZVN payloads decoded on their own (`LZVN.decompress`) report the same errors, since LZVN is one of
/// LZFSE's block encodings.
public struct LZFSEError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        /// The input ends inside a block, or without the `bvx$` end-of-stream block.
        case truncated = "LZFSE_TRUNCATED"
        /// A block starts with four bytes that are not one of the known block magics.
        case badBlockMagic = "LZFSE_BAD_BLOCK_MAGIC"
        /// A block header holds values outside what the format allows (table sizes, states, counts).
        case corruptHeader = "LZFSE_CORRUPT_HEADER"
        /// The compressed payload does not decode: bad opcode, distance before the start of the
        /// output, bit stream overrun, or a block whose output differs from its declared size.
        case corruptData = "LZFSE_CORRUPT_DATA"
        /// The stream would decode to more bytes than the caller's limit.
        case outputLimitExceeded = "LZFSE_OUTPUT_LIMIT"
    }

    public let reason: Reason
    /// Offset in the compressed input where the problem was found.
    public let offset: Int
    /// What exactly is wrong, as part of a sentence.
    public let detail: String

    public init(_ reason: Reason, offset: Int, _ detail: String) {
        self.reason = reason
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        "compressed data cannot be decoded: \(detail) (at byte \(offset))"
    }
}
