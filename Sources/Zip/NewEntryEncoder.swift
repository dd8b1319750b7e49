import Deflate
import FormatSupport
import Foundation
import OutputFiles

/// Writes added entries (local header then data) and returns their central-directory records.
/// Files are deflated with raw deflate; when that does not make them smaller, they are stored,
/// as Info-ZIP does. Folders and symlinks are stored. Each file is opened once and read from
/// that descriptor (a file walked from a folder only if it is still the file the walk saw).
///
/// Both cores work: entries are compressed whole in memory with libdeflate
/// (`DeflateCompressor`) a group at a time, one per worker, then written in order; that is every
/// file from disk up to a block and every added buffer (a re-signed binary) up to
/// `wholeBufferLimit`. A larger file is deflated with zlib in blocks on every core
/// (`BlockDeflater`; libdeflate cannot continue one stream across blocks). Each entry's bytes
/// depend only on its content and the level, so the output is the same whatever the
/// scheduling, and memory stays bounded by the group and batch sizes.
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
    /// Largest buffer already in memory (a re-signed binary) compressed whole, as
    /// `ZipArchive.wholeReadLimit` is the largest entry inflated whole.
    static let wholeBufferLimit: UInt64 = ZipArchive.wholeReadLimit

    /// Writes `entries` one after another from `start`; `checkLimits` runs between groups and
    /// batches (to stop at a deadline). Returns their central records, in order, and the offset
    /// just past the last one.
    static func write(
        _ entries: [RepackPlan.Added], from start: UInt64, to out: AtomicOutputFile, unixTime: Int64, level: DeflateLevel,
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
            let end = groupEnd(entries, from: next)
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

    /// Where the group of entries encoded together that starts at `start` ends: at most
    /// `groupEntries` entries and about `groupBytes` bytes, none large (`start` itself when it is).
    private static func groupEnd(_ entries: [RepackPlan.Added], from start: Int) -> Int {
        var end = start
        var bytes: UInt64 = 0
        while end < entries.count, end - start < groupEntries, bytes < groupBytes, !isLarge(entries[end]) {
            bytes += entries[end].source.size
            end += 1
        }
        return end
    }

    /// Entries written one at a time among others (a repack's replacements in place, between
    /// copied runs), encoded ahead of their turn a group at a time on every core, as `write`
    /// encodes added entries. Large ones are left to `write(_:encoded:at:...)`, which streams them.
    struct Lookahead {
        /// In the order they are written, by the key they are asked for with.
        private let keys: [Int]
        private let entries: [RepackPlan.Added]
        private let level: DeflateLevel
        private let destination: String
        /// Where the entries revised in place are read from (their streams reused where they agree).
        private let archive: ZipArchive
        private var next = 0
        private var ready: [Int: Encoded] = [:]

        init(_ entries: [(key: Int, entry: RepackPlan.Added)], level: DeflateLevel, destination: String, archive: ZipArchive) {
            self.keys = entries.map(\.key)
            self.entries = entries.map(\.entry)
            self.level = level
            self.destination = destination
            self.archive = archive
        }

        /// The entry of `key` encoded (with the rest of its group, when it was not yet); nil for a large one.
        mutating func encoded(_ key: Int) throws -> Encoded? {
            if let encoded = ready.removeValue(forKey: key) { return encoded }
            guard let start = keys[next...].firstIndex(of: key) else { return nil }
            let end = NewEntryEncoder.groupEnd(entries, from: start)
            next = max(end, start + 1)
            guard end > start else { return nil }
            let group = Array(entries[start..<end])
            // An entry given the start of its stream needs no basis; should the writer refuse that
            // start (the bytes are not the ones it was made from: never, as signing works), the
            // entry is deflated whole.
            let bases = try group.map { entry in
                entry.deflatedPrefix == nil ? try entry.basis.flatMap { try archive.deflateStream(of: $0) } : nil
            }
            let encoded = try encodeConcurrently(group, level: level, destination: destination, bases: bases)
            for (groupKey, value) in zip(keys[start..<end], encoded) { ready[groupKey] = value }
            return ready.removeValue(forKey: key)
        }
    }

    /// Writes one entry at `offset`, `encoded` when it was encoded ahead (`Lookahead`).
    static func write(
        _ entry: RepackPlan.Added, encoded: Encoded? = nil, at offset: UInt64, to out: AtomicOutputFile, unixTime: Int64,
        level: DeflateLevel, checkLimits: () throws -> Void = {}
    ) throws -> Written {
        if let encoded { return try write(entry, encoded, at: offset, to: out, unixTime: unixTime) }
        guard isLarge(entry) else {
            let encoded = try encodeConcurrently([entry], level: level, destination: out.destination)[0]
            return try write(entry, encoded, at: offset, to: out, unixTime: unixTime)
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
            size: source.size, reading: source.read, to: out, at: dataOffset, level: level.blocks, checkLimits: checkLimits)
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
    static func isLarge(_ entry: RepackPlan.Added) -> Bool {
        if case .bytes(let bytes) = entry.source { return UInt64(bytes.count) > wholeBufferLimit }
        return entry.source.size > UInt64(BlockDeflater.blockSize)
    }

    /// Encodes entries held or read whole, on every core (each worker with its own compressor),
    /// results in the entries' order. `bases`, by index: the deflate stream of the entry an
    /// entry revises (`RepackPlan.Added.basis`), reused where the two agree.
    static func encodeConcurrently(
        _ group: [RepackPlan.Added], level: DeflateLevel, destination: String, bases: [[UInt8]?] = []
    ) throws -> [Encoded] {
        // Largest first, so no worker is left with the group's largest entry at its end.
        let order = group.indices.sorted { group[$0].source.size > group[$1].source.size }
        let workers = min(group.count, ProcessInfo.processInfo.activeProcessorCount)
        return try ConcurrentJobs.run(
            count: group.count, workers: workers, order: order, setUp: { DeflateCompressor(level: level.wholeBuffer) }
        ) { compressor, index in
            guard let compressor else { throw OutputError(path: destination, reason: "libdeflate could not start compressing") }
            return try encode(group[index], with: compressor, basis: index < bases.count ? bases[index] : nil, level: level)
        }
    }

    /// An entry read (or taken, when added as bytes) and compressed in memory; a revision of a
    /// deflated entry whose stream `basis` is reuses that stream where the two agree.
    private static func encode(
        _ entry: RepackPlan.Added, with compressor: DeflateCompressor, basis: [UInt8]?, level: DeflateLevel
    ) throws -> Encoded {
        let bytes: [UInt8]
        if case .bytes(let held) = entry.source {
            bytes = held
        } else {
            let source = try OpenedSource(entry.source)
            bytes = try source.read(offset: 0, count: Int(source.size))
        }
        let size = UInt64(bytes.count)
        // With a prefix, the CRC is taken in two parts: the first tells whether the bytes start
        // with the ones the prefix was checked against.
        let prefix = entry.kind == .file && !entry.stored ? entry.deflatedPrefix.flatMap { $0.length <= bytes.count ? $0 : nil } : nil
        let split = prefix?.length ?? 0
        let crcOfPrefix = bytes[..<split].withUnsafeBytes { DeflateEngine.crc32($0) }
        let crc = bytes[split...].withUnsafeBytes { DeflateEngine.crc32($0, continuing: crcOfPrefix) }
        let stored = Encoded(method: 0, crc: crc, compressedSize: size, uncompressedSize: size, data: bytes)
        if let prefix, prefix.crc == crcOfPrefix, prefix.encodedSize(totalLength: bytes.count) < bytes.count {
            let stream = prefix.stream + DeflateSplice.storedBlocks(of: bytes[prefix.length...])
            return Encoded(method: 8, crc: crc, compressedSize: UInt64(stream.count), uncompressedSize: size, data: stream)
        }
        if entry.kind == .file, !entry.stored, let basis, let original = entry.basis,
            let spliced = DeflateSplice.deflate(
                revision: bytes, original: basis, originalSize: Int(original.uncompressedSize), level: level.blocks),
            spliced.count < bytes.count
        {
            return Encoded(method: 8, crc: crc, compressedSize: UInt64(spliced.count), uncompressedSize: size, data: spliced)
        }
        guard entry.kind == .file, !entry.stored, let deflated = bytes.withUnsafeBytes({ compressor.compressIfSmaller($0) }) else {
            return stored
        }
        return Encoded(method: 8, crc: crc, compressedSize: UInt64(deflated.count), uncompressedSize: size, data: deflated)
    }

    static func headerSize(_ entry: RepackPlan.Added, unixTime: Int64) -> UInt64 {
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
            crc = chunk.withUnsafeBytes { DeflateEngine.crc32($0, continuing: crc) }
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
                    throw RepackRequestError(.unreadableSource(path, reason: error.detail))
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
