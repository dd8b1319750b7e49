import FormatSupport
import Foundation
import Zip

/// An unzipped app (`X.app/`) or an Xcode archive (`X.xcarchive/`, whose app is
/// `Products/Applications/X.app/`; dSYMs and the rest are ignored) given where an IPA is expected.
///
/// It is read as the IPA `xcodebuild -exportArchive` would write from it: `Payload/X.app/...`,
/// file modes kept, symlinks stored as symlinks, entries sorted by name, every timestamp the
/// newest modification time in the app. The folder is walked without following symlinks and
/// refused (exit 65) where an archive would be: special files (FIFOs, devices, sockets) are
/// never opened, unsafe names and more entries or bytes than `limits` are refused while walking,
/// and the packed archive goes through every check of `ZipArchive` and `IPAArchive` (NFC/NFD and
/// case twins, symlinks that leave the app) under the folder's name.
public struct AppFolder: Sendable {
    public enum Kind: String, Sendable {
        case app
        case xcarchive
    }

    /// How the folder's files are packed.
    public enum Packing: Sendable {
        /// Stored as they are: the fastest, for reading (`inspect`, `check`, `icon`).
        case stored
        /// Deflated, as ipawrap's writer deflates added entries: for an IPA that is written out.
        case deflated
    }

    /// The folder as given.
    public let path: String
    public let kind: Kind
    /// The app folder's name, e.g. `Sample.app`.
    public let appName: String
    /// The entries of the IPA, `Payload/` first, sorted by name.
    public let entries: [ArchiveEdits.Addition]
    /// The newest modification time in the app, the timestamp of every entry.
    public let newestModification: Int64
    /// The time limit, running since the walk began; packing must meet it too.
    let clock: WorkClock

    /// The kind of folder `path` is; nil when it is not a folder (or cannot be looked at).
    /// - Throws: `ArchiveError.folderGiven` (exit 64) for a folder that is neither an `.app` nor
    ///   an `.xcarchive` (one with `Products/Applications/`).
    public static func kind(of path: String) throws(ArchiveError) -> Kind? {
        guard isFolder(path, following: true) else { return nil }
        let trimmed = trimmingSlashes(path)
        if trimmed.hasSuffix(".app") { return .app }
        if isFolder(trimmed + "/Products/Applications", following: false) { return .xcarchive }
        throw .folderGiven(archive: path)
    }

    public init(path: String, limits: ArchiveLimits = .default) throws(ArchiveError) {
        try self.init(path: path, limits: limits, afterListing: nil)
    }

    /// - Parameter afterListing: called with each folder's path on disk once it is listed, before
    ///   its entries are looked at: the seam through which a test changes the folder mid-walk.
    init(path: String, limits: ArchiveLimits, afterListing: ((String) -> Void)?) throws(ArchiveError) {
        guard let kind = try Self.kind(of: path) else {
            throw .unreadable(archive: path, reason: "it is not a folder")
        }
        self.path = path
        self.kind = kind
        let root = Self.trimmingSlashes(path)
        let appFolder: String
        switch kind {
        case .app:
            appFolder = root
        case .xcarchive:
            appFolder = try Self.archivedApp(in: root, archive: path)
        }
        appName = String(appFolder.split(separator: "/").last ?? Substring(appFolder))
        guard PathEncoding.isUTF8(appName) else {
            throw .unsafeName(archive: path, entry: "Payload/" + appName, reason: Self.notUTF8)
        }
        var walk = Walk(archive: path, limits: limits, afterListing: afterListing)
        try walk.add(folder: appFolder, as: "Payload/" + appName)
        entries = [ArchiveEdits.Addition(name: "Payload/", content: .directory, permissions: 0o755)]
            + walk.entries.sorted { $0.name.precedesInUTF8Order($1.name) }
        newestModification = walk.newestModification
        clock = walk.clock
    }

    /// Why a name on disk that is not UTF-8 (`PathEncoding` carries its bytes) cannot go into an IPA.
    static let notUTF8 = "it is not UTF-8, which every name in an IPA must be"

