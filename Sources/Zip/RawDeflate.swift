import CZlib

/// zlib's raw deflate (RFC 1951, no wrapper) of part of a buffer, as a piece of a longer stream:
/// what pigz-style blocks (`BlockDeflater`) and a spliced revision (`DeflateSplice`) are made of.
enum RawDeflate {
    /// Appends `bytes[range]` deflated to `output`: with up to `dictionary` bytes before `range`
    /// as the window matches may reach into, `primedWith` (0 to 16 low bits of a value) written
    /// first, and ended by a sync flush (an empty stored block: byte-aligned, nothing final)
    /// unless `final`. False when zlib fails.
    static func append(
        _ bytes: [UInt8], range: Range<Int>, dictionary: Int, final: Bool, level: Int32,
        primedWith pending: (count: Int32, value: Int32) = (0, 0), to output: inout [UInt8]
    ) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, dictionary >= 0 else { return false }
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            == Z_OK
        else { return false }
        defer { deflateEnd(&stream) }
        return bytes.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return false }
            let window = min(dictionary, range.lowerBound)
            if window > 0 {
                guard deflateSetDictionary(&stream, base + (range.lowerBound - window), uInt(window)) == Z_OK else { return false }
            }
            if pending.count > 0 {
                guard deflatePrime(&stream, pending.count, pending.value) == Z_OK else { return false }
            }
            // Room for the whole range even when it does not compress, plus the flush markers.
            var room = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(range.count))) + 64)
            let produced: Int? = room.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: base + range.lowerBound)
                stream.avail_in = uInt(range.count)
                stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                let status = CZlib.deflate(&stream, final ? Z_FINISH : Z_SYNC_FLUSH)
                let complete = final ? status == Z_STREAM_END : status == Z_OK && stream.avail_out > 0
                guard complete, stream.avail_in == 0 else { return nil }
                return target.count - Int(stream.avail_out)
            }
            guard let produced else { return false }
            output.append(contentsOf: room[0..<produced])
            return true
        }
    }
}
