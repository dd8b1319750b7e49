/// LZVN, the byte-oriented LZ77 coding LZFSE uses for small blocks (`bvxn`) and CoreUI uses on its
/// own for asset-catalog renditions (compression 3).
///
/// A payload is a sequence of one-byte opcodes, some followed by distance bytes and up to 271
/// literal bytes, ended by an eight-byte end-of-stream opcode.
public enum LZVN {
    /// Decodes a bare LZVN payload whose output size is not known in advance.
    ///
    /// - Throws: `LZFSEError` if the payload is truncated or corrupt, or would decode to more than
    ///   `maximumOutput` bytes.
    public static func decompress(_ bytes: [UInt8], maximumOutput: Int) throws(LZFSEError) -> [UInt8] {
        try bytes.withUnsafeBufferPointer { (input) throws(LZFSEError) -> [UInt8] in
            // Most payloads expand less than eightfold; grow (and start again) when they do not.
            var capacity = min(max(0, maximumOutput), max(4096, input.count.multipliedReportingOverflow(by: 8).partialValue))
            while true {
                do throws(LZVNStop) {
                    return try decode(input, capacity: capacity, exact: false)
                } catch {
                    if case .failed(let failure) = error { throw failure }
                    guard capacity < maximumOutput else {
                        throw LZFSEError(
                            .outputLimitExceeded, offset: 0, "the LZVN payload decodes to more than \(maximumOutput) bytes")
                    }
                    capacity = capacity > maximumOutput / 2 ? maximumOutput : capacity * 2
                }
            }
        }
    }

    /// Decodes a bare LZVN payload that must produce exactly `decodedSize` bytes (CoreUI knows the
    /// size of a rendition's pixel data).
    public static func decompress(_ bytes: [UInt8], decodedSize: Int) throws(LZFSEError) -> [UInt8] {
        guard decodedSize >= 0 else {
            throw LZFSEError(.outputLimitExceeded, offset: 0, "a negative output size was requested")
        }
        return try bytes.withUnsafeBufferPointer { (input) throws(LZFSEError) -> [UInt8] in
            do throws(LZVNStop) {
                return try decode(input, capacity: decodedSize, exact: true)
            } catch {
                switch error {
                case .outputFull:
                    throw LZFSEError(.corruptData, offset: 0, "the LZVN payload decodes to more than \(decodedSize) bytes")
                case .failed(let failure):
                    throw failure
                }
            }
        }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>, capacity: Int, exact: Bool) throws(LZVNStop) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: capacity)
        let produced = try output.withUnsafeMutableBufferPointer { (out) throws(LZVNStop) -> Int in
            let result = try LZVNDecoder.decode(
                input, from: 0, to: input.count, into: out, at: 0, limit: capacity)
            return result.output
        }
        if exact, produced != capacity {
            throw .failed(LZFSEError(
                .corruptData, offset: input.count, "the LZVN payload decodes to \(produced) bytes instead of \(capacity)"))
        }
        output.removeSubrange(produced...)
        return output
    }
}

/// Why LZVN decoding stopped early: the output window is full (the caller may retry with more room),
/// or the payload is bad.
enum LZVNStop: Error {
    case outputFull
    case failed(LZFSEError)
}

