import FormatSupport

/// Why an archive was refused. Every case names the archive and, where there is one, the entry,
/// so the message alone tells a user what to fix. All are exit 65 at the command line except
/// `unreadable` (74) and `folderGiven` (64).
public enum ArchiveError: ReasonCodedError, Equatable {
    case notAZipArchive(archive: String, reason: String)
    case corrupt(archive: String, reason: String)
    case unsafeName(archive: String, entry: String, reason: String)
    case duplicateName(archive: String, entry: String)
    /// Two names that differ only in case; `entry` and `other` are the paths where they first differ.
    case caseCollision(archive: String, entry: String, other: String)
    case symlinkEscape(archive: String, entry: String, target: String)
    case symlinkInvalid(archive: String, entry: String, reason: String)
    case encryptedEntry(archive: String, entry: String)
    case lzfseEntry(archive: String, entry: String)
    case unsupportedCompression(archive: String, entry: String, method: UInt16)
    case sizeMismatch(archive: String, entry: String, reason: String)
    case overlappingEntries(archive: String, entry: String, other: String)
    case expansionRatio(archive: String, entry: String, ratio: UInt64, limit: UInt64)
    case totalSizeLimit(archive: String, total: UInt64, limit: UInt64)
    case tooManyEntries(archive: String, count: UInt64, limit: Int)
    case entryTooLarge(archive: String, entry: String, size: UInt64, limit: UInt64)
    /// `what` names the entry, or the image decoded from one.
    case memoryLimit(archive: String, what: String, size: UInt64, limit: UInt64)
    case timeLimit(archive: String, seconds: Double)
    case dataError(archive: String, entry: String, reason: String)
    /// `hint` says where the app is when it sits one folder too deep, and what to do.
    case noApp(archive: String, hint: String? = nil)
    case multipleApps(archive: String, apps: [String])
    case unreadable(archive: String, reason: String)
    /// A folder given where an archive is expected: a usage error (64).
    case folderGiven(archive: String)
    /// A FIFO, device or socket inside an app folder: never opened.
    case specialFile(archive: String, entry: String, kind: String)
    /// A file of an app folder that is no longer the regular file the walk saw when it is packed
    /// (swapped for a symlink, a FIFO or another file, or resized): never followed or read.
    case folderChanged(archive: String, entry: String, reason: String)

    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case notAZipArchive = "ARCHIVE_NOT_ZIP"
        case corrupt = "ARCHIVE_CORRUPT"
        case unsafeName = "ARCHIVE_UNSAFE_NAME"
        case duplicateName = "ARCHIVE_DUPLICATE_NAME"
        case caseCollision = "ARCHIVE_CASE_COLLISION"
        case symlinkEscape = "ARCHIVE_SYMLINK_ESCAPE"
        case symlinkInvalid = "ARCHIVE_SYMLINK_INVALID"
        case encryptedEntry = "ARCHIVE_ENCRYPTED_ENTRY"
        case lzfseEntry = "ARCHIVE_LZFSE_ENTRY"
        case unsupportedCompression = "ARCHIVE_UNSUPPORTED_METHOD"
        case sizeMismatch = "ARCHIVE_SIZE_MISMATCH"
        case overlappingEntries = "ARCHIVE_OVERLAPPING_ENTRIES"
        case expansionRatio = "ARCHIVE_EXPANSION_RATIO"
        case totalSizeLimit = "ARCHIVE_TOTAL_SIZE_LIMIT"
        case tooManyEntries = "ARCHIVE_TOO_MANY_ENTRIES"
        case entryTooLarge = "ARCHIVE_ENTRY_TOO_LARGE"
        case memoryLimit = "ARCHIVE_MEMORY_LIMIT"
        case timeLimit = "ARCHIVE_TIME_LIMIT"
        case dataError = "ARCHIVE_DATA_ERROR"
        case noApp = "ARCHIVE_NO_APP"
        case multipleApps = "ARCHIVE_MULTIPLE_APPS"
        case unreadable = "FILE_READ_FAILED"
        case folderGiven = "INPUT_IS_FOLDER"
        case specialFile = "ARCHIVE_SPECIAL_FILE"
        case folderChanged = "ARCHIVE_FOLDER_CHANGED"

