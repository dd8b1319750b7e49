import FormatSupport

/// Bounds on what a decoder will allocate for one image. The defaults admit every real app icon
/// and asset with a wide margin while keeping one decode under about 300 MB.
public struct PNGLimits: Sendable, Equatable {
    /// Largest width accepted, in pixels.
    public var maxWidth: Int
    /// Largest height accepted, in pixels.
    public var maxHeight: Int
    /// Largest `width × height` accepted; the RGBA output is four bytes per pixel.
    public var maxPixelCount: Int
    /// The time limit of the work on the input the image came from, checked per row.
    public var clock: WorkClock

    public init(
        maxWidth: Int = 16_384, maxHeight: Int = 16_384, maxPixelCount: Int = 64 * 1024 * 1024,
        clock: WorkClock = .unlimited
    ) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixelCount = maxPixelCount
        self.clock = clock
    }

    /// 16384 × 16384 and 64 Mpx.
    public static let `default` = PNGLimits()

    /// Throws `PNG_DIMENSIONS` unless `header` fits.
    public func check(_ header: PNGHeader) throws(PNGError) {
        guard header.width <= maxWidth, header.height <= maxHeight else {
            throw PNGError(.dimensions, "the image is \(header.width)×\(header.height) pixels, above the limit of \(maxWidth)×\(maxHeight)")
        }
        // Both factors are at most 2³¹−1 (checked by PNGHeader), so the product fits in 64 bits.
        guard header.pixelCount <= maxPixelCount else {
            throw PNGError(.dimensions, "the image has \(header.pixelCount) pixels, above the limit of \(maxPixelCount)")
        }
    }
}

/// How chunk CRC-32s and the zlib Adler-32 are treated.
///
/// Apple's tools write valid CRCs in CgBI files, so `.verifyAll` is the default: a mismatch is
/// damage, and reporting it beats guessing. `.ignore` salvages files from encoders with broken
/// CRCs (the reference `png-image.png` that ships with cgbi-to-png has a bad IDAT CRC); the
/// mismatches are then listed in `PNGDatastream.checksumMismatches` so a report can mention them.
public enum PNGChecksumPolicy: Sendable, Equatable {
    /// Any CRC or Adler-32 mismatch throws `PNG_CRC_MISMATCH`.
    case verifyAll
    /// libpng's default: critical chunks and Adler-32 must match; an ancillary chunk that fails is
    /// dropped from the chunk list and recorded.
    case discardBadAncillary
    /// Nothing throws for a checksum; every mismatch is recorded.
    case ignore
}

/// A checksum that did not match, recorded when the policy lets decoding continue.
public struct PNGChecksumMismatch: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A chunk's CRC-32.
        case chunkCRC(PNGChunkType)
        /// The Adler-32 at the end of the zlib-wrapped image data.
        case adler32
    }

    public let kind: Kind
    /// Offset of the chunk (for `.chunkCRC`) or of the first IDAT chunk (for `.adler32`).
    public let offset: Int
}
