/// One block of an LZFSE stream, as described by its header.
///
/// A stream is a sequence of blocks, each starting with a four-byte magic, ended by `bvx$`. Blocks
/// decode independently except that matches may reach back into the output of earlier blocks.
public struct LZFSEBlock: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `bvx-`: stored bytes.
        case raw = "bvx-"
        /// `bvxn`: an LZVN payload (what the reference encoder writes for inputs under 4 KiB).
        case lzvn = "bvxn"
        /// `bvx1`: LZFSE with its frequency tables stored as plain 16-bit counts.
        case compressedV1 = "bvx1"
        /// `bvx2`: LZFSE with packed header fields and entropy-coded frequency tables.
        case compressedV2 = "bvx2"
    }

    public let kind: Kind
    /// Offset of the block's magic in the stream.
    public let offset: Int
    /// Bytes the block occupies in the stream, header included.
    public let encodedSize: Int
    /// Bytes the block decodes to.
    public let decodedSize: Int
}

// MARK: - Header parsing

/// Limits fixed by the format: the encoder never exceeds them and the decoder's tables are sized
/// by them.
enum LZFSEConstants {
    static let lSymbols = 20
    static let mSymbols = 20
    static let dSymbols = 64
    static let literalSymbols = 256
    static let lStates = 64
    static let mStates = 64
    static let dStates = 256
    static let literalStates = 1024
    static let matchesPerBlock = 10_000
    static let literalsPerBlock = 4 * matchesPerBlock
    /// Largest L, M values a symbol can carry (base plus extra bits).
    static let maxLValue = 315
    static let maxMValue = 2359

    static let endOfStream: UInt32 = 0x2478_7662  // "bvx$"
    static let raw: UInt32 = 0x2D78_7662  // "bvx-"
    static let compressedV1: UInt32 = 0x3178_7662  // "bvx1"
    static let compressedV2: UInt32 = 0x3278_7662  // "bvx2"
    static let lzvn: UInt32 = 0x6E78_7662  // "bvxn"

    /// Size of a `bvx1` header: the C struct with two bytes of tail padding, as the reference writes it.
    static let v1HeaderSize = 772
    /// The fixed part of a `bvx2` header, before the frequency tables.
    static let v2FixedHeaderSize = 32

    static let lExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 8]
    static let lBaseValue: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 28, 60]
    static let mExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 8, 11]
    static let mBaseValue: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 56, 312]
    static let dExtraBits: [UInt8] = [
        0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
        4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7,
        8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11,
        12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15,
    ]
    static let dBaseValue: [Int32] = [
        0, 1, 2, 3, 4, 6, 8, 10, 12, 16,
        20, 24, 28, 36, 44, 52, 60, 76, 92, 108,
        124, 156, 188, 220, 252, 316, 380, 444, 508, 636,
        764, 892, 1020, 1276, 1532, 1788, 2044, 2556, 3068, 3580,
        4092, 5116, 6140, 7164, 8188, 10236, 12284, 14332, 16380, 20476,
        24572, 28668, 32764, 40956, 49148, 57340, 65532, 81916, 98300, 114684,
        131068, 163836, 196604, 229372,
    ]
}

/// The fields of a compressed (`bvx1` or `bvx2`) block header, in the `bvx1` shape.
struct CompressedBlockHeader {
    var rawBytes: Int
    var literalCount: Int
    var matchCount: Int
    var literalPayloadBytes: Int
    var lmdPayloadBytes: Int
    /// Bits of the last byte of each backward bit stream that are not part of the stream, as a
    /// non-positive number (`-7...0`).
    var literalBits: Int
    var literalStates: (UInt16, UInt16, UInt16, UInt16)
    var lmdBits: Int
    var lState: UInt16
    var mState: UInt16
    var dState: UInt16
    /// Normalized frequencies: L (20), M (20), D (64), then literals (256).
    var frequencies: [UInt16]
    /// Size of the header in the stream.
    var headerSize: Int
}

/// Reads little-endian integers from the input with explicit range checks.
struct InputBytes {
    let buffer: UnsafeBufferPointer<UInt8>

    @inline(__always)
    func uint32(at offset: Int) throws(LZFSEError) -> UInt32 {
        guard offset >= 0, offset <= buffer.count - 4 else {
            throw LZFSEError(.truncated, offset: offset, "the stream ends inside a block header")
        }
        return UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8
            | UInt32(buffer[offset + 2]) << 16 | UInt32(buffer[offset + 3]) << 24
    }

