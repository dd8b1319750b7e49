import FormatSupport

/// Where an entry's bytes are, checked against its local header and data descriptor.
enum LocalHeader {
    struct Span {
        var dataOffset: UInt64
        /// Just past the data and any data descriptor.
        var end: UInt64
    }

    /// Bytes read speculatively past the fixed header so one `pread` usually covers the name and
    /// extra field.
    private static let extraReadAhead = 256

    static func span(
        of record: CentralDirectoryRecord, in file: inout ReadAheadFile, archive: String
    ) throws(ArchiveError) -> Span {
        // Formatted only when a message needs it.
        var entry: String { "\(EntryName(bytes: Array(record.name)))" }
        let offset = record.localHeaderOffset
        guard offset < file.size else {
            throw .corrupt(archive: archive, reason: "entry '\(entry)' points past the end of the file")
        }
        let wanted = ZipSignature.localHeaderSize + record.name.count + extraReadAhead
        let available = Int(min(UInt64(wanted), file.size - offset))
        do {
            // Past a large entry's header lies its data, not the next header: read no further.
            var header = try file.reader(
                at: offset, count: available,
                readAhead: record.compressedSize < UInt64(ReadAheadFile.readAhead) ? ReadAheadFile.readAhead : 0)
            guard try header.readUInt32(.little) == ZipSignature.localHeader else {
                throw ArchiveError.corrupt(archive: archive, reason: "entry '\(entry)' has no local header at offset \(offset)")
            }
            _ = try header.readUInt16(.little)  // version needed
            let flags = try header.readUInt16(.little)
            let method = try header.readUInt16(.little)
            _ = try header.readUInt32(.little)  // DOS time and date
            let crc = try header.readUInt32(.little)
            let compressed32 = try header.readUInt32(.little)
            let uncompressed32 = try header.readUInt32(.little)
            let nameLength = Int(try header.readUInt16(.little))
            let extraLength = Int(try header.readUInt16(.little))
            guard method == record.method, (flags ^ record.flags) & 0x0009 == 0 else {
                throw ArchiveError.corrupt(
                    archive: archive, reason: "entry '\(entry)': the local header disagrees with the central directory")
            }
            let variableLength = nameLength + extraLength
            if header.remaining < variableLength {
                // The extra field is longer than the read-ahead; read the rest.
                header = try file.reader(at: offset, count: ZipSignature.localHeaderSize + variableLength)
                try header.skip(ZipSignature.localHeaderSize)
            }
            guard ByteComparison.equal(try header.readBytes(nameLength), record.name) else {
                throw ArchiveError.corrupt(
                    archive: archive, reason: "entry '\(entry)' has a different name in its local header")
            }
            let extra = try header.readBytes(extraLength)
            let zip64 = ExtraField.find(ZipSignature.zip64ExtraID, in: extra)

            let (dataOffset, overflow) = offset.addingReportingOverflow(UInt64(ZipSignature.localHeaderSize + variableLength))
            let (dataEnd, overflowEnd) = dataOffset.addingReportingOverflow(record.compressedSize)
            guard !overflow, !overflowEnd, dataEnd <= file.size else {
                throw ArchiveError.sizeMismatch(
                    archive: archive, entry: entry,
                    reason: "\(record.compressedSize) compressed bytes would run past the end of the file")
            }

            if flags & 0x0008 == 0 {
                var localCompressed = UInt64(compressed32)
                var localUncompressed = UInt64(uncompressed32)
                if let zip64, compressed32 == 0xFFFF_FFFF || uncompressed32 == 0xFFFF_FFFF {
                    var fields = ByteReader(Array(zip64))
                    if uncompressed32 == 0xFFFF_FFFF { localUncompressed = try fields.readUInt64(.little) }
                    if compressed32 == 0xFFFF_FFFF { localCompressed = try fields.readUInt64(.little) }
                }
                guard crc == record.crc32, localCompressed == record.compressedSize,
                      localUncompressed == record.uncompressedSize else {
                    throw ArchiveError.sizeMismatch(
                        archive: archive, entry: entry,
                        reason: "local header says \(localCompressed)/\(localUncompressed) bytes and CRC "
                            + "\(hex(crc)); the central directory says \(record.compressedSize)/"
                            + "\(record.uncompressedSize) and \(hex(record.crc32))")
                }
                return Span(dataOffset: dataOffset, end: dataEnd)
            }
            let descriptorEnd = try descriptor(
                after: dataEnd, record: record, wide: zip64 != nil, file: &file, archive: archive, entry: entry)
            return Span(dataOffset: dataOffset, end: descriptorEnd)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw .corrupt(archive: archive, reason: "entry '\(entry)' has a truncated local header")
        }
    }

