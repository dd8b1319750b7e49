import CZlib
import Deflate
import FormatSupport
import Foundation
import OutputFiles

/// Raw deflate of a large file on every core, as pigz does: the input is cut into fixed 1 MiB
/// blocks, each deflated on its own with the 32 KiB before it as its dictionary (so matches
/// still reach back across the cut), ended with `Z_SYNC_FLUSH` (an empty stored block that
/// byte-aligns it) and the last with `Z_FINISH`. The joined blocks are one valid deflate stream;
/// since the cuts depend only on the input's length, the bytes do not depend on how many
/// threads ran, so the output stays reproducible. The input is read a batch of blocks at a
/// time, so memory does not grow with the file.
enum BlockDeflater {
    static let blockSize = 1 << 20
    /// Blocks read and deflated at once: bounds the memory held for input and compressed output.
    static let blocksPerBatch = 8
    private static let windowSize = 1 << 15

    /// Writes the deflated content of `size` bytes, read in batches by `read(offset, count)`, at
    /// `offset`; `checkLimits` runs between batches (to stop at a deadline). Returns the CRC and
    /// the sizes.
    static func deflate(
        size: UInt64, reading read: (_ offset: UInt64, _ count: Int) throws -> [UInt8],
        to out: AtomicOutputFile, at offset: UInt64, level: Int32, checkLimits: () throws -> Void = {}
    ) throws -> (crc: UInt32, compressedSize: UInt64, uncompressedSize: UInt64) {
        let blockCount = Int((size + UInt64(blockSize) - 1) / UInt64(blockSize))
        var position = offset
        var crc: UInt32 = 0
        var first = 0
        while first < blockCount {
            try checkLimits()
            let count = min(blocksPerBatch, blockCount - first)
            // The batch, with the window before its first block in front.
            let batchStart = UInt64(first) * UInt64(blockSize)
            let readStart = batchStart - min(batchStart, UInt64(windowSize))
            let batchEnd = min(size, batchStart + UInt64(count * blockSize))
            let input = try read(readStart, Int(batchEnd - readStart))
            let lead = Int(batchStart - readStart)
            let (batchFirst, last, destination) = (first, blockCount - 1, out.destination)
            let blocks = try ConcurrentJobs.run(count: count, workers: count, setUp: {}) { _, slot in
                let start = lead + slot * blockSize
                guard let block = compress(
                    input, from: start, to: min(input.count, start + blockSize),
                    window: min(start, windowSize), isLast: batchFirst + slot == last, level: level)
                else { throw OutputError(path: destination, reason: "zlib failed while compressing") }
                return block
            }
            for block in blocks {
                crc = UInt32(crc32_combine(uLong(crc), uLong(block.crc), off_t(block.inputCount)))
                try out.write(block.deflated, at: position)
                position += UInt64(block.deflated.count)
            }
            first += count
        }
        return (crc, position - offset, size)
    }

    private struct Block: Sendable {
        var deflated: [UInt8]
        var crc: UInt32
        var inputCount: Int
    }

    /// The block `input[start..<end]` deflated (nil when zlib fails), with the `window` bytes
    /// before it as dictionary.
    private static func compress(_ input: [UInt8], from start: Int, to end: Int, window: Int, isLast: Bool, level: Int32) -> Block? {
        guard start < end, end <= input.count, window <= start else { return nil }
        var deflated: [UInt8] = []
        guard RawDeflate.append(input, range: start..<end, dictionary: window, final: isLast, level: level, to: &deflated) else {
            return nil
        }
        let crc = input.withUnsafeBytes { DeflateEngine.crc32(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
        return Block(deflated: deflated, crc: crc, inputCount: end - start)
    }
}