    @inline(__always)
    func uint16(at offset: Int) throws(LZFSEError) -> UInt16 {
        guard offset >= 0, offset <= buffer.count - 2 else {
            throw LZFSEError(.truncated, offset: offset, "the stream ends inside a block header")
        }
        return UInt16(buffer[offset]) | UInt16(buffer[offset + 1]) << 8
    }

    @inline(__always)
    func uint64(at offset: Int) throws(LZFSEError) -> UInt64 {
        UInt64(try uint32(at: offset)) | UInt64(try uint32(at: offset + 4)) << 32
    }
}

extension CompressedBlockHeader {
    /// Parses a `bvx1` header at `offset`.
    static func v1(_ input: InputBytes, at offset: Int) throws(LZFSEError) -> CompressedBlockHeader {
        guard input.buffer.count - offset >= LZFSEConstants.v1HeaderSize else {
            throw LZFSEError(.truncated, offset: offset, "the stream ends inside a bvx1 block header")
        }
        var frequencies = [UInt16](repeating: 0, count: 360)
        for index in 0..<360 {
            frequencies[index] = try input.uint16(at: offset + 50 + 2 * index)
        }
        let header = CompressedBlockHeader(
            rawBytes: Int(try input.uint32(at: offset + 4)),
            literalCount: Int(try input.uint32(at: offset + 12)),
            matchCount: Int(try input.uint32(at: offset + 16)),
            literalPayloadBytes: Int(try input.uint32(at: offset + 20)),
            lmdPayloadBytes: Int(try input.uint32(at: offset + 24)),
            literalBits: Int(Int32(bitPattern: try input.uint32(at: offset + 28))),
            literalStates: (
                try input.uint16(at: offset + 32), try input.uint16(at: offset + 34),
                try input.uint16(at: offset + 36), try input.uint16(at: offset + 38)
            ),
            lmdBits: Int(Int32(bitPattern: try input.uint32(at: offset + 40))),
            lState: try input.uint16(at: offset + 44),
            mState: try input.uint16(at: offset + 46),
            dState: try input.uint16(at: offset + 48),
            frequencies: frequencies,
            headerSize: LZFSEConstants.v1HeaderSize
        )
        try header.validate(at: offset)
        return header
    }

    /// Parses a `bvx2` header at `offset`, expanding its packed fields and frequency tables.
    static func v2(_ input: InputBytes, at offset: Int) throws(LZFSEError) -> CompressedBlockHeader {
        let v0 = try input.uint64(at: offset + 8)
        let v1 = try input.uint64(at: offset + 16)
        let v2 = try input.uint64(at: offset + 24)
        func field(_ value: UInt64, _ shift: Int, _ bits: Int) -> Int {
            Int((value >> UInt64(shift)) & ((1 << UInt64(bits)) - 1))
        }
        let headerSize = field(v2, 0, 32)
        guard headerSize >= LZFSEConstants.v2FixedHeaderSize,
            headerSize <= LZFSEConstants.v2FixedHeaderSize + 2 * 360
        else {
            throw LZFSEError(.corruptHeader, offset: offset, "a bvx2 block declares a header of \(headerSize) bytes")
        }
        guard input.buffer.count - offset >= headerSize else {
            throw LZFSEError(.truncated, offset: offset, "the stream ends inside a bvx2 block header")
        }
        let frequencies = try decodeFrequencies(
            input, from: offset + LZFSEConstants.v2FixedHeaderSize, to: offset + headerSize, blockOffset: offset)
        let header = CompressedBlockHeader(
            rawBytes: Int(try input.uint32(at: offset + 4)),
            literalCount: field(v0, 0, 20),
            matchCount: field(v0, 40, 20),
            literalPayloadBytes: field(v0, 20, 20),
            lmdPayloadBytes: field(v1, 40, 20),
            literalBits: field(v0, 60, 3) - 7,
            literalStates: (
                UInt16(field(v1, 0, 10)), UInt16(field(v1, 10, 10)),
                UInt16(field(v1, 20, 10)), UInt16(field(v1, 30, 10))
            ),
            lmdBits: field(v1, 60, 3) - 7,
            lState: UInt16(field(v2, 32, 10)),
            mState: UInt16(field(v2, 42, 10)),
            dState: UInt16(field(v2, 52, 10)),
            frequencies: frequencies,
            headerSize: headerSize
        )
        try header.validate(at: offset)
        return header
    }

