/// One entry of a zip archive, as its central directory declares it.
public struct ArchiveEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case file
        case directory
        case symlink
    }

    /// Position in the central directory (and libzip's index).
    public let index: Int
    public let name: EntryName
    public let kind: Kind
    /// The Unix `st_mode` (file type and permission bits) when the archive was made on a Unix
    /// host (zip "version made by" 3 or 19), otherwise nil (e.g. archives made on Windows).
    public let unixMode: UInt16?
    /// Zip compression method: 0 stored, 8 deflate.
    public let method: UInt16
    public let crc32: UInt32
    public let compressedSize: UInt64
    public let uncompressedSize: UInt64
    public let modified: DOSTimestamp
    /// General-purpose bit flags (bit 3: data descriptor, bit 11: UTF-8 name).
    public let flags: UInt16
    public let externalAttributes: UInt32
    public let versionMadeBy: UInt16

    /// The entry's name as a path string (see `EntryName.string`), decoded once.
    public let path: String
    /// `path` without a trailing slash: the key that files and folders share.
    let pathKey: String

    /// File offset of the local header.
    let localHeaderOffset: UInt64
    /// File offset of the first byte of compressed data.
    let dataOffset: UInt64
    /// File offset just past the entry's bytes (data plus any data descriptor).
    let endOffset: UInt64

    /// Permission bits only (e.g. 0o755), when known.
    public var permissions: UInt16? { unixMode.map { $0 & 0o7777 } }

    init(
        index: Int, name: EntryName, unixMode: UInt16?, method: UInt16, crc32: UInt32, compressedSize: UInt64,
        uncompressedSize: UInt64, modified: DOSTimestamp, flags: UInt16, externalAttributes: UInt32,
        versionMadeBy: UInt16, localHeaderOffset: UInt64, dataOffset: UInt64, endOffset: UInt64
    ) {
        self.index = index
        self.name = name
        self.kind = Self.kind(name: name, unixMode: unixMode)
        self.unixMode = unixMode
        self.method = method
        self.crc32 = crc32
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
        self.modified = modified
        self.flags = flags
        self.externalAttributes = externalAttributes
        self.versionMadeBy = versionMadeBy
        let path = name.string
        self.path = path
        self.pathKey = name.isDirectoryName ? String(path.utf8.dropLast()) ?? path : path
        self.localHeaderOffset = localHeaderOffset
        self.dataOffset = dataOffset
        self.endOffset = endOffset
    }

    static let unixHosts: Set<UInt16> = [3, 19]

    static func kind(name: EntryName, unixMode: UInt16?) -> Kind {
        if name.isDirectoryName { return .directory }
        switch unixMode.map({ $0 & 0o170000 }) {
        case 0o120000: return .symlink
        case 0o040000: return .directory
        default: return .file
        }
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

    /// The timestamp for a moment, read in UTC so the same moment gives the same bytes on every
    /// machine. Dates before 1980 clamp to 1980-01-01, after 2107 to the last representable day.
    public init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        var (year, month, day) = DOSTimestamp.civilDate(daysSince1970: days)
        var hour = Int(secondsOfDay / 3600)
        var minute = Int(secondsOfDay % 3600 / 60)
        var second = Int(secondsOfDay % 60)
        if year < 1980 {
            (year, month, day, hour, minute, second) = (1980, 1, 1, 0, 0, 0)
        } else if year > 2107 {
            (year, month, day, hour, minute, second) = (2107, 12, 31, 23, 59, 58)
        }
        self.date = UInt16((year - 1980) << 9 | month << 5 | day)
        self.time = UInt16(hour << 11 | minute << 5 | second / 2)
    }

    /// Seconds since 1970 reading the fields as UTC.
    public var secondsSince1970: Int64 {
        let year = Int(date >> 9) + 1980
        let month = max(1, min(12, Int((date >> 5) & 0x0F)))
        let day = max(1, Int(date & 0x1F))
        let days = DOSTimestamp.daysSince1970(year: year, month: month, day: day)
        let seconds = Int(time >> 11) * 3600 + Int((time >> 5) & 0x3F) * 60 + Int(time & 0x1F) * 2
        return Int64(days) * 86_400 + Int64(seconds)
    }

    public static func < (lhs: DOSTimestamp, rhs: DOSTimestamp) -> Bool {
        (lhs.date, lhs.time) < (rhs.date, rhs.time)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(daysSince1970 days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = Int(days) + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
