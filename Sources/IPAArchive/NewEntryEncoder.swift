import CZlib
import FormatSupport
import Foundation

/// Writes one added entry (local header then data) and returns its central-directory record.
/// Files are deflated with raw deflate; when that does not make them smaller, they are stored,
/// as Info-ZIP does. Folders and symlinks are stored.
enum NewEntryEncoder {
    struct Written {
        var centralRecord: [UInt8]
        /// Output offset just past the entry.
        var end: UInt64
    }

    private static let chunkSize = 1 << 20

    static func write(
        _ entry: RepackPlan.Added, at offset: UInt64, to out: AtomicOutputFile, unixTime: Int64, level: Int32
    ) throws -> Written {
        let name = entry.name.bytes
        let flags = entry.nameFlags
        let timestamp = DOSTimestamp(secondsSince1970: unixTime)
        // The data starts after a local header whose size is known before the data is.
        let headerSize = UInt64(ZipRecordWriter.localHeader(
            name: name, flags: flags, method: 0, timestamp: timestamp, unixTime: unixTime,
            crc32: 0, compressedSize: 0, uncompressedSize: 0).count)
        let dataOffset = offset + headerSize

        var method: UInt16 = 0
        var crc: UInt32 = 0
        var compressedSize: UInt64 = 0
        var uncompressedSize: UInt64 = 0
        switch entry.source {
        case .none:
            break
        case .bytes(let bytes) where entry.kind != .file || bytes.isEmpty || entry.stored:
            crc = checksum(bytes, previous: 0)
            try out.write(bytes, at: dataOffset)
            compressedSize = UInt64(bytes.count)
            uncompressedSize = UInt64(bytes.count)
        case .file where entry.stored:
            (crc, compressedSize) = try store(entry.source, to: out, at: dataOffset)
            uncompressedSize = compressedSize
        case .bytes, .file:
            let deflated =
                if case .bytes(let bytes) = entry.source, bytes.count > BlockDeflater.blockSize {
                    try BlockDeflater.deflate(bytes, to: out, at: dataOffset, level: level)
                } else {
                    try deflate(entry.source, to: out, at: dataOffset, level: level)
                }
            crc = deflated.crc
            uncompressedSize = deflated.uncompressedSize
            if deflated.compressedSize < deflated.uncompressedSize {
                method = 8
                compressedSize = deflated.compressedSize
            } else {
                compressedSize = try store(entry.source, to: out, at: dataOffset).size
            }
        }

        let header = ZipRecordWriter.localHeader(
            name: name, flags: flags, method: method, timestamp: timestamp, unixTime: unixTime,
            crc32: crc, compressedSize: UInt32(compressedSize), uncompressedSize: UInt32(uncompressedSize))
        try out.write(header, at: offset)
        let record = ZipRecordWriter.centralRecord(
            name: name, flags: flags, method: method, timestamp: timestamp, unixTime: unixTime, crc32: crc,
            compressedSize: UInt32(compressedSize), uncompressedSize: UInt32(uncompressedSize),
            mode: entry.mode, offset: offset)
        return Written(centralRecord: record, end: dataOffset + compressedSize)
    }

    private static func checksum(_ bytes: [UInt8], previous: UInt32) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(crc32(uLong(previous), $0.baseAddress, uInt($0.count))) }
    }

    /// Calls `body` with the source's content in chunks.
    private static func forEachChunk(_ source: RepackPlan.Added.Source, _ body: ([UInt8]) throws -> Void) throws {
        switch source {
        case .none:
            return
        case .bytes(let bytes):
            try body(bytes)
        case .file(let path, let size):
            let file: FileByteSource
            do {
                file = try FileByteSource(path: path)
            } catch {
                throw RepackRequestError(.unreadableSource(path, reason: error.reason))
            }
            guard file.size == size else {
                throw RepackRequestError(.unreadableSource(path, reason: "it changed while being added"))
            }
            var offset: UInt64 = 0
            while offset < size {
                let count = Int(min(UInt64(chunkSize), size - offset))
                try body(try file.read(offset: offset, count: count))
                offset += UInt64(count)
            }
        }
    }

    /// Writes the content uncompressed; returns its CRC and size.
    private static func store(_ source: RepackPlan.Added.Source, to out: AtomicOutputFile, at offset: UInt64) throws -> (crc: UInt32, size: UInt64) {
        var position = offset
        var crc: UInt32 = 0
        try forEachChunk(source) { chunk in
            crc = checksum(chunk, previous: crc)
            try out.write(chunk, at: position)
            position += UInt64(chunk.count)
        }
        return (crc, position - offset)
    }

    private static func deflate(
        _ source: RepackPlan.Added.Source, to out: AtomicOutputFile, at offset: UInt64, level: Int32
    ) throws -> (crc: UInt32, compressedSize: UInt64, uncompressedSize: UInt64) {
        var stream = z_stream()
        // Raw deflate (negative window bits): zip stores no zlib header or Adler-32.
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw OutputError(path: out.destination, reason: "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var crc: UInt32 = 0
        var uncompressed: UInt64 = 0
        var position = offset
        var output = [UInt8](repeating: 0, count: chunkSize)

        func pump(_ input: inout [UInt8], finish: Bool) throws {
            try input.withUnsafeMutableBufferPointer { inputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                repeat {
                    let produced: Int = try output.withUnsafeMutableBufferPointer { outputBuffer in
                        stream.next_out = outputBuffer.baseAddress
                        stream.avail_out = uInt(outputBuffer.count)
                        let status = CZlib.deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                        guard status != Z_STREAM_ERROR else {
                            throw OutputError(path: out.destination, reason: "zlib failed while compressing")
                        }
                        return outputBuffer.count - Int(stream.avail_out)
                    }
                    if produced > 0 {
                        try output.withUnsafeBytes { try out.write(UnsafeRawBufferPointer(rebasing: $0[0..<produced]), at: position) }
                        position += UInt64(produced)
                    }
                } while stream.avail_out == 0 || (finish && stream.avail_in > 0)
                stream.next_in = nil
            }
        }

        try forEachChunk(source) { chunk in
            crc = checksum(chunk, previous: crc)
            uncompressed += UInt64(chunk.count)
            var input = chunk
            try pump(&input, finish: false)
        }
        var empty: [UInt8] = []
        try pump(&empty, finish: true)
        return (crc, position - offset, uncompressed)
    }
}
