import FormatSupport

/// Record signatures and fixed sizes from PKWARE's APPNOTE.TXT (all fields little-endian).
enum ZipSignature {
    static let localHeader: UInt32 = 0x0403_4B50
    static let centralHeader: UInt32 = 0x0201_4B50
    static let endOfCentralDirectory: UInt32 = 0x0605_4B50
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4B50
    static let zip64Locator: UInt32 = 0x0706_4B50
    static let dataDescriptor: UInt32 = 0x0807_4B50

    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endOfCentralDirectorySize = 22
    static let zip64LocatorSize = 20
    static let zip64EndOfCentralDirectorySize = 56
    static let zip64ExtraID: UInt16 = 0x0001
    static let aesExtraID: UInt16 = 0x9901
}

/// The end-of-central-directory information, from the classic record or its Zip64 version.
struct EndOfCentralDirectory {
    /// File offset of the classic record (or of the Zip64 record when present): the central
    /// directory must end exactly here.
    var recordOffset: UInt64
    var entryCount: UInt64
    var centralDirectoryOffset: UInt64
    var centralDirectorySize: UInt64
    /// The archive comment, copied raw by the writer.
    var comment: [UInt8]

    /// Largest central directory read into memory (about two million entries' worth).
    static let maximumCentralDirectorySize: UInt64 = 256 << 20

    /// Finds and validates the end records at the tail of the file.
    static func read(from file: FileByteSource, archive: String) throws(ArchiveError) -> EndOfCentralDirectory {
        let size = file.size
        guard size >= UInt64(ZipSignature.endOfCentralDirectorySize) else {
            throw .notAZipArchive(archive: archive, reason: "the file is only \(size) bytes long")
        }
        // The record is 22 bytes plus a comment of up to 65,535 bytes; a Zip64 locator precedes it.
        let tailLength = Int(min(size, UInt64(ZipSignature.endOfCentralDirectorySize + 0xFFFF + ZipSignature.zip64LocatorSize)))
        let tailStart = size - UInt64(tailLength)
        let tail: ByteReader
        do {
            tail = ByteReader(try file.read(offset: tailStart, count: tailLength))
        } catch {
            throw .unreadable(archive: archive, reason: "\(error)")
        }
        // Search backwards for a record whose comment ends exactly at the end of the file;
        // trailing garbage is refused rather than guessed around.
        var candidate = tailLength - ZipSignature.endOfCentralDirectorySize
        var found: Int?
        var misplaced: Int?
        while candidate >= 0 {
            if (try? tail.uint32(at: candidate, .little)) == ZipSignature.endOfCentralDirectory,
               let commentLength = try? tail.uint16(at: candidate + 20, .little) {
                if candidate + ZipSignature.endOfCentralDirectorySize + Int(commentLength) == tailLength {
                    found = candidate
                    break
                }
                misplaced = misplaced ?? candidate
            }
            candidate -= 1
        }
        guard let eocd = found else {
            if let misplaced {
                let extra = tailLength - misplaced - ZipSignature.endOfCentralDirectorySize
                throw .corrupt(archive: archive, reason: "unexpected data follows the end record (\(extra) bytes including its comment)")
            }
            throw .notAZipArchive(archive: archive, reason: "no end-of-central-directory record was found")
        }
        do {
            let diskNumber = try tail.uint16(at: eocd + 4, .little)
            let directoryDisk = try tail.uint16(at: eocd + 6, .little)
            let entriesOnDisk = try tail.uint16(at: eocd + 8, .little)
            let totalEntries = try tail.uint16(at: eocd + 10, .little)
            let directorySize = try tail.uint32(at: eocd + 12, .little)
            let directoryOffset = try tail.uint32(at: eocd + 16, .little)
            let commentLength = Int(try tail.uint16(at: eocd + 20, .little))
            let comment = Array(try tail.bytes(at: eocd + 22, count: commentLength))
            var result = EndOfCentralDirectory(
                recordOffset: tailStart + UInt64(eocd), entryCount: UInt64(totalEntries),
                centralDirectoryOffset: UInt64(directoryOffset), centralDirectorySize: UInt64(directorySize),
                comment: comment)

            let locator = eocd - ZipSignature.zip64LocatorSize
            if locator >= 0, try tail.uint32(at: locator, .little) == ZipSignature.zip64Locator {
                let zip64Offset = try tail.uint64(at: locator + 8, .little)
                let totalDisks = try tail.uint32(at: locator + 16, .little)
                guard totalDisks <= 1 else {
                    throw ArchiveError.notAZipArchive(archive: archive, reason: "multi-disk archives are not supported")
                }
                try result.applyZip64(from: file, offset: zip64Offset, locatorOffset: tailStart + UInt64(locator), archive: archive)
            } else {
                guard diskNumber == 0, directoryDisk == 0, entriesOnDisk == totalEntries else {
                    throw ArchiveError.notAZipArchive(archive: archive, reason: "multi-disk archives are not supported")
                }
            }
            try result.validatePlacement(archive: archive)
            return result
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw .corrupt(archive: archive, reason: "the end-of-central-directory record is truncated")
        }
    }

