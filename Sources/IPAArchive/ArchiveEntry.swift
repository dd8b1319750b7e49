import FormatSupport

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