    /// Checks the data descriptor that follows the data (general-purpose bit 3) and returns the
    /// offset just past it. Its signature is optional; sizes are 8 bytes in Zip64 entries.
    private static func descriptor(
        after dataEnd: UInt64, record: CentralDirectoryRecord, wide: Bool, file: inout ReadAheadFile,
        archive: String, entry: String
    ) throws -> UInt64 {
        let length = Int(min(24, file.size - dataEnd))
        let bytes = try file.reader(at: dataEnd, count: length)
        let hasSignature = (try? bytes.uint32(at: bytes.lowerBound, .little)) == ZipSignature.dataDescriptor
        let start = bytes.lowerBound + (hasSignature ? 4 : 0)
        let crc = try bytes.uint32(at: start, .little)
        if !hasSignature, crc != record.crc32, let next = nextRecordName(crc) {
            // What follows the data is the next record, not a descriptor: do not quote its
            // signature as a CRC.
            throw ArchiveError.sizeMismatch(
                archive: archive, entry: entry,
                reason: "general-purpose bit 3 promises a data descriptor after the data, but it is missing "
                    + "(\(next) follows the data directly)")
        }
        let sizeWidth = wide ? 8 : 4
        let compressed = try bytes.uint(at: start + 4, byteCount: sizeWidth, .little)
        let uncompressed = try bytes.uint(at: start + 4 + sizeWidth, byteCount: sizeWidth, .little)
        guard crc == record.crc32, compressed == record.compressedSize, uncompressed == record.uncompressedSize else {
            throw ArchiveError.sizeMismatch(
                archive: archive, entry: entry,
                reason: "data descriptor says \(compressed)/\(uncompressed) bytes and CRC \(hex(crc)); "
                    + "the central directory says \(record.compressedSize)/\(record.uncompressedSize) "
                    + "and \(hex(record.crc32))")
        }
        return dataEnd + UInt64(start - bytes.lowerBound + 4 + 2 * sizeWidth)
    }

    /// The zip record a signature starts, for a missing data descriptor's message.
    private static func nextRecordName(_ signature: UInt32) -> String? {
        switch signature {
        case ZipSignature.localHeader: "the next entry's local header"
        case ZipSignature.centralHeader: "the central directory"
        case ZipSignature.endOfCentralDirectory: "the end of the central directory"
        default: nil
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}

/// Small reads of a file through a window read ahead, so the local headers of small entries that
/// follow one another cost one `pread` for many, not one each (the validation reads every header).
struct ReadAheadFile {
    let file: FileByteSource
    private var window = ByteReader([])
    private var windowStart: UInt64 = 0

    /// Bytes read past what is asked for: a few dozen small entries' worth, and little waste
    /// for the header of a large entry.
    static let readAhead = 32 << 10

    init(_ file: FileByteSource) {
        self.file = file
    }

    var size: UInt64 { file.size }

    /// A reader over exactly `count` bytes at `offset` (which must lie inside the file); its
    /// offsets start at its `lowerBound`.
    mutating func reader(at offset: UInt64, count: Int, readAhead: Int = Self.readAhead) throws -> ByteReader {
        try file.checkRange(offset: offset, count: count)
        if offset < windowStart || offset - windowStart + UInt64(count) > UInt64(window.count) {
            let length = min(UInt64(count + readAhead), file.size - offset)
            window = ByteReader(try file.read(offset: offset, count: Int(length)))
            windowStart = offset
        }
        return try window.window(offset: Int(offset - windowStart), length: count)
    }
}
