import CZlib

/// zlib or gzip data ("zip" renditions) inflated into a buffer of known size.
enum Inflate {
    /// Inflates `input`, which must produce exactly `size` bytes. zlib and gzip headers are both
    /// accepted (CoreUI writers have used either).
    static func decompress(_ input: ArraySlice<UInt8>, size: Int, label: String) throws(AssetCatalogError) -> [UInt8] {
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
        let (status, produced) = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                let status = inflate(&stream, Z_FINISH)
                return (status, target.count - Int(stream.avail_out))
            }
        }
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
