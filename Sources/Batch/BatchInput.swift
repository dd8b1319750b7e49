import FormatSupport
import Foundation

/// One IPA of a batch.
public struct BatchInput: Sendable, Hashable, CustomStringConvertible {
    /// The path the IPA is opened at: a file argument as given, or a folder argument joined with
    /// the path found below it.
    public let path: String
    /// The input's name within the batch: its path relative to the folder argument it was found
    /// in (`team/App.ipa`), or the file name of a file named directly (`App.ipa`). Outputs in
    /// `--out-dir` are named after it and `--shard` assigns by it, so neither depends on where
    /// the inputs are checked out.
    public let name: String
    /// Its place among all the inputs the batch found (0-based, before `--shard` chose some):
    /// results follow this order, and `batch report` puts shards back together by it.
    public let index: Int

    public init(path: String, name: String, index: Int = 0) {
        self.path = path
        self.name = name
        self.index = index
    }

    public var description: String { path }

    /// `name` without a final `.ipa` (any case), for naming outputs of another kind.
    public var stem: String {
        name.lowercased().hasSuffix(".ipa") ? String(name.dropLast(4)) : name
    }
}

/// Finds the inputs of a batch: files as given, folders searched (recursively) for `.ipa` files,
/// and lists of paths (`--from`).
public enum InputDiscovery {
    /// Folders are searched at most this deep (a guard against pathological trees; symlinked
    /// folders are never followed, so there are no loops).
    public static let maximumDepth = 32
    /// A list file (`--from`) larger than this is refused.
    public static let maximumListSize = 64 << 20
    /// Folder entries (files, folders, anything) looked at in all the folder arguments together;
    /// more is `BATCH_FOLDER_TOO_LARGE`, before any input is processed.
    public static let maximumEntries = 1_000_000

    /// The inputs of `arguments`, in order: each file argument as one input (whatever its name, or
    /// even if it does not exist, so that it fails on its own like any other bad input), each
    /// folder's `.ipa` files in byte order of their relative paths. Hidden files and folders
    /// (starting with `.`), and `excluding` (e.g. the output folder), are skipped. The same file
    /// reached twice (also through a symlink) is kept once, where it first appeared.
    ///
    /// The search as a whole stops at `clock`'s deadline (`BATCH_FOLDER_TIME_LIMIT`, checked every
    /// few hundred entries) and after `maximumEntries` entries (`BATCH_FOLDER_TOO_LARGE`).
    public static func inputs(
        _ arguments: [String], excluding excluded: [String] = [], clock: WorkClock = .unlimited,
        maximumEntries: Int = maximumEntries
    ) throws(BatchInputError) -> [BatchInput] {
        var search = FolderSearch(clock: clock, maximumEntries: maximumEntries)
        let excludedFolders = Set(excluded.compactMap(canonicalPath))
        var found: [BatchInput] = []
        var seen: Set<String> = []
        func add(path: String, name: String) {
            let identity = canonicalPath(path) ?? path
            if seen.insert(identity).inserted { found.append(BatchInput(path: path, name: name, index: found.count)) }
        }
        for argument in arguments {
            if isFolder(argument) {
                for relative in try ipaFiles(in: argument, excluding: excludedFolders, search: &search) {
                    add(path: join(argument, relative), name: relative)
                    try search.tick(argument)
                }
            } else {
                let name = argument.split(separator: "/").last.map(String.init) ?? argument
                add(path: argument, name: name)
                try search.tick(argument)
            }
        }
        return found
    }

    /// The paths of a list file: one per line; blank lines and lines starting with `#` are
    /// ignored, surrounding white space (and a CR from CRLF files) is dropped. A line's bytes
    /// are a path's (`PathEncoding`): a name that is not UTF-8 still names its file.
    public static func paths(inList bytes: [UInt8]) -> [String] {
        PathEncoding.string(bytes).split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .compactMap { line in
                let path = line.trimmingCharacters(in: .whitespacesAndNewlines)
                return path.isEmpty || path.hasPrefix("#") ? nil : path
            }
    }

