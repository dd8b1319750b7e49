import FormatSupport

/// How samples combine into a pixel (IHDR colour type).
public enum PNGColorType: UInt8, Sendable, CaseIterable {
    case grayscale = 0
    case rgb = 2
    /// Palette indices into PLTE, with optional alpha from tRNS.
    case indexed = 3
    case grayscaleAlpha = 4
    case rgba = 6

    /// Samples per pixel.
    public var channels: Int {
        switch self {
        case .grayscale, .indexed: 1
        case .grayscaleAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// Bit depths the specification allows for this colour type.
    public var allowedBitDepths: [Int] {
        switch self {
        case .grayscale: [1, 2, 4, 8, 16]
        case .indexed: [1, 2, 4, 8]
        case .rgb, .grayscaleAlpha, .rgba: [8, 16]
        }
    }
}

/// IHDR interlace method.
public enum PNGInterlaceMethod: UInt8, Sendable {
    case none = 0
    /// Seven passes over a repeating 8×8 grid (PNG §8.2).
    case adam7 = 1
}

/// The payload of Apple's `CgBI` chunk. Reverse engineering reads it as a `CGBitmapInfo`
/// (e.g. `0x50002002`: rows filtered with None, raw deflate, 32-bit little-endian, premultiplied
/// alpha first, i.e. BGRA). Apple's tools only ever write premultiplied BGR(A), so the decoder
/// treats the pixel layout that way whatever the flags say; they are kept for reporting.
public struct CgBIFlags: Sendable, Equatable, CustomStringConvertible {
    /// The chunk data as a big-endian integer (Apple writes exactly four bytes; a shorter chunk
    /// is read as if padded with zeros, a longer one is cut to four).
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    init(chunkData: ArraySlice<UInt8>) {
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = index < chunkData.count ? chunkData[chunkData.startIndex + index] : 0
            value = value << 8 | UInt32(byte)
        }
        rawValue = value
    }

    /// Bit 28 (`0x10000000`): the IDAT stream is raw deflate without a zlib wrapper. The decoder
    /// uses this only to choose which framing to try first.
    public var declaresRawDeflate: Bool { rawValue & 0x1000_0000 != 0 }

    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}

/// What the first bytes of a PNG or CgBI file say about the image: the signature, Apple's
/// optional `CgBI` chunk and `IHDR`. Reading it needs at most `PNGHeader.maximumPrefixLength`
/// bytes, so callers choosing between many icons never inflate anything.
public struct PNGHeader: Sendable, Equatable {
    /// `89 50 4E 47 0D 0A 1A 0A`.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Signature, a four-byte CgBI chunk and IHDR: enough bytes for any file this type reads.
    public static let maximumPrefixLength = 8 + (12 + 4) + (12 + 13)

    public let width: Int
    public let height: Int
    /// Bits per sample: 1, 2, 4, 8 or 16 (always 8 in a CgBI file Apple wrote).
    public let bitDepth: Int
    public let colorType: PNGColorType
    public let interlaceMethod: PNGInterlaceMethod
    /// The CgBI flags when the file starts with Apple's `CgBI` chunk, else nil.
    public let cgbiFlags: CgBIFlags?

    /// True for Apple's "iPhone-optimized" PNGs: raw deflate, premultiplied BGRA.
    public var isCgBI: Bool { cgbiFlags != nil }
    public var isInterlaced: Bool { interlaceMethod == .adam7 }
    /// `width × height`; cannot overflow because both are below 2³¹.
    public var pixelCount: Int { width * height }
    /// Bits per pixel in the stored scanlines.
    public var bitsPerPixel: Int { bitDepth * colorType.channels }

    /// The bytes a decode holds at once, for memory limits: the inflated scanlines (a filter
    /// byte per row and per interlace pass, and `bitsPerPixel` per pixel: 8 bytes for 16-bit
    /// RGBA) plus the RGBA8 output (4 bytes a pixel) plus one row of scratch. Saturates.
    public var decodeMemory: UInt64 {
        let pixels = UInt64(width) * UInt64(height)
        // Adam7's seven passes have fewer than 2 rows per image row, each with a filter byte and
        // at most one partly used byte.
        let perRow = UInt64(isInterlaced ? 4 : 2)
        let scanlines = (pixels * UInt64(bitsPerPixel) + 7) / 8 + UInt64(height) * perRow
        let (total, overflow) = scanlines.addingReportingOverflow(pixels * 4 + UInt64(width) * 8)
        return overflow ? .max : total
    }