    /// Writes the IPA to `output`, atomically.
    @discardableResult
    public func writeIPA(to output: String, packing: Packing, synchronize: Bool = false) throws -> RepackSummary {
        let packed = entries.map { entry in
            var entry = entry
            entry.stored = packing == .stored
            return entry
        }
        return try ArchiveWriter.create(
            at: output, additions: packed,
            options: RepackOptions(timestamp: .secondsSince1970(newestModification), synchronize: synchronize),
            clock: clock, verify: { _ in })
    }

    /// The IPA, packed into a temporary file that is gone once it is open (nothing to clean up),
    /// opened under the folder's name.
    func openZip(packing: Packing, limits: ArchiveLimits) throws(ArchiveError) -> ZipArchive {
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("ipawrap-folder-\(UUID().uuidString).ipa").path
        defer { _ = FileSystem.unlink(temporary) }
        do {
            try writeIPA(to: temporary, packing: packing)
        } catch let error as ArchiveError {
            throw error
        } catch let error as RepackRequestError {
            // The names were checked while walking; what is left is two names that are one path
            // once normalized (NFC/NFD twins), which an archive would be refused for too.
            switch error.fault {
            case .duplicateAddition(let name): throw .duplicateName(archive: path, entry: name)
            case .invalidName(let name, let reason): throw .unsafeName(archive: path, entry: name, reason: reason)
            case .nameTooLong(let name, let length):
                throw .unsafeName(archive: path, entry: name, reason: "the name is \(length) bytes long, more than a zip header holds")
            default: throw .unreadable(archive: path, reason: "it could not be packed as an IPA (\(error))")
            }
        } catch {
            throw .unreadable(archive: path, reason: "it could not be packed as an IPA (\(error))")
        }
        return try ZipArchive(opening: temporary, displayedAs: path, limits: limits, deadline: clock.deadline)
    }

    // MARK: Walking

    /// The one app inside an Xcode archive's `Products/Applications/`.
    private static func archivedApp(in root: String, archive: String) throws(ArchiveError) -> String {
        let applications = root + "/Products/Applications"
        let names = try FileSystem.names(inFolder: applications, unreadable: { error -> ArchiveError in
            Walk.seenChanging(error.code)
                ? .folderChanged(archive: archive, entry: "Products/Applications", reason: "it was removed while the folder was read")
                : .unreadable(archive: archive, reason: "'Products/Applications' cannot be listed: \(error)")
        })
        let apps = names.filter { $0.hasSuffix(".app") && $0.count > 4 && isFolder(applications + "/" + $0, following: false) }
            .sorted()
        guard let first = apps.first else {
            throw .noApp(archive: archive, hint: "an Xcode archive keeps its app in Products/Applications/<Name>.app/")
        }
        guard apps.count == 1 else {
            throw .multipleApps(archive: archive, apps: apps.map { "Products/Applications/" + $0 })
        }
        return applications + "/" + first
    }

    /// The entries of one folder tree, walked without following symlinks. The folder may change
    /// while it is read: a name listed a moment ago that is gone (or no longer a folder, or no
    /// longer a symlink) when it is looked at is `ARCHIVE_FOLDER_CHANGED`, as at packing.
    struct Walk {
        let archive: String
        let limits: ArchiveLimits
        var clock: WorkClock
        let afterListing: ((String) -> Void)?
        var entries: [ArchiveEdits.Addition] = []
        var totalSize: UInt64 = 0
        var newestModification: Int64 = DOSTimestamp.earliest.secondsSince1970

        init(archive: String, limits: ArchiveLimits, afterListing: ((String) -> Void)? = nil) {
            self.archive = archive
            self.limits = limits
            self.clock = WorkClock(deadline: WorkClock.deadline(after: limits.maximumSeconds), seconds: limits.maximumSeconds, file: archive)
            self.afterListing = afterListing
        }

        /// Whether an `errno` met on a name the walk has seen means the folder changed under it:
        /// the name is gone (`ENOENT`), a folder on its path is now a file (`ENOTDIR`), or a
        /// symlink is now something else (`EINVAL` from `readlink`).
        static func seenChanging(_ code: Int32) -> Bool {
            code == ENOENT || code == ENOTDIR || code == EINVAL
        }