    /// Reads a list file and returns its paths. The list is an input like any other: a regular
    /// file, opened without blocking, so a FIFO (which could wait forever for a writer) or a
    /// device is refused before any read. A list from a pipe is `-`: standard input, read up to
    /// `maximumListSize`.
    public static func paths(inListFile file: String) throws(BatchInputError) -> [String] {
        let bytes: [UInt8]
        if file == "-" {
            let data: Data?
            do {
                data = try FileHandle.standardInput.read(upToCount: maximumListSize + 1)
            } catch {
                throw .listUnreadable("standard input", reason: reason(error))
            }
            bytes = [UInt8](data ?? Data())
            guard bytes.count <= maximumListSize else {
                throw .listUnreadable("standard input", reason: "it is larger than \(maximumListSize >> 20) MiB")
            }
        } else {
            let contents: [UInt8]?
            do {
                contents = try FileByteSource.contents(ofFile: file, limit: maximumListSize)
            } catch {
                let pipe = FileSystem.kind(of: file, following: true) == S_IFIFO ? "; to read the list from a pipe, give --from -" : ""
                throw .listUnreadable(file, reason: error.detail + pipe)
            }
            guard let contents else {
                throw .listUnreadable(file, reason: "it is larger than \(maximumListSize >> 20) MiB")
            }
            bytes = contents
        }
        // No path holds a NUL byte (a C path would end there and name another file).
        guard !bytes.contains(0) else {
            throw .listUnreadable(file == "-" ? "standard input" : file, reason: "it holds a NUL byte: it is not a list of paths")
        }
        return paths(inList: bytes)
    }

    /// What the search of the folder arguments has used so far, against its bounds.
    struct FolderSearch {
        var clock: WorkClock
        let maximumEntries: Int
        var entries = 0

        /// Counts one entry listed below `folder` (one folder argument).
        mutating func count(_ folder: String) throws(BatchInputError) {
            entries += 1
            guard entries <= maximumEntries else { throw .folderTooLarge(folder, limit: maximumEntries) }
            try tick(folder)
        }

        /// One step of work on an entry (a system call or two): the clock is read every 256.
        mutating func tick(_ folder: String) throws(BatchInputError) {
            if clock.isExpired(after: 64) { throw .folderTimeLimit(folder, seconds: clock.seconds) }
        }
    }

    /// Relative paths of the `.ipa` files below `folder`, in byte order, depth first.
    static func ipaFiles(
        in folder: String, excluding excluded: Set<String>, search: inout FolderSearch
    ) throws(BatchInputError) -> [String] {
        var result: [String] = []
        var pending: [(relative: String, depth: Int)] = [("", 0)]
        while let (relative, depth) = pending.popLast() {
            let absolute = relative.isEmpty ? folder : join(folder, relative)
            let names = try entryNames(of: absolute, below: folder, search: &search)
            var subfolders: [String] = []
            for name in names.sorted(by: { $0.precedesInUTF8Order($1) }) where !name.hasPrefix(".") {
                try search.tick(folder)
                let child = relative.isEmpty ? name : relative + "/" + name
                let path = join(folder, child)
                var info = stat()
                guard FileSystem.lstat(path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    if depth + 1 < maximumDepth, !excluded.contains(canonicalPath(path) ?? path) {
                        subfolders.append(child)
                    }
                case S_IFREG, S_IFLNK:
                    // A symlink counts when it leads to a regular file (never to a folder).
                    if name.lowercased().hasSuffix(".ipa"), FileSystem.stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                        result.append(child)
                    }
                default:
                    continue
                }
            }
            // Depth first, in order: the stack takes the last pushed first.
            pending.append(contentsOf: subfolders.reversed().map { ($0, depth + 1) })
        }
        return result.sorted { $0.precedesInUTF8Order($1) }
    }

    /// The names in the folder `path` (without `.` and `..`), read one by one so that a folder of
    /// millions of entries meets the search's bounds while it is listed.
    static func entryNames(of path: String, below folder: String, search: inout FolderSearch) throws(BatchInputError) -> [String] {
        try FileSystem.names(
            inFolder: path, unreadable: { .folderUnreadable(path, reason: $0.description) },
            each: { _ throws(BatchInputError) in try search.count(folder) })
    }

    /// Whether `path` is a folder (or a symlink to one).
    public static func isFolder(_ path: String) -> Bool {
        FileSystem.isFolder(path)
    }

    static func canonicalPath(_ path: String) -> String? {
        FileSystem.realpath(path)
    }

    public static func join(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    static func reason(_ error: Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
           underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }
}
