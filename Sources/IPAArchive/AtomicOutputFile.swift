import CSystemShims
import FormatSupport
#if canImport(Glibc)
import Glibc
#endif

/// Failure to write an output (exit 74).
public struct OutputError: CodedError, Equatable {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    public var code: String { "OUTPUT_WRITE_FAILED" }
    public var category: ErrorCategory { .io }
    public var description: String { "cannot write \(path): \(reason)" }
}

/// An output file that appears at its destination complete or not at all.
///
/// It is written as an unnamed file (`O_TMPFILE`) in the destination's folder, so a failure,
/// a full disk or a `SIGKILL` leaves nothing behind; `commit()` links it into place (replacing any
/// existing file with an atomic rename). On file systems without `O_TMPFILE` a hidden named file
/// is used instead and removed on failure.
public final class AtomicOutputFile {
    public let destination: String
    public let descriptor: Int32
    private let directory: String
    /// The hidden name, when `O_TMPFILE` was not available.
    private var temporaryPath: String?
    private var finished = false

    public init(destination: String) throws(OutputError) {
        self.destination = destination
        let slash = destination.lastIndex(of: "/")
        let directory = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        self.directory = directory
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw OutputError(path: destination, reason: "its folder \(directory) does not exist")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError(path: destination, reason: "\(directory) is not a folder")
        }
        if stat(destination, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw OutputError(path: destination, reason: "it is a folder")
        }
        // 0666 so the user's umask decides, as for any file a tool creates.
        let unnamed = ipawrap_open_unnamed_file(directory, 0o666)
        if unnamed >= 0 {
            self.descriptor = unnamed
            return
        }
        let unnamedError = errno
        guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(unnamedError) else {
            throw OutputError(path: destination, errno: unnamedError)
        }
        let hidden = Self.hiddenName(for: destination, in: directory)
        let named = open(hidden, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard named >= 0 else { throw OutputError(path: destination, errno: errno) }
        self.descriptor = named
        self.temporaryPath = hidden
    }

    deinit {
        if !finished { discard() }
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: [UInt8], at offset: UInt64) throws(OutputError) {
        let failure: OutputError? = bytes.withUnsafeBytes { buffer in
            do throws(OutputError) {
                try write(buffer, at: offset)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes all of `buffer` at `offset`.
    public func write(_ buffer: UnsafeRawBufferPointer, at offset: UInt64) throws(OutputError) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let written = pwrite(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputError(path: destination, errno: errno)
            }
            done += written
        }
    }

    /// A path through which the unfinished file can be opened for reading (to verify it).
    public var readablePath: String {
        temporaryPath ?? "/proc/self/fd/\(descriptor)"
    }

    /// Cuts the file to `length` bytes (an entry stored after a failed deflate may have left bytes
    /// beyond the end).
    public func setLength(_ length: UInt64) throws(OutputError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw OutputError(path: destination, errno: errno)
        }
    }

    /// Sets the final length and publishes the file at `destination`.
    ///
    /// - Parameter synchronize: also flush the data and the folder entry to disk (`fsync`), for
    ///   durability across a power loss. Atomicity does not need it: until this call the file has
    ///   no name, so a failed or killed process never leaves a partial file either way.
    public func commit(length: UInt64, synchronize: Bool) throws(OutputError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw OutputError(path: destination, errno: errno)
        }
        if synchronize, fsync(descriptor) != 0 {
            throw OutputError(path: destination, errno: errno)
        }
        if let temporaryPath {
            guard rename(temporaryPath, destination) == 0 else { throw OutputError(path: destination, errno: errno) }
            self.temporaryPath = nil
        } else if ipawrap_link_unnamed_file(descriptor, destination) != 0 {
            // The destination exists: link under a hidden name, then replace it atomically.
            guard errno == EEXIST else { throw OutputError(path: destination, errno: errno) }
            let hidden = Self.hiddenName(for: destination, in: directory)
            guard ipawrap_link_unnamed_file(descriptor, hidden) == 0 else {
                throw OutputError(path: destination, errno: errno)
            }
            guard rename(hidden, destination) == 0 else {
                let code = errno
                unlink(hidden)
                throw OutputError(path: destination, errno: code)
            }
        }
        finished = true
        close(descriptor)
        if synchronize {
            let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }
    }

    /// Abandons the output: nothing is left behind.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if let temporaryPath { unlink(temporaryPath) }
    }

    private static func hiddenName(for destination: String, in directory: String) -> String {
        let base = destination.split(separator: "/").last.map(String.init) ?? "output"
        return "\(directory)/.\(base).ipawrap-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }
}