    private mutating func applyZip64(
        from file: FileByteSource, offset: UInt64, locatorOffset: UInt64, archive: String
    ) throws {
        guard offset <= locatorOffset, locatorOffset - offset >= UInt64(ZipSignature.zip64EndOfCentralDirectorySize) else {
            throw ArchiveError.corrupt(archive: archive, reason: "the Zip64 end record is out of place")
        }
        let record = ByteReader(try file.read(offset: offset, count: ZipSignature.zip64EndOfCentralDirectorySize))
        guard try record.uint32(at: 0, .little) == ZipSignature.zip64EndOfCentralDirectory else {
            throw ArchiveError.corrupt(archive: archive, reason: "the Zip64 end record has a bad signature")
        }
        let diskNumber = try record.uint32(at: 16, .little)
        let directoryDisk = try record.uint32(at: 20, .little)
        let entriesOnDisk = try record.uint64(at: 24, .little)
        let totalEntries = try record.uint64(at: 32, .little)
        guard diskNumber == 0, directoryDisk == 0, entriesOnDisk == totalEntries else {
            throw ArchiveError.notAZipArchive(archive: archive, reason: "multi-disk archives are not supported")
        }
        entryCount = totalEntries
        centralDirectorySize = try record.uint64(at: 40, .little)
        centralDirectoryOffset = try record.uint64(at: 48, .little)
        recordOffset = offset
    }

    /// The central directory must end exactly where the end records begin: a gap or an overlap
    /// means prepended data or a crafted archive, which different readers would see differently.
    private func validatePlacement(archive: String) throws(ArchiveError) {
        let (end, overflow) = centralDirectoryOffset.addingReportingOverflow(centralDirectorySize)
        guard !overflow, end == recordOffset else {
            throw .corrupt(
                archive: archive,
                reason: "the central directory (offset \(centralDirectoryOffset), \(centralDirectorySize) bytes) "
                    + "does not end where the end record begins (offset \(recordOffset))")
        }
        guard centralDirectorySize <= Self.maximumCentralDirectorySize else {
            throw .corrupt(archive: archive, reason: "the central directory is \(centralDirectorySize) bytes long")
        }
        // Each record is at least 46 bytes, so the count is bounded by the directory's size.
        guard entryCount <= centralDirectorySize / UInt64(ZipSignature.centralHeaderSize) else {
            throw .corrupt(
                archive: archive,
                reason: "the end record claims \(entryCount) entries, more than \(centralDirectorySize) bytes can hold")
        }
    }
}

