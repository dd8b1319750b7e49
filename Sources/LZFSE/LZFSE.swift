/// Decoding of LZFSE streams, Apple's LZ77 + Finite State Entropy compression (the format of
/// `compression_decode_buffer(…, COMPRESSION_LZFSE)` and of CoreUI renditions with compression 4).
///
/// The decoder reads every block header first, so the total output size is known and checked against
/// the caller's limit before anything is allocated; each block is then decoded into its own range of a
/// single output buffer. Every read of the input is range-checked, decoder states are masked to their
/// table sizes, and every literal and match is checked against both the block's declared output and
/// the bytes already written.
public enum LZFSE {
    /// Decodes a complete stream (ending with `bvx$`).
    ///
    /// - Parameter maximumOutput: the most bytes the caller accepts; a stream that declares more is
    ///   rejected before decoding.
    /// - Throws: `LZFSEError`.
    public static func decompress(_ bytes: [UInt8], maximumOutput: Int) throws(LZFSEError) -> [UInt8] {
        try bytes.withUnsafeBufferPointer { (input) throws(LZFSEError) -> [UInt8] in
            try decode(input, maximumOutput: maximumOutput)
        }
    }

    /// Decodes a complete stream held in any byte collection (copied once if not contiguous).
    public static func decompress<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, maximumOutput: Int
    ) throws(LZFSEError) -> [UInt8] {
        let result = bytes.withContiguousStorageIfAvailable { input -> Result<[UInt8], LZFSEError> in
            do throws(LZFSEError) {
                return .success(try decode(input, maximumOutput: maximumOutput))
            } catch {
                return .failure(error)
            }
        }
        if let result { return try result.get() }
        return try decompress(Array(bytes), maximumOutput: maximumOutput)
    }

    /// The blocks of a stream, from their headers alone (nothing is decoded).
    public static func blocks(in bytes: [UInt8]) throws(LZFSEError) -> [LZFSEBlock] {
        try bytes.withUnsafeBufferPointer { (input) throws(LZFSEError) -> [LZFSEBlock] in
            try scan(InputBytes(buffer: input), maximumOutput: Int.max).map(\.info)
        }
    }

    // MARK: - Decoding

    /// A block found by `scan`, with its parsed header when it is compressed.
    struct ScannedBlock {
        var info: LZFSEBlock
        var outputStart: Int
        var header: CompressedBlockHeader?
        /// For `bvxn` blocks: payload bytes after the 12-byte header.
        var payloadSize: Int
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>, maximumOutput: Int) throws(LZFSEError) -> [UInt8] {
        let blocks = try scan(InputBytes(buffer: input), maximumOutput: maximumOutput)
        let total = blocks.last.map { $0.outputStart + $0.info.decodedSize } ?? 0
        var output = [UInt8](repeating: 0, count: total)
        var compressed: CompressedBlockDecoder? = nil
        try output.withUnsafeMutableBufferPointer { (out) throws(LZFSEError) in
            for block in blocks {
                let start = block.outputStart
                let size = block.info.decodedSize
                switch block.info.kind {
                case .raw:
                    if size > 0, let to = out.baseAddress, let from = input.baseAddress {
                        (to + start).update(from: from + block.info.offset + 8, count: size)
                    }
                case .lzvn:
                    try decodeLZVNBlock(block, input: input, output: out)
                case .compressedV1, .compressedV2:
                    guard let header = block.header else { continue }
                    if compressed == nil { compressed = CompressedBlockDecoder() }
                    try compressed?.decode(
                        header, blockOffset: block.info.offset, input: input, output: out, outputStart: start)
                }
            }
        }
        return output
    }

    private static func decodeLZVNBlock(
        _ block: ScannedBlock, input: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>
    ) throws(LZFSEError) {
        let payloadStart = block.info.offset + 12
        let start = block.outputStart
        let size = block.info.decodedSize
        let end: (input: Int, output: Int)
        do throws(LZVNStop) {
            end = try LZVNDecoder.decode(
                input, from: payloadStart, to: payloadStart + block.payloadSize, into: output, at: start,
                limit: start + size)
        } catch {
            switch error {
            case .outputFull:
                throw LZFSEError(.corruptData, offset: block.info.offset, "an LZVN block decodes to more than its \(size) bytes")
            case .failed(let failure):
                throw failure
            }
        }
        guard end.input == payloadStart + block.payloadSize, end.output == start + size else {
            throw LZFSEError(
                .corruptData, offset: block.info.offset,
                "an LZVN block decodes to \(end.output - start) bytes from \(end.input - payloadStart) payload bytes "
                    + "instead of \(size) from \(block.payloadSize)")
        }
    }

    /// Reads every block header up to `bvx$`, checking that each block lies inside the input and that
    /// the total output fits the limit.
    static func scan(_ input: InputBytes, maximumOutput: Int) throws(LZFSEError) -> [ScannedBlock] {
        var blocks: [ScannedBlock] = []
        var offset = 0
        var total = 0
        let count = input.buffer.count
        // Each block takes at least 8 bytes, so this loop ends within the input.
        while true {
            guard count - offset >= 4 else {
                throw LZFSEError(.truncated, offset: offset, "the stream ends without its end-of-stream block")
            }
            let magic = try input.uint32(at: offset)
            var block: ScannedBlock
            switch magic {
            case LZFSEConstants.endOfStream:
                return blocks
            case LZFSEConstants.raw:
                let size = Int(try input.uint32(at: offset + 4))
                guard count - offset - 8 >= size else {
                    throw LZFSEError(.truncated, offset: offset, "a raw block of \(size) bytes runs past the end of the stream")
                }
                block = ScannedBlock(
                    info: LZFSEBlock(kind: .raw, offset: offset, encodedSize: 8 + size, decodedSize: size),
                    outputStart: total, header: nil, payloadSize: size)
            case LZFSEConstants.lzvn:
                let rawSize = Int(try input.uint32(at: offset + 4))
                let payloadSize = Int(try input.uint32(at: offset + 8))
                guard count - offset - 12 >= payloadSize else {
                    throw LZFSEError(
                        .truncated, offset: offset, "an LZVN block of \(payloadSize) bytes runs past the end of the stream")
                }
                // An LZVN opcode produces at most 271 bytes from two bytes; a larger claim is corrupt.
                guard rawSize <= payloadSize * 136 else {
                    throw LZFSEError(
                        .corruptData, offset: offset,
                        "an LZVN block declares \(rawSize) output bytes from only \(payloadSize) payload bytes")
                }
                block = ScannedBlock(
                    info: LZFSEBlock(kind: .lzvn, offset: offset, encodedSize: 12 + payloadSize, decodedSize: rawSize),
                    outputStart: total, header: nil, payloadSize: payloadSize)
            case LZFSEConstants.compressedV1, LZFSEConstants.compressedV2:
                let isV2 = magic == LZFSEConstants.compressedV2
                let header = isV2 ? try CompressedBlockHeader.v2(input, at: offset) : try CompressedBlockHeader.v1(input, at: offset)
                let encodedSize = header.headerSize + header.literalPayloadBytes + header.lmdPayloadBytes
                guard count - offset >= encodedSize else {
                    throw LZFSEError(
                        .truncated, offset: offset, "a compressed block of \(encodedSize) bytes runs past the end of the stream")
                }
                block = ScannedBlock(
                    info: LZFSEBlock(
                        kind: isV2 ? .compressedV2 : .compressedV1, offset: offset, encodedSize: encodedSize,
                        decodedSize: header.rawBytes),
                    outputStart: total, header: header, payloadSize: encodedSize - header.headerSize)
            default:
                throw LZFSEError(
                    .badBlockMagic, offset: offset,
                    "a block starts with 0x\(String(magic.byteSwapped, radix: 16)), not an LZFSE block magic")
            }
            let (newTotal, overflow) = total.addingReportingOverflow(block.info.decodedSize)
            guard !overflow, newTotal <= maximumOutput else {
                throw LZFSEError(
                    .outputLimitExceeded, offset: offset, "the stream decodes to more than \(maximumOutput) bytes")
            }
            total = newTotal
            offset += block.info.encodedSize
            blocks.append(block)
        }
    }
}

