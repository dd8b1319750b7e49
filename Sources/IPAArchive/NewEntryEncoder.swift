import CZlib
import Dispatch
import FormatSupport
import Foundation
import Synchronization

/// Writes added entries (local header then data) and returns their central-directory records.
/// Files are deflated with raw deflate; when that does not make them smaller, they are stored,
/// as Info-ZIP does. Folders and symlinks are stored. Each file is opened once and read from
/// that descriptor (a file walked from a folder only if it is still the file the walk saw).
///
/// Both cores work: small entries are read and compressed in memory a group at a time, one per
/// worker, then written in order; a large file is deflated in blocks on every core
/// (`BlockDeflater`). Each entry's bytes depend only on its content, so the output is the same
/// whatever the scheduling, and memory stays bounded by the group and batch sizes.
enum NewEntryEncoder {
    struct Written {
        var centralRecord: [UInt8]
        /// Output offset just past the entry.
        var end: UInt64
    }

    private static let chunkSize = 1 << 20
    /// Input bytes of small entries compressed at once (and held, with their output, in memory).
    static let groupBytes: UInt64 = 8 << 20
    /// Small entries compressed at once.
    static let groupEntries = 256

    /// Writes `entries` one after another from `start`; `checkLimits` runs between groups and
    /// batches (to stop at a deadline). Returns their central records, in order, and the offset
    /// just past the last one.
    static func write(
        _ entries: [RepackPlan.Added], from start: UInt64, to out: AtomicOutputFile, unixTime: Int64, level: Int32,
        checkLimits: () throws -> Void
    ) throws -> (records: [[UInt8]], end: UInt64) {
        var records: [[UInt8]] = []
        records.reserveCapacity(entries.count)
        var position = start
        var next = 0
        while next < entries.count {
            try checkLimits()
            if isLarge(entries[next]) {
                let written = try write(entries[next], at: position, to: out, unixTime: unixTime, level: level, checkLimits: checkLimits)
                records.append(written.centralRecord)
                position = written.end
                next += 1
                continue
            }
            var end = next
            var bytes: UInt64 = 0
            while end < entries.count, end - next < groupEntries, bytes < groupBytes, !isLarge(entries[end]) {
                bytes += entries[end].source.size
                end += 1
            }
            let group = Array(entries[next..<end])
            for (entry, encoded) in zip(group, try encodeConcurrently(group, level: level, destination: out.destination)) {
                let written = try write(entry, encoded, at: position, to: out, unixTime: unixTime)
                records.append(written.centralRecord)
                position = written.end
            }
            next = end
        }
        return (records, position)
    }

    /// Writes one entry at `offset`.
    static func write(
        _ entry: RepackPlan.Added, at offset: UInt64, to out: AtomicOutputFile, unixTime: Int64, level: Int32,
        checkLimits: () throws -> Void = {}
    ) throws -> Written {
        guard isLarge(entry) else {
            return try write(entry, try encode(entry, level: level, destination: out.destination), at: offset, to: out, unixTime: unixTime)
        }
        let dataOffset = offset + headerSize(entry, unixTime: unixTime)
        let source = try OpenedSource(entry.source)
        func stored() throws -> Encoded {
            let (crc, size) = try store(source, to: out, at: dataOffset, checkLimits: checkLimits)
            return Encoded(method: 0, crc: crc, compressedSize: size, uncompressedSize: size)
        }
        guard entry.kind == .file, !entry.stored else {
            return try writeHeaders(entry, try stored(), at: offset, to: out, unixTime: unixTime)
        }
        let deflated = try BlockDeflater.deflate(
            size: source.size, reading: source.read, to: out, at: dataOffset, level: level, checkLimits: checkLimits)
        let encoded = deflated.compressedSize < deflated.uncompressedSize
            ? Encoded(method: 8, crc: deflated.crc, compressedSize: deflated.compressedSize, uncompressedSize: source.size)
            : try stored()
        return try writeHeaders(entry, encoded, at: offset, to: out, unixTime: unixTime)
    }

    /// An entry's data as written after its local header.
    struct Encoded: Sendable {
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        /// The data, for an entry encoded in memory.
        var data: [UInt8] = []
    }

    /// A file streamed (deflated on every core in blocks), rather than encoded in memory with others.
    private static func isLarge(_ entry: RepackPlan.Added) -> Bool {
        entry.source.size > UInt64(BlockDeflater.blockSize)
    }

    /// Encodes a group of small entries, one per worker, in the group's order.
    private static func encodeConcurrently(_ group: [RepackPlan.Added], level: Int32, destination: String) throws -> [Encoded] {
        guard group.count > 1 else { return try group.map { try encode($0, level: level, destination: destination) } }
        let results = GroupResults(count: group.count)
        DispatchQueue.concurrentPerform(iterations: group.count) { index in
            let result = Result { try encode(group[index], level: level, destination: destination) }
            results.slots.withLock { $0[index] = result }
        }
        return try results.slots.withLock { $0 }.map { slot in
            guard let slot else { throw OutputError(path: destination, reason: "a worker stopped before its entry") }
            return try slot.get()
        }
    }

    private final class GroupResults: Sendable {
        let slots: Mutex<[Result<Encoded, any Error>?]>

        init(count: Int) {
            slots = Mutex(Array(repeating: nil, count: count))
        }
    }