/// One central-directory record, parsed, with its raw bytes kept for the raw-copy writer.
struct CentralDirectoryRecord {
    /// The record exactly as stored (header, name, extra field, comment).
    var raw: ArraySlice<UInt8>
    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var dosTime: UInt16
    var dosDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    var name: ArraySlice<UInt8>
    /// The extra field's length; the field itself is taken from `raw` when asked for (few are).
    var extraLength: Int
    var externalAttributes: UInt32
    var localHeaderOffset: UInt64
    /// Whether the offset came from the Zip64 extra field (0xFFFFFFFF in the header).
    var offsetInZip64Extra: Bool
    var sizesInZip64Extra: (uncompressed: Bool, compressed: Bool)

    /// The extra field, as stored.
    var extra: ArraySlice<UInt8> {
        let start = raw.startIndex + ZipSignature.centralHeaderSize + name.count
        return raw[start..<(start + extraLength)]
    }

    /// Parses every record of a central directory held in memory.
    static func readAll(
        _ directory: [UInt8], count: UInt64, archive: String
    ) throws(ArchiveError) -> [CentralDirectoryRecord] {
        var reader = ByteReader(directory)
        var records: [CentralDirectoryRecord] = []
        records.reserveCapacity(Int(min(count, UInt64(directory.count / ZipSignature.centralHeaderSize))))
        for index in 0..<count {
            records.append(try parse(&reader, index: index, archive: archive))
        }
        guard reader.isAtEnd else {
            throw .corrupt(
                archive: archive,
                reason: "the central directory holds more than the \(count) records its end record declares")
        }
        return records
    }