/// Decodes `bvx1`/`bvx2` blocks. Holds the decoder tables and the literal buffer, reused from block
/// to block.
struct CompressedBlockDecoder {
    private var literalTable = [LiteralDecoderEntry](repeating: .init(), count: LZFSEConstants.literalStates)
    private var lTable = [ValueDecoderEntry](repeating: .init(), count: LZFSEConstants.lStates)
    private var mTable = [ValueDecoderEntry](repeating: .init(), count: LZFSEConstants.mStates)
    private var dTable = [ValueDecoderEntry](repeating: .init(), count: LZFSEConstants.dStates)
    private var literals = [UInt8](repeating: 0, count: LZFSEConstants.literalsPerBlock)

    mutating func decode(
        _ header: CompressedBlockHeader, blockOffset: Int, input: UnsafeBufferPointer<UInt8>,
        output: UnsafeMutableBufferPointer<UInt8>, outputStart: Int
    ) throws(LZFSEError) {
        let frequencies = header.frequencies
        FiniteStateEntropy.buildValueTable(
            frequencies: frequencies[0..<20], stateCount: LZFSEConstants.lStates,
            extraBits: LZFSEConstants.lExtraBits, baseValues: LZFSEConstants.lBaseValue, into: &lTable)
        FiniteStateEntropy.buildValueTable(
            frequencies: frequencies[20..<40], stateCount: LZFSEConstants.mStates,
            extraBits: LZFSEConstants.mExtraBits, baseValues: LZFSEConstants.mBaseValue, into: &mTable)
        FiniteStateEntropy.buildValueTable(
            frequencies: frequencies[40..<104], stateCount: LZFSEConstants.dStates,
            extraBits: LZFSEConstants.dExtraBits, baseValues: LZFSEConstants.dBaseValue, into: &dTable)
        FiniteStateEntropy.buildLiteralTable(
            frequencies: frequencies[104..<360], stateCount: LZFSEConstants.literalStates, into: &literalTable)

        let literalEnd = blockOffset + header.headerSize + header.literalPayloadBytes
        let lmdEnd = literalEnd + header.lmdPayloadBytes
        try decodeLiterals(header, end: literalEnd, blockOffset: blockOffset, input: input)
        try decodeMatches(
            header, payloadStart: literalEnd, end: lmdEnd, blockOffset: blockOffset, input: input,
            output: output, outputStart: outputStart)
    }

