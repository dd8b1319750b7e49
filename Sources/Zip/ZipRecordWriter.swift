/// Builds the byte records of the zip format for entries the toolkit adds, and patches the
/// offsets of copied central-directory records.
enum ZipRecordWriter {
    /// "Version made by": Unix host (3), zip specification 3.0, as Info-ZIP and Apple write.
    static let versionMadeBy: UInt16 = 0x031E

    /// The local header of a new entry (sizes and CRC final: the output is seekable, so no data
    /// descriptor is needed).
    static func localHeader(
        name: [UInt8], flags: UInt16, method: UInt16, timestamp: DOSTimestamp, unixTime: Int64,
        crc32: UInt32, compressedSize: UInt32, uncompressedSize: UInt32
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        let extra = extendedTimestamp(unixTime)
        bytes.reserveCapacity(30 + name.count + extra.count)
        bytes.appendLE(ZipSignature.localHeader)
        bytes.appendLE(versionNeeded(method: method))
        bytes.appendSharedFields(
            flags: flags, method: method, timestamp: timestamp, crc32: crc32, compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, nameLength: name.count, extraLength: extra.count)
        bytes += name
        bytes += extra
        return bytes
    }

    /// The central-directory record of a new entry.
    static func centralRecord(
        name: [UInt8], flags: UInt16, method: UInt16, timestamp: DOSTimestamp, unixTime: Int64,
        crc32: UInt32, compressedSize: UInt32, uncompressedSize: UInt32, mode: UInt16, offset: UInt64
    ) -> [UInt8] {
        var extra = extendedTimestamp(unixTime)
        let needsZip64 = offset >= 0xFFFF_FFFF
        if needsZip64 {
            extra.appendLE(ZipSignature.zip64ExtraID)
            extra.appendLE(UInt16(8))
            extra.appendLE(offset)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(46 + name.count + extra.count)
        bytes.appendLE(ZipSignature.centralHeader)
        bytes.appendLE(versionMadeBy)
        bytes.appendLE(needsZip64 ? 45 : versionNeeded(method: method))
        bytes.appendSharedFields(
            flags: flags, method: method, timestamp: timestamp, crc32: crc32, compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, nameLength: name.count, extraLength: extra.count)
        bytes.appendLE(UInt16(0))  // comment length
        bytes.appendLE(UInt16(0))  // disk number
        bytes.appendLE(UInt16(0))  // internal attributes
        let isDirectory = mode & 0o170000 == 0o040000
        bytes.appendLE(UInt32(mode) << 16 | (isDirectory ? 0x10 : 0))
        bytes.appendLE(needsZip64 ? 0xFFFF_FFFF : UInt32(offset))
        bytes += name
        bytes += extra
        return bytes
    }

    /// A copied central-directory record with its local-header offset changed to `offset`,
    /// every other byte as it was (moving the offset into a Zip64 field when it needs 64 bits).
    static func relocated(_ record: CentralDirectoryRecord, to offset: UInt64) throws(RelocationError) -> [UInt8] {
        var bytes = Array(record.raw)
        let extraStart = 46 + record.name.count
        let zip64Data = zip64FieldPosition(in: bytes, extraStart: extraStart, extraLength: record.extra.count)
        // The Zip64 field lists only the values whose header field is all ones, in the order
        // uncompressed size, compressed size, offset, disk number.
        let sizeFields = (record.sizesInZip64Extra.uncompressed ? 8 : 0) + (record.sizesInZip64Extra.compressed ? 8 : 0)
        if record.offsetInZip64Extra {
            guard let zip64Data else { throw RelocationError() }
            bytes.replaceLE(offset, at: zip64Data + sizeFields)
            return bytes
        }
        if offset < 0xFFFF_FFFF {
            bytes.replaceLE(UInt32(offset), at: 42)
            return bytes
        }
        var offsetBytes: [UInt8] = []
        offsetBytes.appendLE(offset)
        let growth: Int
        if let zip64Data {
            bytes.insert(contentsOf: offsetBytes, at: zip64Data + sizeFields)
            let fieldLength = UInt16(bytes[zip64Data - 2]) | UInt16(bytes[zip64Data - 1]) << 8
            bytes.replaceLE(fieldLength &+ 8, at: zip64Data - 2)
            growth = 8
        } else {
            var field: [UInt8] = []
            field.appendLE(ZipSignature.zip64ExtraID)
            field.appendLE(UInt16(8))
            bytes.insert(contentsOf: field + offsetBytes, at: extraStart + record.extra.count)
            growth = 12
        }
        guard record.extra.count + growth <= 0xFFFF else { throw RelocationError() }
        bytes.replaceLE(UInt16(record.extra.count + growth), at: 30)
        bytes.replaceLE(UInt32(0xFFFF_FFFF), at: 42)
        bytes.replaceLE(max(UInt16(45), record.versionNeeded), at: 6)
        return bytes
    }

    struct RelocationError: Error {}

    /// Offset of the Zip64 field's data within the record bytes, or nil.
    private static func zip64FieldPosition(in bytes: [UInt8], extraStart: Int, extraLength: Int) -> Int? {
        var index = extraStart
        let end = extraStart + extraLength
        while end - index >= 4 {
            let id = UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
            let size = Int(UInt16(bytes[index + 2]) | UInt16(bytes[index + 3]) << 8)
            if id == ZipSignature.zip64ExtraID { return index + 4 }
            index += 4 + size
        }
        return nil
    }

    /// End records: Zip64 versions when the entry count or an offset needs them.
    static func endRecords(entryCount: UInt64, directoryOffset: UInt64, directorySize: UInt64, comment: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        let needsZip64 = entryCount >= 0xFFFF || directoryOffset >= 0xFFFF_FFFF || directorySize >= 0xFFFF_FFFF
        if needsZip64 {
            let zip64Offset = directoryOffset + directorySize
            bytes.appendLE(ZipSignature.zip64EndOfCentralDirectory)
            bytes.appendLE(UInt64(44))
            bytes.appendLE(UInt16(0x032D))  // made by Unix, version 4.5
            bytes.appendLE(UInt16(45))
            bytes.appendLE(UInt32(0))
            bytes.appendLE(UInt32(0))
            bytes.appendLE(entryCount)
            bytes.appendLE(entryCount)
            bytes.appendLE(directorySize)
            bytes.appendLE(directoryOffset)
            bytes.appendLE(ZipSignature.zip64Locator)
            bytes.appendLE(UInt32(0))
            bytes.appendLE(zip64Offset)
            bytes.appendLE(UInt32(1))
        }
        bytes.appendLE(ZipSignature.endOfCentralDirectory)
        bytes.appendLE(UInt16(0))
        bytes.appendLE(UInt16(0))
        let count16 = UInt16(min(entryCount, 0xFFFF))
        bytes.appendLE(count16)
        bytes.appendLE(count16)
        bytes.appendLE(UInt32(min(directorySize, 0xFFFF_FFFF)))
        bytes.appendLE(UInt32(min(directoryOffset, 0xFFFF_FFFF)))
        bytes.appendLE(UInt16(comment.count))
        bytes += comment
        return bytes
    }

    /// Info-ZIP's extended-timestamp field ("UT") with the modification time only.
    private static func extendedTimestamp(_ unixTime: Int64) -> [UInt8] {
        var field: [UInt8] = []
        field.appendLE(UInt16(0x5455))
        field.appendLE(UInt16(5))
        field.append(0x01)
        field.appendLE(UInt32(truncatingIfNeeded: max(0, min(unixTime, Int64(UInt32.max)))))
        return field
    }

    private static func versionNeeded(method: UInt16) -> UInt16 {
        method == 8 ? 20 : 10
    }
}

extension Array where Element == UInt8 {
    /// The fields a local header and a central-directory record share, in their order: from the
    /// general-purpose flags to the extra field's length.
    fileprivate mutating func appendSharedFields(
        flags: UInt16, method: UInt16, timestamp: DOSTimestamp, crc32: UInt32, compressedSize: UInt32,
        uncompressedSize: UInt32, nameLength: Int, extraLength: Int
    ) {
        appendLE(flags)
        appendLE(method)
        appendLE(timestamp.time)
        appendLE(timestamp.date)
        appendLE(crc32)
        appendLE(compressedSize)
        appendLE(uncompressedSize)
        appendLE(UInt16(nameLength))
        appendLE(UInt16(extraLength))
    }

    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        Swift.withUnsafeBytes(of: &little) { append(contentsOf: $0) }
    }

    mutating func replaceLE<T: FixedWidthInteger>(_ value: T, at index: Int) {
        var little = value.littleEndian
        Swift.withUnsafeBytes(of: &little) { replaceSubrange(index..<(index + $0.count), with: $0) }
    }
}