        /// The error for `errno` `code` on the walked entry `name`.
        func failure(_ code: Int32, on name: String, doing what: String) -> ArchiveError {
            Self.seenChanging(code)
                ? .folderChanged(archive: archive, entry: name, reason: "it was removed or replaced while the folder was read")
                : .unreadable(archive: archive, reason: "'\(name)' cannot be \(what): \(SystemError(code))")
        }

        /// Adds `folder` (on disk) and everything inside it as `name` (in the archive).
        mutating func add(folder: String, as name: String) throws(ArchiveError) {
            var pending: [(disk: String, name: String)] = [(folder, name)]
            var first = true
            while let (disk, name) = pending.popLast() {
                var info = stat()
                // The folder given is followed if it is a symlink; nothing inside it is.
                guard (first ? FileSystem.stat(disk, &info) : FileSystem.lstat(disk, &info)) == 0 else {
                    throw failure(errno, on: name, doing: "read")
                }
                first = false
                try clock.tick(1 + name.utf8.count)
                if let reason = EntryName.unsafeReason(of: Array(name.utf8)[...]) {
                    throw .unsafeName(archive: archive, entry: name, reason: reason)
                }
                let permissions = UInt16(truncatingIfNeeded: info.st_mode & 0o7777)
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    try count()
                    entries.append(ArchiveEdits.Addition(name: name + "/", content: .directory, permissions: permissions))
                    let children = try FileSystem.names(
                        inFolder: disk, unreadable: { [self] error in failure(error.code, on: name, doing: "listed") })
                    afterListing?(disk)
                    for child in children.sorted().reversed() {
                        // Refused here, before anything is read, with the name as the user can find it.
                        guard PathEncoding.isUTF8(child) else {
                            throw .unsafeName(archive: archive, entry: name + "/" + child, reason: AppFolder.notUTF8)
                        }
                        pending.append((disk + "/" + child, name + "/" + child))
                    }
                case S_IFREG:
                    try count()
                    let size = UInt64(info.st_size)
                    let (sum, overflow) = totalSize.addingReportingOverflow(size)
                    totalSize = overflow ? .max : sum
                    guard totalSize <= limits.maximumTotalUncompressedSize else {
                        throw .totalSizeLimit(archive: archive, total: totalSize, limit: limits.maximumTotalUncompressedSize)
                    }
                    newestModification = max(newestModification, Int64(info.st_mtim.tv_sec))
                    var addition = ArchiveEdits.Addition(name: name, content: .file(path: disk), permissions: permissions)
                    addition.walked = WalkedFile(folder: archive, entry: name, info: info)
                    entries.append(addition)
                case S_IFLNK:
                    try count()
                    let target: String
                    do {
                        target = try FileSystem.symlinkTarget(disk, limit: Int(ZipArchive.maximumSymlinkTarget))
                    } catch where Self.seenChanging(error.code) {
                        throw .folderChanged(archive: archive, entry: name, reason: "it is no longer the symlink the walk saw")
                    } catch {
                        throw .symlinkInvalid(archive: archive, entry: name, reason: "its target cannot be read or is too long (\(error))")
                    }
                    guard !target.isEmpty else {
                        throw .symlinkInvalid(archive: archive, entry: name, reason: "its target is empty")
                    }
                    entries.append(ArchiveEdits.Addition(name: name, content: .symlink(target: target), permissions: permissions))
                default:
                    throw .specialFile(archive: archive, entry: name, kind: FileByteSource.kind(of: info.st_mode))
                }
            }
        }

        private mutating func count() throws(ArchiveError) {
            // Payload/ is the one entry not walked.
            guard entries.count + 2 <= limits.maximumEntries else {
                throw .tooManyEntries(archive: archive, count: UInt64(entries.count + 2), limit: limits.maximumEntries)
            }
        }
    }

    private static func isFolder(_ path: String, following: Bool) -> Bool {
        FileSystem.kind(of: path, following: following) == S_IFDIR
    }

    private static func trimmingSlashes(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
