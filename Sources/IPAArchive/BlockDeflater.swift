import CZlib
import Dispatch
import Foundation

/// Raw deflate of a large in-memory file on every core, as pigz does: the input is cut into
/// fixed 1 MiB blocks, each deflated on its own with the 32 KiB before it as its dictionary (so
/// matches still reach back across the cut), ended with `Z_SYNC_FLUSH` (an empty stored block
/// that byte-aligns it) and the last with `Z_FINISH`. The joined blocks are one valid deflate
/// stream; since the cuts depend only on the input's length, the bytes do not depend on how
/// many threads ran, so the output stays reproducible.
enum BlockDeflater {
    static let blockSize = 1 << 20
    /// Blocks deflated at once: bounds the memory held for compressed output.
    static let blocksPerBatch = 8
    private static let windowSize = 1 << 15

    /// Writes the deflated `bytes` at `offset`; returns their CRC and the sizes.
    static func deflate(
        _ bytes: [UInt8], to out: AtomicOutputFile, at offset: UInt64, level: Int32
    ) throws -> (crc: UInt32, compressedSize: UInt64, uncompressedSize: UInt64) {
        let blockCount = (bytes.count + blockSize - 1) / blockSize
        var position = offset
        var crc: UInt32 = 0
        try bytes.withUnsafeBytes { input in
            let shared = SharedInput(bytes: input)
            var first = 0
            while first < blockCount {
                let count = min(blocksPerBatch, blockCount - first)
                let results = BatchResults(count: count)
                let batchStart = first
                DispatchQueue.concurrentPerform(iterations: count) { slot in
                    let block = batchStart + slot
                    results.store(slot, compress(shared.bytes, block: block, isLast: block == blockCount - 1, level: level))
                }
                for slot in 0..<count {
                    guard let block = results.blocks[slot] else {
                        throw OutputError(path: out.destination, reason: "zlib failed while compressing")
                    }
                    crc = UInt32(crc32_combine(uLong(crc), uLong(block.crc), off_t(block.inputCount)))
                    try out.write(block.deflated, at: position)
                    position += UInt64(block.deflated.count)
                }
                first += count
            }
        }
        return (crc, position - offset, UInt64(bytes.count))
    }

    private struct Block: Sendable {
        var deflated: [UInt8]
        var crc: UInt32
        var inputCount: Int
    }

    /// One block deflated (nil when zlib fails), primed with the window before it.
    private static func compress(_ input: UnsafeRawBufferPointer, block: Int, isLast: Bool, level: Int32) -> Block? {
        let start = block * blockSize
        let end = min(input.count, start + blockSize)
        guard let base = input.baseAddress, start < end else { return nil }
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        if start > 0 {
            let window = min(start, windowSize)
            let dictionary = base.assumingMemoryBound(to: Bytef.self) + (start - window)
            guard deflateSetDictionary(&stream, dictionary, uInt(window)) == Z_OK else { return nil }
        }
        // Room for the whole block even when it does not compress, plus the flush markers.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(end - start))) + 64)
        let produced: Int? = output.withUnsafeMutableBytes { outputBuffer in
            stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self) + start)
            stream.avail_in = uInt(end - start)
            stream.next_out = outputBuffer.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(outputBuffer.count)
            let status = CZlib.deflate(&stream, isLast ? Z_FINISH : Z_SYNC_FLUSH)
            let complete = isLast ? status == Z_STREAM_END : status == Z_OK && stream.avail_out > 0
            guard complete, stream.avail_in == 0 else { return nil }
            return outputBuffer.count - Int(stream.avail_out)
        }
        guard let produced else { return nil }
        output.removeLast(output.count - produced)
        let crc = UInt32(crc32(0, base.assumingMemoryBound(to: Bytef.self) + start, uInt(end - start)))
        return Block(deflated: output, crc: crc, inputCount: end - start)
    }

    /// The input, read by every worker during one `concurrentPerform`, which keeps it alive.
    private struct SharedInput: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }

    /// One batch's blocks, each slot written by one worker.
    private final class BatchResults: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var blocks: [Block?]

        init(count: Int) {
            blocks = Array(repeating: nil, count: count)
        }

        func store(_ slot: Int, _ block: Block?) {
            lock.lock()
            blocks[slot] = block
            lock.unlock()
        }
    }
}