        public var category: ErrorCategory {
            switch self {
            case .unreadable: .io
            case .folderGiven: .usage
            default: .invalidInput
            }
        }
    }

    public var reason: Reason {
        switch self {
        case .notAZipArchive: .notAZipArchive
        case .corrupt: .corrupt
        case .unsafeName: .unsafeName
        case .duplicateName: .duplicateName
        case .caseCollision: .caseCollision
        case .symlinkEscape: .symlinkEscape
        case .symlinkInvalid: .symlinkInvalid
        case .encryptedEntry: .encryptedEntry
        case .lzfseEntry: .lzfseEntry
        case .unsupportedCompression: .unsupportedCompression
        case .sizeMismatch: .sizeMismatch
        case .overlappingEntries: .overlappingEntries
        case .expansionRatio: .expansionRatio
        case .totalSizeLimit: .totalSizeLimit
        case .tooManyEntries: .tooManyEntries
        case .entryTooLarge: .entryTooLarge
        case .memoryLimit: .memoryLimit
        case .timeLimit: .timeLimit
        case .dataError: .dataError
        case .noApp: .noApp
        case .multipleApps: .multipleApps
        case .unreadable: .unreadable
        case .folderGiven: .folderGiven
        case .specialFile: .specialFile
        case .folderChanged: .folderChanged
        }
    }

    public var description: String {
        switch self {
        case .notAZipArchive(let archive, let reason):
            "\(archive) is not a zip archive: \(reason)"
        case .corrupt(let archive, let reason):
            "\(archive) is a damaged zip archive: \(reason)"
        case .unsafeName(let archive, let entry, let reason):
            "\(archive): entry '\(entry)' has an unsafe name (\(reason)); refusing the archive"
        case .duplicateName(let archive, let entry):
            "\(archive): the name '\(entry)' appears more than once; refusing an ambiguous archive"
        case .caseCollision(let archive, let entry, let other):
            "\(archive): '\(entry)' and '\(other)' differ only in case, so they extract to one file on Apple's "
                + "case-insensitive file systems; refusing an ambiguous archive"
        case .symlinkEscape(let archive, let entry, let target):
            "\(archive): symlink '\(entry)' points to '\(target)', which leaves its bundle"
        case .symlinkInvalid(let archive, let entry, let reason):
            "\(archive): symlink '\(entry)' is invalid: \(reason)"
        case .encryptedEntry(let archive, let entry):
            "\(archive): entry '\(entry)' is encrypted with a zip password; decrypt the archive first"
        case .lzfseEntry(let archive, let entry):
            "\(archive): entry '\(entry)' is compressed with Apple's LZFSE zip method (99), used by "
                + "App Store-delivered IPAs; export the app from Xcode or re-zip it with deflate first"
        case .unsupportedCompression(let archive, let entry, let method):
            "\(archive): entry '\(entry)' uses compression method \(method), which cannot be read; "
                + "re-zip the archive with deflate"
        case .sizeMismatch(let archive, let entry, let reason):
            "\(archive): entry '\(entry)' declares sizes that do not match its data (\(reason))"
        case .overlappingEntries(let archive, let entry, let other):
            "\(archive): entries '\(entry)' and '\(other)' share the same bytes (an overlapping-entry zip bomb)"
        case .expansionRatio(let archive, let entry, let ratio, let limit):
            "\(archive): entry '\(entry)' expands \(ratio)× (limit \(limit)×), the signature of a zip bomb; "
                + "raise --max-ratio if the file is genuine"
        case .totalSizeLimit(let archive, let total, let limit):
            "\(archive) expands to \(total) bytes, above the limit of \(limit); raise --max-total-size if it is genuine"
        case .tooManyEntries(let archive, let count, let limit):
            "\(archive) has \(count) entries, above the limit of \(limit)"
        case .entryTooLarge(let archive, let entry, let size, let limit):
            "\(archive): entry '\(entry)' is \(size) bytes, above the \(limit)-byte limit for this kind of file"
        case .memoryLimit(let archive, let what, let size, let limit):
            "\(archive): \(what) needs \(size) bytes of memory, above the limit of \(limit); "
                + "raise --max-memory if the file is genuine"
        case .timeLimit(let archive, let seconds):
            "\(archive) took longer than the limit of \(Self.format(seconds)) s to process; "
                + "raise --time-limit if the file is genuine"
        case .dataError(let archive, let entry, let reason):
            "\(archive): entry '\(entry)' cannot be read: \(reason)"
        case .noApp(let archive, let hint):
            "\(archive) holds no app: an IPA must contain exactly one Payload/<Name>.app/ folder"
                + (hint.map { "; \($0)" } ?? "")
        case .multipleApps(let archive, let apps):
            "\(archive) holds \(apps.count) apps (\(apps.joined(separator: ", "))); an IPA must contain exactly one"
        case .unreadable(let archive, let reason):
            "\(archive): cannot be read: \(reason)"
        case .folderGiven(let archive):
            "\(archive) is a folder, not an .ipa file, an .app or an .xcarchive; to check every IPA in a folder, "
                + "run 'ipawrap batch \(archive)'"
        case .specialFile(let archive, let entry, let kind):
            "\(archive): '\(entry)' is \(kind), not a regular file, folder or symlink; refusing the folder"
        case .folderChanged(let archive, let entry, let reason):
            "\(archive): '\(entry)' changed while the folder was being packed (\(reason)); refusing the folder"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