    /// Parses the record at the reader's position (record `index` of the directory).
    static func parse(_ reader: inout ByteReader, index: UInt64, archive: String) throws(ArchiveError) -> CentralDirectoryRecord {
        do {
            let start = reader.position
            // The fixed header, read in one go (every record of an archive goes through here)
            // and in place: its fields are loaded at fixed offsets of the 46 bytes checked here.
            try reader.check(offset: start, length: ZipSignature.centralHeaderSize)
            let fields = reader.bytes.withUnsafeBytes { whole in
                let raw = UnsafeRawBufferPointer(rebasing: whole[start..<(start + ZipSignature.centralHeaderSize)])
                return CentralHeaderFields(
                    signature: raw.loadUnaligned(as: UInt32.self).littleEndian,
                    versionMadeBy: raw.loadUnaligned(fromByteOffset: 4, as: UInt16.self).littleEndian,
                    versionNeeded: raw.loadUnaligned(fromByteOffset: 6, as: UInt16.self).littleEndian,
                    flags: raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self).littleEndian,
                    method: raw.loadUnaligned(fromByteOffset: 10, as: UInt16.self).littleEndian,
                    dosTime: raw.loadUnaligned(fromByteOffset: 12, as: UInt16.self).littleEndian,
                    dosDate: raw.loadUnaligned(fromByteOffset: 14, as: UInt16.self).littleEndian,
                    crc: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self).littleEndian,
                    compressed32: raw.loadUnaligned(fromByteOffset: 20, as: UInt32.self).littleEndian,
                    uncompressed32: raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self).littleEndian,
                    nameLength: Int(raw.loadUnaligned(fromByteOffset: 28, as: UInt16.self).littleEndian),
                    extraLength: Int(raw.loadUnaligned(fromByteOffset: 30, as: UInt16.self).littleEndian),
                    commentLength: Int(raw.loadUnaligned(fromByteOffset: 32, as: UInt16.self).littleEndian),
                    diskStart: raw.loadUnaligned(fromByteOffset: 34, as: UInt16.self).littleEndian,
                    // 36: internal attributes
                    external: raw.loadUnaligned(fromByteOffset: 38, as: UInt32.self).littleEndian,
                    offset32: raw.loadUnaligned(fromByteOffset: 42, as: UInt32.self).littleEndian)
            }
            let (signature, versionMadeBy, versionNeeded, flags, method, dosTime, dosDate, crc) = (
                fields.signature, fields.versionMadeBy, fields.versionNeeded, fields.flags, fields.method, fields.dosTime,
                fields.dosDate, fields.crc)
            guard signature == ZipSignature.centralHeader else {
                throw ArchiveError.corrupt(archive: archive, reason: "central-directory record \(index) has a bad signature")
            }
            let (compressed32, uncompressed32, nameLength, extraLength, diskStart, external, offset32) = (
                fields.compressed32, fields.uncompressed32, fields.nameLength, fields.extraLength, fields.diskStart,
                fields.external, fields.offset32)
            try reader.skip(ZipSignature.centralHeaderSize)
            let name = try reader.readBytes(nameLength)
            try reader.skip(extraLength + fields.commentLength)

            var record = CentralDirectoryRecord(
                raw: reader.bytes[start..<reader.position], versionMadeBy: versionMadeBy,
                versionNeeded: versionNeeded, flags: flags, method: method, dosTime: dosTime,
                dosDate: dosDate, crc32: crc, compressedSize: UInt64(compressed32),
                uncompressedSize: UInt64(uncompressed32), name: name, extraLength: extraLength,
                externalAttributes: external, localHeaderOffset: UInt64(offset32),
                offsetInZip64Extra: false, sizesInZip64Extra: (false, false))
            try record.applyZip64Extra(
                uncompressed: uncompressed32 == 0xFFFF_FFFF, compressed: compressed32 == 0xFFFF_FFFF,
                offset: offset32 == 0xFFFF_FFFF, disk: diskStart == 0xFFFF, archive: archive)
            if diskStart != 0 && diskStart != 0xFFFF {
                throw ArchiveError.notAZipArchive(archive: archive, reason: "multi-disk archives are not supported")
            }
            return record
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw .corrupt(archive: archive, reason: "the central directory is truncated")
        }
    }

    /// Reads the Zip64 extended-information field: its values appear only for header fields
    /// set to all ones, in the order uncompressed size, compressed size, offset, disk.
    private mutating func applyZip64Extra(
        uncompressed: Bool, compressed: Bool, offset: Bool, disk: Bool, archive: String
    ) throws {
        guard uncompressed || compressed || offset || disk else { return }
        guard let field = ExtraField.find(ZipSignature.zip64ExtraID, in: extra) else {
            throw ArchiveError.corrupt(
                archive: archive,
                reason: "entry '\(EntryName(bytes: Array(name)))' needs a Zip64 extra field but has none")
        }
        var reader = ByteReader(Array(field))
        if uncompressed { uncompressedSize = try reader.readUInt64(.little) }
        if compressed { compressedSize = try reader.readUInt64(.little) }
        if offset { localHeaderOffset = try reader.readUInt64(.little) }
        offsetInZip64Extra = offset
        sizesInZip64Extra = (uncompressed, compressed)
    }
}

/// The fixed part of a central-directory record.
private struct CentralHeaderFields {
    var signature: UInt32
    var versionMadeBy, versionNeeded, flags, method, dosTime, dosDate: UInt16
    var crc, compressed32, uncompressed32: UInt32
    var nameLength, extraLength, commentLength: Int
    var diskStart: UInt16
    var external, offset32: UInt32
}

/// Reads a central directory's records one after another from the file, a chunk at a time, so
/// the directory is never held whole (the raw-copy writer and the validation both stream it).
/// A reader can hand each chunk it reads on to a second reader on another thread
/// (`DirectoryChunks`), which then parses the very same bytes without reading the file.
struct CentralDirectoryReader {
    /// Where the chunks come from.
    enum Source {
        /// Read from the file; each chunk is also handed on to `forwarding`, when there is one.
        case file(FileByteSource, forwarding: DirectoryChunks?)
        /// Handed on by a reader of the same directory; none left when that reader stopped early.
        case chunks(DirectoryChunks)
    }

    private let source: Source
    private let archive: String
    /// File offset and length of the directory.
    private let start: UInt64
    private let size: UInt64
    private let count: UInt64
    private var chunk = ByteReader([])
    /// Directory offset of the chunk's first byte.
    private var chunkStart: UInt64 = 0
    private(set) var index: UInt64 = 0