    /// A small entry read and compressed in memory.
    private static func encode(_ entry: RepackPlan.Added, level: Int32, destination: String) throws -> Encoded {
        let source = try OpenedSource(entry.source)
        let bytes = try source.read(offset: 0, count: Int(source.size))
        let crc = bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        let stored = Encoded(method: 0, crc: crc, compressedSize: source.size, uncompressedSize: source.size, data: bytes)
        guard entry.kind == .file, !bytes.isEmpty, !entry.stored else { return stored }
        let deflated = try deflate(bytes, level: level, destination: destination)
        guard deflated.count < bytes.count else { return stored }
        return Encoded(method: 8, crc: crc, compressedSize: UInt64(deflated.count), uncompressedSize: source.size, data: deflated)
    }

    /// Raw deflate (negative window bits: zip stores no zlib header or Adler-32) of `bytes` at once.
    private static func deflate(_ bytes: [UInt8], level: Int32, destination: String) throws -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                            zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw OutputError(path: destination, reason: "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        let produced: Int? = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        guard let produced else { throw OutputError(path: destination, reason: "zlib failed while compressing") }
        output.removeLast(output.count - produced)
        return output
    }

    private static func headerSize(_ entry: RepackPlan.Added, unixTime: Int64) -> UInt64 {
        // The data starts after a local header whose size is known before the data is.
        UInt64(ZipRecordWriter.localHeader(
            name: entry.name.bytes, flags: entry.nameFlags, method: 0, timestamp: DOSTimestamp(secondsSince1970: unixTime),
            unixTime: unixTime, crc32: 0, compressedSize: 0, uncompressedSize: 0).count)
    }

    /// Writes an entry encoded in memory.
    private static func write(
        _ entry: RepackPlan.Added, _ encoded: Encoded, at offset: UInt64, to out: AtomicOutputFile, unixTime: Int64
    ) throws -> Written {
        try out.write(encoded.data, at: offset + headerSize(entry, unixTime: unixTime))
        return try writeHeaders(entry, encoded, at: offset, to: out, unixTime: unixTime)
    }

    /// Writes the local header at `offset` (its data is in place) and returns the central record.
    private static func writeHeaders(
        _ entry: RepackPlan.Added, _ encoded: Encoded, at offset: UInt64, to out: AtomicOutputFile, unixTime: Int64
    ) throws -> Written {
        let (name, flags) = (entry.name.bytes, entry.nameFlags)
        let timestamp = DOSTimestamp(secondsSince1970: unixTime)
        let header = ZipRecordWriter.localHeader(
            name: name, flags: flags, method: encoded.method, timestamp: timestamp, unixTime: unixTime,
            crc32: encoded.crc, compressedSize: UInt32(encoded.compressedSize), uncompressedSize: UInt32(encoded.uncompressedSize))
        try out.write(header, at: offset)
        let record = ZipRecordWriter.centralRecord(
            name: name, flags: flags, method: encoded.method, timestamp: timestamp, unixTime: unixTime, crc32: encoded.crc,
            compressedSize: UInt32(encoded.compressedSize), uncompressedSize: UInt32(encoded.uncompressedSize),
            mode: entry.mode, offset: offset)
        return Written(centralRecord: record, end: offset + UInt64(header.count) + encoded.compressedSize)
    }

    /// Writes the content uncompressed, in chunks; returns its CRC and size.
    private static func store(
        _ source: OpenedSource, to out: AtomicOutputFile, at offset: UInt64, checkLimits: () throws -> Void
    ) throws -> (crc: UInt32, size: UInt64) {
        var done: UInt64 = 0
        var crc: UInt32 = 0
        while done < source.size {
            try checkLimits()
            let count = Int(min(UInt64(chunkSize), source.size - done))
            let chunk = try source.read(offset: done, count: count)
            crc = chunk.withUnsafeBufferPointer { UInt32(crc32(uLong(crc), $0.baseAddress, uInt($0.count))) }
            try out.write(chunk, at: offset + done)
            done += UInt64(count)
        }
        return (crc, done)
    }

    /// An entry's content, its file opened once.
    private enum OpenedSource {
        case bytes([UInt8])
        case file(FileByteSource)
        /// A file of an app folder: a read that comes up short means it changed after the walk.
        case walked(FileByteSource, WalkedFile)

        init(_ source: RepackPlan.Added.Source) throws {
            switch source {
            case .none:
                self = .bytes([])
            case .bytes(let bytes):
                self = .bytes(bytes)
            case .file(let path, _, let walked?):
                self = .walked(try walked.open(path), walked)
            case .file(let path, let size, nil):
                let file: FileByteSource
                do {
                    file = try FileByteSource(path: path)
                } catch {
                    throw RepackRequestError(.unreadableSource(path, reason: error.reason))
                }
                guard file.size == size else {
                    throw RepackRequestError(.unreadableSource(path, reason: "it changed while being added"))
                }
                self = .file(file)
            }
        }

        var size: UInt64 {
            switch self {
            case .bytes(let bytes): UInt64(bytes.count)
            case .file(let file), .walked(let file, _): file.size
            }
        }

        func read(offset: UInt64, count: Int) throws -> [UInt8] {
            switch self {
            case .bytes(let bytes):
                guard offset <= UInt64(bytes.count), count <= bytes.count - Int(offset) else {
                    throw OutputError(path: "", reason: "a read past the end of added content")
                }
                return Array(bytes[Int(offset)..<Int(offset) + count])
            case .file(let file):
                return try file.read(offset: offset, count: count)
            case .walked(let file, let walked):
                return try walked.read(file, offset: offset, count: count)
            }
        }
    }
}

extension RepackPlan.Added.Source {
    /// The content's length in bytes.
    var size: UInt64 {
        switch self {
        case .none: 0
        case .bytes(let bytes): UInt64(bytes.count)
        case .file(_, let size, _): size
        }
    }
}