enum LZVNDecoder {
    /// Decodes `input[start..<end]` into `output[outputStart..<outputLimit]`. Matches may reach back to
    /// `output[0]`: in an LZFSE stream they may refer to earlier blocks.
    ///
    /// - Returns: where the payload's end-of-stream opcode ended, and where the output ended.
    static func decode(
        _ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
        into output: UnsafeMutableBufferPointer<UInt8>, at outputStart: Int, limit outputLimit: Int
    ) throws(LZVNStop) -> (input: Int, output: Int) {
        guard start >= 0, start <= end, end <= input.count, outputStart >= 0, outputStart <= outputLimit,
            outputLimit <= output.count
        else {
            throw .failed(LZFSEError(.corruptData, offset: start, "an LZVN block lies outside the stream"))
        }
        var source = start
        var target = outputStart
        var distance = 0

        func truncated() -> LZVNStop {
            .failed(LZFSEError(.truncated, offset: source, "the LZVN payload ends before its end-of-stream opcode"))
        }

        while true {
            guard source < end else { throw truncated() }
            let opcode = Int(input[source])
            var literalLength = 0
            var matchLength = 0
            var opcodeLength = 1

            switch opcode {
            case 0x06:  // end of stream: the opcode and seven zero bytes
                guard end - source >= 8 else { throw truncated() }
                return (source + 8, target)
            case 0x0E, 0x16:  // no operation
                guard end - source > 1 else { throw truncated() }
                source += 1
                continue
            case 0xF0:  // large match, previous distance: 11110000 MMMMMMMM
                guard end - source > 2 else { throw truncated() }
                matchLength = Int(input[source + 1]) + 16
                opcodeLength = 2
            case 0xF1...0xFF:  // small match, previous distance: 1111MMMM
                guard end - source > 1 else { throw truncated() }
                matchLength = opcode & 0xF
            case 0xE0:  // large literal: 11100000 LLLLLLLL
                guard end - source > 2 else { throw truncated() }
                literalLength = Int(input[source + 1]) + 16
                opcodeLength = 2
            case 0xE1...0xEF:  // small literal: 1110LLLL
                literalLength = opcode & 0xF
            case 0x70...0x7F, 0xD0...0xDF, 0x1E, 0x26, 0x2E, 0x36, 0x3E:
                throw .failed(LZFSEError(
                    .corruptData, offset: source, "the LZVN payload has the undefined opcode \(opcode)"))
            case 0xA0...0xBF:  // medium distance: 101LLMMM DDDDDDMM DDDDDDDD
                guard end - source > 3 else { throw truncated() }
                literalLength = (opcode >> 3) & 3
                let operand = Int(input[source + 1]) | Int(input[source + 2]) << 8
                matchLength = ((opcode & 7) << 2 | (operand & 3)) + 3
                distance = operand >> 2
                opcodeLength = 3
            default:
                literalLength = opcode >> 6
                matchLength = ((opcode >> 3) & 7) + 3
                switch opcode & 7 {
                case 7:  // large distance: LLMMM111 DDDDDDDD DDDDDDDD
                    guard end - source > 3 else { throw truncated() }
                    distance = Int(input[source + 1]) | Int(input[source + 2]) << 8
                    opcodeLength = 3
                case 6:  // previous distance: LLMMM110
                    break
                default:  // small distance: LLMMMDDD DDDDDDDD
                    guard end - source > 2 else { throw truncated() }
                    distance = (opcode & 7) << 8 | Int(input[source + 1])
                    opcodeLength = 2
                }
            }

            // The opcode, its literal and the first byte of the next opcode must be present.
            guard end - source > opcodeLength + literalLength else { throw truncated() }
            source += opcodeLength
            if literalLength > 0 {
                guard outputLimit - target >= literalLength else { throw .outputFull }
                for index in 0..<literalLength {
                    output[target + index] = input[source + index]
                }
                source += literalLength
                target += literalLength
            }
            if matchLength > 0 {
                guard distance > 0, distance <= target else {
                    throw .failed(LZFSEError(
                        .corruptData, offset: source,
                        "an LZVN match refers \(distance) bytes back, before the start of the output"))
                }
                guard outputLimit - target >= matchLength else { throw .outputFull }
                copyMatch(output, at: target, distance: distance, count: matchLength)
                target += matchLength
            }
        }
    }

    /// Copies `count` bytes from `distance` bytes back. Overlapping copies repeat the pattern, as LZ77
    /// requires. The caller has checked `distance <= position` and `position + count <= output.count`.
    @inline(__always)
    static func copyMatch(_ output: UnsafeMutableBufferPointer<UInt8>, at position: Int, distance: Int, count: Int) {
        if distance >= count, let base = output.baseAddress {
            (base + position).update(from: base + (position - distance), count: count)
        } else {
            for index in position..<(position + count) {
                output[index] = output[index - distance]
            }
        }
    }
}