    /// Reads the header from the start of a file; `bytes` may be the whole file or any prefix of at
    /// least `maximumPrefixLength` bytes (33 suffice for a standard PNG).
    ///
    /// Throws `PNG_SIGNATURE` for anything that is not a PNG, `PNG_TRUNCATED` when the prefix
    /// ends before IHDR does, `PNG_CRC_MISMATCH` (unless `checksums` is `.ignore`), `PNG_CHUNK`
    /// when IHDR is not first, and `PNG_HEADER` or `PNG_DIMENSIONS` for invalid IHDR fields.
    public init(prefix bytes: [UInt8], checksums: PNGChecksumPolicy = .verifyAll) throws(PNGError) {
        var cursor = try ChunkCursor(bytes)
        var cgbi: CgBIFlags?
        var first = try Self.nextCriticalChunk(&cursor, checksums: checksums)
        if first.chunk.type == .CgBI {
            cgbi = CgBIFlags(chunkData: first.chunk.data)
            first = try Self.nextCriticalChunk(&cursor, checksums: checksums)
        }
        guard first.chunk.type == .IHDR else {
            throw PNGError(.chunk, at: first.chunk.offset, "the first chunk is \(first.chunk.type), but a PNG must start with IHDR")
        }
        try self.init(ihdr: first.chunk, cgbi: cgbi)
    }

    /// Reads the header from the first bytes of `source` (a file, a zip entry, an array).
    public init<Source: ByteSource>(from source: inout Source, checksums: PNGChecksumPolicy = .verifyAll) throws {
        let count = Int(min(source.size, UInt64(Self.maximumPrefixLength)))
        try self.init(prefix: try source.read(offset: 0, count: count), checksums: checksums)
    }

    private static func nextCriticalChunk(_ cursor: inout ChunkCursor, checksums: PNGChecksumPolicy) throws(PNGError) -> RawChunk {
        guard let raw = try cursor.next() else {
            throw PNGError(.truncated, at: cursor.offset, "the file ends before the IHDR chunk")
        }
        if checksums != .ignore, !raw.crcMatches {
            throw raw.crcError
        }
        return raw
    }

    /// Validates the 13 bytes of IHDR: `u32 width, u32 height, u8 bitDepth, u8 colourType,
    /// u8 compression (0), u8 filter (0), u8 interlace (0 or 1)`.
    init(ihdr chunk: PNGChunk, cgbi: CgBIFlags?) throws(PNGError) {
        guard chunk.data.count == 13 else {
            throw PNGError(.header, at: chunk.offset, "IHDR is \(chunk.data.count) bytes long instead of 13")
        }
        // The length is checked above, so these fixed offsets are inside the 13 bytes.
        let field = Array(chunk.data)
        let width = UInt32(field[0]) << 24 | UInt32(field[1]) << 16 | UInt32(field[2]) << 8 | UInt32(field[3])
        let height = UInt32(field[4]) << 24 | UInt32(field[5]) << 16 | UInt32(field[6]) << 8 | UInt32(field[7])
        let (depth, type, compression, filter, interlace) = (field[8], field[9], field[10], field[11], field[12])
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw PNGError(.dimensions, at: chunk.offset, "IHDR gives \(width)×\(height) pixels; each side must be between 1 and 2147483647")
        }
        guard let colorType = PNGColorType(rawValue: type) else {
            throw PNGError(.header, at: chunk.offset, "IHDR colour type \(type) is not one of 0, 2, 3, 4 or 6")
        }
        guard colorType.allowedBitDepths.contains(Int(depth)) else {
            throw PNGError(.header, at: chunk.offset, "bit depth \(depth) is not allowed with colour type \(type)")
        }
        guard compression == 0 else {
            throw PNGError(.header, at: chunk.offset, "IHDR compression method \(compression) is not 0 (deflate)")
        }
        guard filter == 0 else {
            throw PNGError(.header, at: chunk.offset, "IHDR filter method \(filter) is not 0 (adaptive)")
        }
        guard let interlaceMethod = PNGInterlaceMethod(rawValue: interlace) else {
            throw PNGError(.header, at: chunk.offset, "IHDR interlace method \(interlace) is not 0 or 1")
        }
        self.width = Int(width)
        self.height = Int(height)
        self.bitDepth = Int(depth)
        self.colorType = colorType
        self.interlaceMethod = interlaceMethod
        self.cgbiFlags = cgbi
    }
}