    /// The `bvx2` frequency tables: a prefix code read from the low bits of a little-endian bit
    /// stream. An empty table region means every frequency is zero.
    private static func decodeFrequencies(
        _ input: InputBytes, from start: Int, to end: Int, blockOffset: Int
    ) throws(LZFSEError) -> [UInt16] {
        var frequencies = [UInt16](repeating: 0, count: 360)
        if start == end { return frequencies }
        // Bits used by each 5-bit prefix, and the value of the short codes (-1: a long code).
        let codeBits: [Int] = [2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14, 2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14]
        let codeValue: [Int] = [0, 2, 1, 4, 0, 3, 1, -1, 0, 2, 1, 5, 0, 3, 1, -1, 0, 2, 1, 6, 0, 3, 1, -1, 0, 2, 1, 7, 0, 3, 1, -1]
        var accumulator: UInt32 = 0
        var bitCount = 0
        var position = start
        for index in 0..<360 {
            while position < end, bitCount + 8 <= 32 {
                accumulator |= UInt32(input.buffer[position]) << UInt32(bitCount)
                bitCount += 8
                position += 1
            }
            let prefix = Int(accumulator & 31)
            let bits = codeBits[prefix]
            let value: Int
            switch bits {
            case 8: value = 8 + Int((accumulator >> 4) & 0xF)
            case 14: value = 24 + Int((accumulator >> 4) & 0x3FF)
            default: value = codeValue[prefix]
            }
            guard bits <= bitCount else {
                throw LZFSEError(.corruptHeader, offset: blockOffset, "a bvx2 block's frequency tables end early")
            }
            frequencies[index] = UInt16(value)
            accumulator >>= UInt32(bits)
            bitCount -= bits
        }
        guard bitCount < 8, position == end else {
            throw LZFSEError(
                .corruptHeader, offset: blockOffset, "a bvx2 block's frequency tables do not fill its header exactly")
        }
        return frequencies
    }

    /// The checks the reference decoder makes before building its tables, plus the consistency of
    /// the declared output size with what the block can produce.
    private func validate(at offset: Int) throws(LZFSEError) {
        func fail(_ detail: String) -> LZFSEError {
            LZFSEError(.corruptHeader, offset: offset, detail)
        }
        guard literalCount <= LZFSEConstants.literalsPerBlock else {
            throw fail("a block declares \(literalCount) literals, more than the format's \(LZFSEConstants.literalsPerBlock)")
        }
        guard matchCount <= LZFSEConstants.matchesPerBlock else {
            throw fail("a block declares \(matchCount) matches, more than the format's \(LZFSEConstants.matchesPerBlock)")
        }
        let states = [literalStates.0, literalStates.1, literalStates.2, literalStates.3]
        guard states.allSatisfy({ Int($0) < LZFSEConstants.literalStates }),
            Int(lState) < LZFSEConstants.lStates, Int(mState) < LZFSEConstants.mStates,
            Int(dState) < LZFSEConstants.dStates
        else {
            throw fail("a block's initial decoder state is outside its table")
        }
        guard (-7...0).contains(literalBits), (-7...0).contains(lmdBits) else {
            throw fail("a block's bit stream padding is outside -7...0")
        }
        let tables = [
            (0, LZFSEConstants.lSymbols, LZFSEConstants.lStates),
            (20, LZFSEConstants.mSymbols, LZFSEConstants.mStates),
            (40, LZFSEConstants.dSymbols, LZFSEConstants.dStates),
            (104, LZFSEConstants.literalSymbols, LZFSEConstants.literalStates),
        ]
        for (start, count, stateCount) in tables {
            var sum = 0
            for index in start..<(start + count) { sum += Int(frequencies[index]) }
            guard sum <= stateCount else {
                throw fail("a block's frequency table sums to \(sum), more than its \(stateCount) states")
            }
        }
        // Every match emits at most maxMValue bytes after the block's literals.
        guard rawBytes <= literalCount + matchCount * LZFSEConstants.maxMValue else {
            throw LZFSEError(
                .corruptData, offset: offset, "a block declares \(rawBytes) output bytes, more than its matches can produce")
        }
    }
}