    /// Literals come first: four interleaved FSE states, read from the end of the literal payload.
    private mutating func decodeLiterals(
        _ header: CompressedBlockHeader, end: Int, blockOffset: Int, input: UnsafeBufferPointer<UInt8>
    ) throws(LZFSEError) {
        // The reference decoder may read below the payload while refilling near its start (bits it
        // never uses); it bounds reads by the start of the input, and so do we.
        var stream = try BackwardBitStream(
            input, end: end, padding: header.literalBits, initialLowerBound: 0, refillLowerBound: 0,
            blockOffset: blockOffset)
        let mask = LZFSEConstants.literalStates - 1
        var states = (
            Int(header.literalStates.0), Int(header.literalStates.1),
            Int(header.literalStates.2), Int(header.literalStates.3)
        )
        // The encoder pads literals to a multiple of four; the buffer holds the largest padded count.
        let count = min((header.literalCount + 3) & ~3, LZFSEConstants.literalsPerBlock)
        try literalTable.withUnsafeBufferPointer { (table) throws(LZFSEError) in
            try literals.withUnsafeMutableBufferPointer { (out) throws(LZFSEError) in
                var index = 0
                while index < count {
                    try stream.refill(input, blockOffset: blockOffset)
                    var entry = table[states.0 & mask]
                    states.0 = Int(entry.delta) &+ Int(truncatingIfNeeded: stream.pull(Int(entry.bits)))
                    out[index] = entry.symbol
                    entry = table[states.1 & mask]
                    states.1 = Int(entry.delta) &+ Int(truncatingIfNeeded: stream.pull(Int(entry.bits)))
                    out[index + 1] = entry.symbol
                    entry = table[states.2 & mask]
                    states.2 = Int(entry.delta) &+ Int(truncatingIfNeeded: stream.pull(Int(entry.bits)))
                    out[index + 2] = entry.symbol
                    entry = table[states.3 & mask]
                    states.3 = Int(entry.delta) &+ Int(truncatingIfNeeded: stream.pull(Int(entry.bits)))
                    out[index + 3] = entry.symbol
                    index += 4
                }
            }
        }
    }

