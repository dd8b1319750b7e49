import FormatSupport

/// A PNG or CgBI file that cannot be read safely. Every case is hostile or damaged input
/// (category `.invalidInput`); `reason.rawValue` is the stable code users search for.
public struct PNGError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        /// The first eight bytes are not the PNG signature.
        case signature = "PNG_SIGNATURE"
        /// The file ends inside a chunk, or a header prefix is too short to hold IHDR.
        case truncated = "PNG_TRUNCATED"
        /// A chunk's stored CRC-32, or the zlib stream's Adler-32, does not match its contents.
        case crcMismatch = "PNG_CRC_MISMATCH"
        /// The chunk structure is broken: a bad type code, a length over 2³¹−1, IHDR not first,
        /// a second IHDR, or a CgBI chunk anywhere but before IHDR.
        case chunk = "PNG_CHUNK"
        /// IHDR has the wrong length or a field value the PNG specification does not allow.
        case header = "PNG_HEADER"
        /// Width or height is zero, above 2³¹−1, or above the caller's limits.
        case dimensions = "PNG_DIMENSIONS"
        /// An indexed-colour image has no usable PLTE chunk.
        case palette = "PNG_PALETTE"
        /// There is no IDAT chunk.
        case noImageData = "PNG_NO_IMAGE_DATA"
        /// The compressed image data is not a valid deflate or zlib stream.
        case inflate = "PNG_INFLATE"
        /// The image data inflates to more or fewer bytes than IHDR implies (a zlib bomb, a
        /// truncated stream, or a CgBI file whose IHDR lies about its size).
        case dataSize = "PNG_DATA_SIZE"
        /// A scanline starts with a filter type other than 0–4.
        case filter = "PNG_FILTER"
        /// Valid PNG that this decoder does not handle: an unknown critical chunk, or a CgBI
        /// image that is not 8-bit RGB or RGBA.
        case unsupported = "PNG_UNSUPPORTED"
        /// The work on the input ran past `--time-limit` (the archive's time-limit code).
        case timeLimit = "ARCHIVE_TIME_LIMIT"
    }

    public let reason: Reason
    /// Byte offset in the file that the problem was found at, when there is one.
    public let offset: Int?
    /// One sentence, without the code.
    public let message: String

    public init(_ reason: Reason, at offset: Int? = nil, _ message: String) {
        self.reason = reason
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let offset {
            return "\(message) (at byte \(offset))"
        }
        return message
    }
}
