import FormatSupport

/// One entry of a zip archive, as its central directory declares it: a view of one row of the
/// archive's entry table, so holding or iterating entries costs nothing per entry. The name and
/// path are rebuilt when asked for.
public struct ArchiveEntry: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case file
        case directory
        case symlink
    }

    let store: EntryStore
    /// Position in the central directory.
    public let index: Int

    init(store: EntryStore, index: Int) {
        self.store = store
        self.index = index
    }

    private var table: EntryTable { store.table }

    public var name: EntryName { store.name(index) }
    public var kind: Kind { table.kind(index) }
    /// The Unix `st_mode` (file type and permission bits) when the archive was made on a Unix
    /// host (zip "version made by" 3 or 19), otherwise nil (e.g. archives made on Windows).
    public var unixMode: UInt16? {
        Self.unixMode(versionMadeBy: versionMadeBy, externalAttributes: externalAttributes)
    }
    /// Zip compression method: 0 stored, 8 deflate.
    public var method: UInt16 { table.methods[index] }
    public var crc32: UInt32 { table.crc32s[index] }
    public var compressedSize: UInt64 { table.compressedSizes[index] }
    public var uncompressedSize: UInt64 { table.uncompressedSizes[index] }
    /// Stored, or deflated to no fewer bytes (random or encrypted content): a revision of it is
    /// stored too, not deflated again for nothing.
    public var deflateDidNotShrink: Bool { method == 0 || compressedSize >= uncompressedSize }
    public var modified: DOSTimestamp { DOSTimestamp(time: table.dosTimes[index], date: table.dosDates[index]) }
    /// General-purpose bit flags (bit 3: data descriptor, bit 11: UTF-8 name).
    public var flags: UInt16 { table.flags[index] }
    public var externalAttributes: UInt32 { table.externalAttributes[index] }
    public var versionMadeBy: UInt16 { table.versionsMadeBy[index] }

    /// The entry's name as a path string (see `EntryName.string`).
    public var path: String { name.string }
    /// The last component of the path, without a trailing slash (read as `EntryName.string`
    /// reads names); cheaper than `path` when only the file name matters.
    public var fileName: String { EntryName.decode(store.tree.fileName(ofEntry: index)) }
    /// The bytes `fileName` is read from, for checks that look at every entry's name and would
    /// otherwise build a string for each.
    public var fileNameBytes: ArraySlice<UInt8> { store.tree.fileName(ofEntry: index) }

    /// File offset of the local header.
    var localHeaderOffset: UInt64 { table.localHeaderOffsets[index] }
    /// File offset of the first byte of compressed data.
    var dataOffset: UInt64 { table.dataOffset(index) }
    /// File offset just past the entry's bytes (data plus any data descriptor).
    var endOffset: UInt64 { table.endOffset(index) }

    /// Permission bits only (e.g. 0o755), when known.
    public var permissions: UInt16? { unixMode.map { $0 & 0o7777 } }

    /// Entries are equal when everything the central directory says of them is.
    public static func == (lhs: ArchiveEntry, rhs: ArchiveEntry) -> Bool {
        lhs.index == rhs.index && lhs.crc32 == rhs.crc32 && lhs.compressedSize == rhs.compressedSize
            && lhs.uncompressedSize == rhs.uncompressedSize && lhs.method == rhs.method && lhs.flags == rhs.flags
            && lhs.modified == rhs.modified && lhs.externalAttributes == rhs.externalAttributes
            && lhs.versionMadeBy == rhs.versionMadeBy && lhs.localHeaderOffset == rhs.localHeaderOffset
            && lhs.endOffset == rhs.endOffset && lhs.dataOffset == rhs.dataOffset && lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(crc32)
        hasher.combine(localHeaderOffset)
    }

    static let unixHosts: Set<UInt16> = [3, 19]

    static func unixMode(versionMadeBy: UInt16, externalAttributes: UInt32) -> UInt16? {
        guard unixHosts.contains(versionMadeBy >> 8) else { return nil }
        let mode = UInt16(truncatingIfNeeded: externalAttributes >> 16)
        return mode == 0 ? nil : mode
    }

    static func kind(isDirectoryName: Bool, unixMode: UInt16?) -> Kind {
        if isDirectoryName { return .directory }
        switch unixMode.map({ $0 & 0o170000 }) {
        case 0o120000: return .symlink
        case 0o040000: return .directory
        default: return .file
        }
    }
}

/// The entries of an archive in central-directory order: a collection of views, built on access.
public struct ArchiveEntries: RandomAccessCollection, Sendable {
    let store: EntryStore

    public var startIndex: Int { 0 }
    public var endIndex: Int { store.table.count }

    public subscript(position: Int) -> ArchiveEntry {
        precondition(indices.contains(position), "entry index out of range")
        return ArchiveEntry(store: store, index: position)
    }
}

/// An MS-DOS date and time as zip stores them (two-second resolution, no time zone).
public struct DOSTimestamp: Sendable, Hashable, Comparable {
    public let time: UInt16
    public let date: UInt16

    public init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// 1980-01-01 00:00, the earliest moment zip can record.
    public static let earliest = DOSTimestamp(time: 0, date: 1 << 5 | 1)
    /// 1980-01-01 00:00:00 and 2107-12-31 23:59:58 UTC, the range MS-DOS fields hold.
    static let earliestSeconds: Int64 = 315_532_800
    static let latestSeconds: Int64 = 4_354_819_198

    /// The timestamp for a moment, read in UTC so the same moment gives the same bytes on every
    /// machine. Dates before 1980 clamp to 1980-01-01, after 2107 to the last representable day.
    public init(secondsSince1970 seconds: Int64) {
        // Clamp first, so no arithmetic below can overflow whatever the input.
        let clamped = min(max(seconds, Self.earliestSeconds), Self.latestSeconds)
        let days = clamped / 86_400
        let secondsOfDay = clamped % 86_400
        let civil = CivilDate.date(daysSince1970: days)
        let (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        let hour = Int(secondsOfDay / 3600)
        let minute = Int(secondsOfDay % 3600 / 60)
        let second = Int(secondsOfDay % 60)
        self.date = UInt16((year - 1980) << 9 | month << 5 | day)
        self.time = UInt16(hour << 11 | minute << 5 | second / 2)
    }

    /// Seconds since 1970 reading the fields as UTC.
    public var secondsSince1970: Int64 {
        let year = Int(date >> 9) + 1980
        let month = max(1, min(12, Int((date >> 5) & 0x0F)))
        let day = max(1, Int(date & 0x1F))
        let days = CivilDate.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = Int(time >> 11) * 3600 + Int((time >> 5) & 0x3F) * 60 + Int(time & 0x1F) * 2
        return Int64(days) * 86_400 + Int64(seconds)
    }

    public static func < (lhs: DOSTimestamp, rhs: DOSTimestamp) -> Bool {
        (lhs.date, lhs.time) < (rhs.date, rhs.time)
    }
}