    /// Then the (L, M, D) triples: emit L literals, then copy M bytes from D bytes back (D = 0 keeps
    /// the previous distance).
    private func decodeMatches(
        _ header: CompressedBlockHeader, payloadStart: Int, end: Int, blockOffset: Int,
        input: UnsafeBufferPointer<UInt8>, output: UnsafeMutableBufferPointer<UInt8>, outputStart: Int
    ) throws(LZFSEError) {
        var stream = try BackwardBitStream(
            input, end: end, padding: header.lmdBits, initialLowerBound: payloadStart, refillLowerBound: 0,
            blockOffset: blockOffset)
        let outputEnd = outputStart + header.rawBytes
        guard outputEnd <= output.count else {
            throw LZFSEError(.corruptData, offset: blockOffset, "a block's output lies outside the stream's output")
        }
        let literalCount = header.literalCount
        var lState = Int(header.lState)
        var mState = Int(header.mState)
        var dState = Int(header.dState)
        var target = outputStart
        var literal = 0
        var distance = -1  // no previous distance yet

        try lTable.withUnsafeBufferPointer { (lTable) throws(LZFSEError) in
            try mTable.withUnsafeBufferPointer { (mTable) throws(LZFSEError) in
                try dTable.withUnsafeBufferPointer { (dTable) throws(LZFSEError) in
                    try literals.withUnsafeBufferPointer { (literals) throws(LZFSEError) in
                        for _ in 0..<header.matchCount {
                            try stream.refill(input, blockOffset: blockOffset)
                            let l = Self.value(&lState, lTable, mask: LZFSEConstants.lStates - 1, &stream)
                            let m = Self.value(&mState, mTable, mask: LZFSEConstants.mStates - 1, &stream)
                            let d = Self.value(&dState, dTable, mask: LZFSEConstants.dStates - 1, &stream)
                            if d != 0 { distance = d }

                            guard l <= literalCount - literal else {
                                throw LZFSEError(
                                    .corruptData, offset: blockOffset, "a block uses more literals than it holds")
                            }
                            guard l + m <= outputEnd - target else {
                                throw LZFSEError(
                                    .corruptData, offset: blockOffset,
                                    "a block decodes to more than its \(header.rawBytes) bytes")
                            }
                            // The match may start in this block's literals or in earlier output.
                            guard distance > 0, distance <= target + l else {
                                throw LZFSEError(
                                    .corruptData, offset: blockOffset,
                                    "a match refers \(distance) bytes back, before the start of the output")
                            }
                            if l > 0, let to = output.baseAddress, let from = literals.baseAddress {
                                (to + target).update(from: from + literal, count: l)
                                target += l
                                literal += l
                            }
                            if m > 0 {
                                LZVNDecoder.copyMatch(output, at: target, distance: distance, count: m)
                                target += m
                            }
                        }
                    }
                }
            }
        }
        guard target == outputEnd else {
            throw LZFSEError(
                .corruptData, offset: blockOffset,
                "a block decodes to \(target - outputStart) bytes instead of its declared \(header.rawBytes)")
        }
    }

    /// Decodes one L, M or D value and advances its state.
    @inline(__always)
    private static func value(
        _ state: inout Int, _ table: UnsafeBufferPointer<ValueDecoderEntry>, mask: Int,
        _ stream: inout BackwardBitStream
    ) -> Int {
        let entry = table[state & mask]
        let bits = stream.pull(Int(entry.totalBits))
        let valueBits = UInt64(entry.valueBits)
        state = Int(entry.delta) &+ Int(truncatingIfNeeded: bits &>> valueBits)
        return Int(entry.valueBase) &+ Int(truncatingIfNeeded: bits & ((1 &<< valueBits) &- 1))
    }
}
