import Deflate

/// A four-letter chunk type code such as `IHDR`. The case of each letter carries a property bit
/// (PNG §5.4): the first says critical (upper) or ancillary (lower), the fourth says whether an
/// editor that changes the image data may copy the chunk unchanged (lower) or must drop it (upper).
public struct PNGChunkType: Sendable, Hashable, CustomStringConvertible {
    /// The four bytes as a big-endian integer, as stored in the file.
    public let rawValue: UInt32

    /// Fails unless every byte is an ASCII letter, as the specification requires.
    public init?(rawValue: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: rawValue >> UInt32(shift))
            guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else { return nil }
        }
        self.rawValue = rawValue
    }

    /// Fails unless `name` is four ASCII letters.
    public init?(_ name: String) {
        let bytes = Array(name.utf8)
        guard bytes.count == 4 else { return nil }
        self.init(rawValue: bytes.reduce(0) { ($0 << 8) | UInt32($1) })
    }

    /// For the constants below, whose spelling is checked by the tests.
    private init(known a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        rawValue = UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// A decoder must understand a critical chunk to show the image.
    public var isCritical: Bool { rawValue & 0x2000_0000 == 0 }
    /// An editor that changes critical chunks may still copy this chunk unchanged.
    public var isSafeToCopy: Bool { rawValue & 0x20 != 0 }

    public static let IHDR = PNGChunkType(known: 0x49, 0x48, 0x44, 0x52)
    public static let PLTE = PNGChunkType(known: 0x50, 0x4C, 0x54, 0x45)
    public static let IDAT = PNGChunkType(known: 0x49, 0x44, 0x41, 0x54)
    public static let IEND = PNGChunkType(known: 0x49, 0x45, 0x4E, 0x44)
    public static let tRNS = PNGChunkType(known: 0x74, 0x52, 0x4E, 0x53)
    public static let gAMA = PNGChunkType(known: 0x67, 0x41, 0x4D, 0x41)
    public static let cHRM = PNGChunkType(known: 0x63, 0x48, 0x52, 0x4D)
    public static let sRGB = PNGChunkType(known: 0x73, 0x52, 0x47, 0x42)
    public static let iCCP = PNGChunkType(known: 0x69, 0x43, 0x43, 0x50)
    public static let cICP = PNGChunkType(known: 0x63, 0x49, 0x43, 0x50)
    public static let mDCV = PNGChunkType(known: 0x6D, 0x44, 0x43, 0x56)
    public static let cLLI = PNGChunkType(known: 0x63, 0x4C, 0x4C, 0x49)
    public static let sBIT = PNGChunkType(known: 0x73, 0x42, 0x49, 0x54)
    public static let bKGD = PNGChunkType(known: 0x62, 0x4B, 0x47, 0x44)
    public static let hIST = PNGChunkType(known: 0x68, 0x49, 0x53, 0x54)
    public static let pHYs = PNGChunkType(known: 0x70, 0x48, 0x59, 0x73)
    public static let sPLT = PNGChunkType(known: 0x73, 0x50, 0x4C, 0x54)
    public static let tIME = PNGChunkType(known: 0x74, 0x49, 0x4D, 0x45)
    public static let tEXt = PNGChunkType(known: 0x74, 0x45, 0x58, 0x74)
    public static let zTXt = PNGChunkType(known: 0x7A, 0x54, 0x58, 0x74)
    public static let iTXt = PNGChunkType(known: 0x69, 0x54, 0x58, 0x74)
    public static let eXIf = PNGChunkType(known: 0x65, 0x58, 0x49, 0x66)
    /// Apple's private critical chunk that marks a CgBI ("iPhone-optimized") file.
    public static let CgBI = PNGChunkType(known: 0x43, 0x67, 0x42, 0x49)
    /// Apple's ancillary chunk recording where the image data is split for parallel decoding.
    public static let iDOT = PNGChunkType(known: 0x69, 0x44, 0x4F, 0x54)
}

/// One chunk: `u32 length, type[4], data[length], u32 crc`, with the CRC-32 covering type and data.
public struct PNGChunk: Sendable, Equatable {
    public let type: PNGChunkType
    /// The payload; for a parsed chunk, a view into the file's bytes.
    public let data: ArraySlice<UInt8>
    /// Offset of the chunk's length field in the file, or nil for a chunk built in memory.
    public let offset: Int?

    public init(type: PNGChunkType, data: ArraySlice<UInt8>, offset: Int? = nil) {
        self.type = type
        self.data = data
        self.offset = offset
    }

    public init(type: PNGChunkType, data: [UInt8]) {
        self.init(type: type, data: data[...])
    }

    /// The CRC-32 the chunk must carry: over the type code and the data.
    public var computedCRC: UInt32 {
        PNGChunk.crc32(type: type, data: data)
    }

    /// Appends the serialized chunk, with its CRC, to `output`. Chunks built here are at most
    /// 2³¹−1 bytes long, as the specification requires; callers split larger payloads.
    public func write(to output: inout [UInt8]) {
        let length = UInt32(clamping: data.count)
        output.append(contentsOf: [
            UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
            UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
        ])
        output.append(contentsOf: type.bytes)
        output.append(contentsOf: data.prefix(Int(length)))
        let crc = PNGChunk.crc32(type: type, data: data.prefix(Int(length)))
        output.append(contentsOf: [
            UInt8(truncatingIfNeeded: crc >> 24), UInt8(truncatingIfNeeded: crc >> 16),
            UInt8(truncatingIfNeeded: crc >> 8), UInt8(truncatingIfNeeded: crc),
        ])
    }

    /// The serialized chunk.
    public var encoded: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(data.count + 12)
        write(to: &output)
        return output
    }

    /// zlib's CRC-32 (the PNG one) of `type` followed by `data`.
    static func crc32(type: PNGChunkType, data: ArraySlice<UInt8>) -> UInt32 {
        let crc = type.bytes.withUnsafeBytes { DeflateEngine.crc32($0) }
        return data.withUnsafeBytes { DeflateEngine.crc32($0, continuing: crc) }
    }
}
