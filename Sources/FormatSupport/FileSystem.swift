#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls that take a path, each given the path's bytes (`PathEncoding`): every path
/// ipawrap opens, looks at, lists, renames or removes goes through here, so a name that is not
/// UTF-8 reaches the kernel as the bytes the user gave (`ArchitectureTests` fails on a path call
/// made any other way). Each returns what the C call returns and leaves `errno` as it set it.
public enum FileSystem {
    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        PathEncoding.withCString(path) { Glibc.open($0, flags, mode) }
    }

    /// `stat(2)`: follows a symlink.
    public static func stat(_ path: String, _ info: inout Glibc.stat) -> Int32 {
        PathEncoding.withCString(path) { statFollowing($0, &info) }
    }

    /// `lstat(2)`: a symlink itself.
    public static func lstat(_ path: String, _ info: inout Glibc.stat) -> Int32 {
        PathEncoding.withCString(path) { statNotFollowing($0, &info) }
    }

    public static func access(_ path: String, _ mode: Int32) -> Int32 {
        PathEncoding.withCString(path) { Glibc.access($0, mode) }
    }

    public static func rename(_ source: String, _ destination: String) -> Int32 {
        PathEncoding.withCString(source) { from in PathEncoding.withCString(destination) { Glibc.rename(from, $0) } }
    }

    public static func unlink(_ path: String) -> Int32 {
        PathEncoding.withCString(path) { Glibc.unlink($0) }
    }

    public static func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
        PathEncoding.withCString(path) { Glibc.mkdir($0, mode) }
    }

    public static func opendir(_ path: String) -> OpaquePointer? {
        PathEncoding.withCString(path) { Glibc.opendir($0) }
    }

    /// The kind of what is at `path` (`S_IFREG`, `S_IFDIR`…), following symlinks or not, or nil
    /// when nothing can be looked at there.
    public static func kind(of path: String, following: Bool) -> mode_t? {
        var info = Glibc.stat()
        let status = following ? stat(path, &info) : lstat(path, &info)
        return status == 0 ? info.st_mode & S_IFMT : nil
    }

    /// Whether `path` is a folder (following a symlink).
    public static func isFolder(_ path: String) -> Bool {
        kind(of: path, following: true) == S_IFDIR
    }

    /// Whether `path` is a regular file (following a symlink).
    public static func isRegularFile(_ path: String) -> Bool {
        kind(of: path, following: true) == S_IFREG
    }

    /// The absolute path with every symlink resolved (`realpath(3)`), or nil.
    public static func realpath(_ path: String) -> String? {
        PathEncoding.withCString(path) { pointer -> String? in
            guard let resolved = Glibc.realpath(pointer, nil) else { return nil }
            defer { free(resolved) }
            return PathEncoding.string(cString: resolved)
        }
    }

    /// A symlink's target (`readlink(2)`) of at most `limit` bytes; a longer one is
    /// `ENAMETOOLONG`.
    public static func symlinkTarget(_ path: String, limit: Int = Int(PATH_MAX)) throws(SystemError) -> String {
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        let count = PathEncoding.withCString(path) { pointer in
            buffer.withUnsafeMutableBytes { raw in
                raw.baseAddress.map { Glibc.readlink(pointer, $0.assumingMemoryBound(to: CChar.self), raw.count) } ?? -1
            }
        }
        guard count >= 0 else { throw SystemError(errno) }
        guard count <= limit else { throw SystemError(ENAMETOOLONG) }
        return PathEncoding.string(buffer.prefix(count))
    }

    /// The names in the folder `path` (without `.` and `..`), in the order the folder lists them,
    /// each carried losslessly. `each` sees every name as it is read, so a caller can bound a
    /// folder of millions of entries while it is listed; a folder that cannot be opened or read
    /// is `unreadable`'s error.
    public static func names<Failure: Error>(
        inFolder path: String, unreadable: (SystemError) -> Failure, each: (String) throws(Failure) -> Void = { _ in }
    ) throws(Failure) -> [String] {
        guard let directory = opendir(path) else { throw unreadable(SystemError(errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                guard errno == 0 else { throw unreadable(SystemError(errno)) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in PathEncoding.string(raw.prefix { $0 != 0 }) }
            if name == "." || name == ".." { continue }
            try each(name)
            names.append(name)
        }
    }

    /// Creates `path` and any missing folder above it (`mkdir -p`); a folder already there is fine.
    public static func createFolders(_ path: String, mode: mode_t = 0o777) throws(SystemError) {
        if isFolder(path) { return }
        if let parent = parentFolder(of: path), !isFolder(parent) {
            try createFolders(parent, mode: mode)
        }
        guard mkdir(path, mode) == 0 || (errno == EEXIST && isFolder(path)) else { throw SystemError(errno) }
    }

    /// The folder that holds `path`'s last component: nil for a bare name and for `/`.
    public static func parentFolder(of path: String) -> String? {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return nil }
        if slash == trimmed.startIndex { return trimmed.count > 1 ? "/" : nil }
        return String(trimmed[..<slash])
    }
}

// `stat` inside `FileSystem` names its own method, and `Glibc.stat` the structure: these reach
// the C functions.
private func statFollowing(_ path: UnsafePointer<CChar>, _ info: inout stat) -> Int32 { stat(path, &info) }
private func statNotFollowing(_ path: UnsafePointer<CChar>, _ info: inout stat) -> Int32 { lstat(path, &info) }

/// An `errno` value, with its text.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) {
        self.code = code
    }

    /// `strerror`'s sentence: "No such file or directory".
    public var description: String { String(cString: strerror(code)) }
}
