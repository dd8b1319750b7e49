import CZlib
import FormatSupport

/// zlib or gzip data ("zip" renditions) inflated into a buffer of known size.
enum Inflate {
    /// Bytes inflated per call to zlib, with the time limit checked between calls.
    static let window = 1 << 20

    /// Inflates `input`, which must produce exactly `size` bytes. zlib and gzip headers are both
    /// accepted (CoreUI writers have used either). `clock` is checked every `window` bytes.
    static func decompress(
        _ input: ArraySlice<UInt8>, size: Int, label: String, clock: inout WorkClock
    ) throws(AssetCatalogError) -> [UInt8] {
        guard input.count <= Int(UInt32.max), size <= Int(UInt32.max) else {
            throw AssetCatalogError(.invalidPixelData, "the zip data of \(label) is larger than zlib can take at once")
        }
        // One byte more than expected, so that too much output shows as a full buffer, not a match.
        var output = [UInt8](repeating: 0, count: size + 1)
        var stream = z_stream()
        // 32 + MAX_WBITS: detect zlib or gzip headers.
        guard inflateInit2_(&stream, 32 + 15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw AssetCatalogError(.invalidPixelData, "zlib could not start inflating \(label)")
        }
        defer { inflateEnd(&stream) }
        var expired = false
        let (status, produced) = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                guard let base = target.baseAddress else { return (Z_BUF_ERROR, 0) }
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                var status = Z_OK
                var produced = 0
                // Z_OK means progress and more to come; a full buffer (room 0) is too much output.
                while status == Z_OK {
                    let room = min(target.count - produced, window)
                    guard room > 0 else { break }
                    stream.next_out = base + produced
                    stream.avail_out = UInt32(room)
                    status = inflate(&stream, Z_NO_FLUSH)
                    produced += room - Int(stream.avail_out)
                    if clock.isExpired(after: room - Int(stream.avail_out)) {
                        expired = true
                        break
                    }
                }
                return (status, produced)
            }
        }
        if expired { throw AssetCatalogError(.timeLimit, clock.timeLimitMessage) }
        guard status == Z_STREAM_END else {
            throw AssetCatalogError(
                .invalidPixelData,
                status == Z_DATA_ERROR || status == Z_NEED_DICT
                    ? "the zip data of \(label) is corrupt"
                    : "the zip data of \(label) is truncated or decodes to more than \(size) bytes")
        }
        guard produced == size else {
            throw AssetCatalogError(
                .invalidPixelData, "the zip data of \(label) decodes to \(produced) bytes instead of \(size)")
        }
        output.removeLast()
        return output
    }
}