    /// Bytes read at once; a record is at most 46 + 3 × 65,535 bytes, so one always fits. A few
    /// chunks are alive at once while they are handed on (`DirectoryChunks`): small ones keep
    /// that little, and are still few reads (40 for 100,000 records).
    static let chunkSize = 256 << 10

    init(file: FileByteSource, directoryOffset: UInt64, directorySize: UInt64, count: UInt64, archive: String) {
        self.init(source: .file(file, forwarding: nil), directoryOffset: directoryOffset, directorySize: directorySize,
                  count: count, archive: archive)
    }

    init(source: Source, directoryOffset: UInt64, directorySize: UInt64, count: UInt64, archive: String) {
        self.source = source
        self.archive = archive
        self.start = directoryOffset
        self.size = directorySize
        self.count = count
    }

    /// The next record and its offset within the directory; nil after the last one, when the
    /// directory must end exactly.
    mutating func next() throws(ArchiveError) -> (record: CentralDirectoryRecord, offset: UInt64)? {
        let offset = chunkStart + UInt64(chunk.position)
        guard index < count else {
            guard offset == size else {
                throw .corrupt(
                    archive: archive,
                    reason: "the central directory holds more than the \(count) records its end record declares")
            }
            return nil
        }
        // The fixed header says how long the record is; then the whole record must be in the chunk.
        try ensure(ZipSignature.centralHeaderSize)
        var length = ZipSignature.centralHeaderSize
        for field in stride(from: 28, to: 34, by: 2) {
            length += Int((try? chunk.uint16(at: chunk.position + field, .little)) ?? 0)
        }
        try ensure(length)
        let record = try CentralDirectoryRecord.parse(&chunk, index: index, archive: archive)
        index += 1
        return (record, offset)
    }

    /// Makes the next `length` bytes of the directory available in the chunk, reading them
    /// (and what follows, up to a chunk) when they are not; fewer remain only in a truncated directory.
    private mutating func ensure(_ length: Int) throws(ArchiveError) {
        guard chunk.remaining < length else { return }
        let offset = chunkStart + UInt64(chunk.position)
        let available = size - min(offset, size)
        let wanted = Int(min(available, UInt64(max(length, Self.chunkSize))))
        switch source {
        case .file(let file, let forwarding):
            let bytes: [UInt8]
            do {
                bytes = try file.read(offset: start + offset, count: wanted)
            } catch {
                throw .unreadable(archive: archive, reason: "\(error)")
            }
            forwarding?.send(DirectoryChunks.Chunk(offset: offset, bytes: bytes))
            chunk = ByteReader(bytes)
        case .chunks(let chunks):
            // The forwarding reader read exactly here, as this reader parses the same bytes.
            guard let next = chunks.receive(), next.offset == offset, next.bytes.count == wanted else {
                throw .unreadable(archive: archive, reason: "the central directory's reader stopped")
            }
            // A copy of its own: records hold slices of their chunk, and two threads counting
            // references to one buffer would wait on each other at every record.
            chunk = ByteReader(next.bytes.withUnsafeBufferPointer { Array($0) })
        }
        chunkStart = offset
        guard wanted >= length else { throw .corrupt(archive: archive, reason: "the central directory is truncated") }
    }
}

/// Extra fields: a run of `{u16 id, u16 size, data}`.
enum ExtraField {
    /// The data of the first field with this id, or nil. A malformed run ends the search.
    static func find(_ id: UInt16, in extra: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var index = extra.startIndex
        while extra.endIndex - index >= 4 {
            let fieldID = UInt16(extra[index]) | UInt16(extra[index + 1]) << 8
            let size = Int(UInt16(extra[index + 2]) | UInt16(extra[index + 3]) << 8)
            let dataStart = index + 4
            guard extra.endIndex - dataStart >= size else { return nil }
            if fieldID == id { return extra[dataStart..<(dataStart + size)] }
            index = dataStart + size
        }
        return nil
    }
}
