import CSystemShims
import FormatSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ProcessInfo {
    /// `$TMPDIR`, else `/tmp`: where outputs bound for a device or FIFO are staged.
    static var temporaryFolder: String {
        if let folder = processInfo.environment["TMPDIR"], !folder.isEmpty { return folder }
        return "/tmp"
    }
}

/// Failure to write an output (exit 74).
public struct OutputError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason {
        case outputWriteFailed = "OUTPUT_WRITE_FAILED"

        public var category: ErrorCategory { .io }
    }

    public let path: String
    /// Why, in the operating system's words (`strerror`) or ours.
    public let detail: String

    public init(path: String, reason: String) {
        self.path = path
        self.detail = reason
    }

    package init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    /// One code: the path and `detail` say the rest.
    public var reason: Reason { .outputWriteFailed }
    public var description: String { "\(path): cannot be written: \(detail)" }
}

/// An output file that appears at its destination complete or not at all.
///
/// It is written as an unnamed file (`O_TMPFILE`) in the destination's folder, so a failure,
/// a full disk or a `SIGKILL` leaves nothing behind; `commit()` links it into place (replacing any
/// existing file with an atomic rename). On file systems without `O_TMPFILE` a hidden named file
/// is used instead and removed on failure.
///
/// A destination that exists and is not a regular file (`/dev/null`, `/dev/full`, a FIFO) is
/// never replaced: the output is built in an unnamed file in the temporary folder (it may be read
/// back to verify it) and `commit()` writes it into the destination in order; a write error there
/// (ENOSPC on `/dev/full`) names the destination.
public final class AtomicOutputFile {
    public let destination: String
    public let descriptor: Int32
    private let directory: String
    /// The hidden name, when `O_TMPFILE` was not available.
    private var temporaryPath: String?
    /// The opened destination when it is a device, FIFO or socket rather than a regular file.
    private var specialDestination: Int32?
    private var finished = false

    public init(destination: String) throws(OutputError) {
        self.destination = destination
        var info = stat()
        if FileSystem.stat(destination, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            guard (info.st_mode & S_IFMT) != S_IFDIR else {
                throw OutputError(path: destination, reason: "it is a folder")
            }
            let special = try Self.openSpecial(destination)
            self.specialDestination = special
            let temporary = ProcessInfo.temporaryFolder
            self.directory = temporary
            let staged: (Int32, String?)
            do throws(OutputError) {
                staged = try Self.openUnnamed(in: temporary, for: destination)
            } catch {
                close(special)
                throw error
            }
            self.descriptor = staged.0
            self.temporaryPath = staged.1
            return
        }
        let directory = Self.folder(of: destination)
        self.directory = directory
        guard FileSystem.stat(directory, &info) == 0 else {
            throw OutputError(path: destination, reason: "its folder \(directory) does not exist")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError(path: destination, reason: "\(directory) is not a folder")
        }
        let staged = try Self.openUnnamed(in: directory, for: destination)
        self.descriptor = staged.0
        self.temporaryPath = staged.1
    }

    /// How long a FIFO given as the output may go without a reader before the run fails. A reader
    /// started in the background just before ipawrap (`cat fifo > copy & ipawrap … -o fifo`) may
    /// open it a moment after ipawrap starts; a FIFO nobody reads must still never hang a pipeline.
    public static let fifoReaderWait: Duration = .seconds(2)

    /// Opens a device, FIFO or socket for writing. `O_NONBLOCK` makes a FIFO without a reader an
    /// error (ENXIO) rather than a blocked open; that open is tried again every 10 ms until a
    /// reader comes or `fifoReaderWait` has passed.
    private static func openSpecial(_ destination: String) throws(OutputError) -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: fifoReaderWait)
        while true {
            let special = FileSystem.open(destination, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            if special >= 0 {
                _ = fcntl(special, F_SETFL, fcntl(special, F_GETFL) & ~O_NONBLOCK)
                return special
            }
            let code = errno
            if code == EINTR { continue }
            guard code == ENXIO else {
                throw OutputError(path: destination, reason: String(cString: strerror(code)))
            }
            guard clock.now < deadline else {
                throw OutputError(path: destination, reason: "no process opened it for reading within \(fifoReaderWait.components.seconds) seconds")
            }
            usleep(10_000)
        }
    }

    /// An unnamed file in `directory`, or a hidden named one (its path returned) where the file
    /// system has no `O_TMPFILE`.
    private static func openUnnamed(in directory: String, for destination: String) throws(OutputError) -> (Int32, String?) {
        // 0666 so the user's umask decides, as for any file a tool creates.
        let unnamed = PathEncoding.withCString(directory) { ipawrap_open_unnamed_file($0, 0o666) }
        if unnamed >= 0 { return (unnamed, nil) }
        let unnamedError = errno
        guard [EOPNOTSUPP, EISDIR, EINVAL, ENOENT].contains(unnamedError) else {
            throw OutputError(path: destination, errno: unnamedError)
        }
        let hidden = Self.hiddenName(for: destination, in: directory)
        let named = FileSystem.open(hidden, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard named >= 0 else { throw OutputError(path: destination, errno: errno) }
        return (named, hidden)
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

    /// Whether the unfinished file has no name (`O_TMPFILE`): nothing of it can outlive the
    /// process, even one killed before it cleans up.
    package var isUnnamed: Bool { temporaryPath == nil }

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
    ///   no name, so a failed or killed process never leaves a partial file either way. Without it,
    ///   a power loss soon after may leave the new name with data not yet written (the replaced
    ///   file is exchanged out, not renamed over, so ext4 does not start writing the new one first).
    public func commit(length: UInt64, synchronize: Bool) throws(OutputError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw OutputError(path: destination, errno: errno)
        }
        if synchronize, fsync(descriptor) != 0 {
            throw OutputError(path: destination, errno: errno)
        }
        if let specialDestination {
            try copyStaged(length: length, into: specialDestination)
            discard()
            return
        }
        if let temporaryPath {
            guard Self.move(temporaryPath, to: destination) == 0 else { throw OutputError(path: destination, errno: errno) }
            self.temporaryPath = nil
        } else if PathEncoding.withCString(destination, { ipawrap_link_unnamed_file(descriptor, $0) }) != 0 {
            // The destination exists: link under a hidden name, then replace it atomically.
            guard errno == EEXIST else { throw OutputError(path: destination, errno: errno) }
            let hidden = Self.hiddenName(for: destination, in: directory)
            guard PathEncoding.withCString(hidden, { ipawrap_link_unnamed_file(descriptor, $0) }) == 0 else {
                throw OutputError(path: destination, errno: errno)
            }
            guard Self.move(hidden, to: destination) == 0 else {
                let code = errno
                _ = FileSystem.unlink(hidden)
                throw OutputError(path: destination, errno: code)
            }
        }
        finished = true
        close(descriptor)
        if synchronize {
            let folder = FileSystem.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        }
    }

    /// Puts the file at `source` at `destination`, replacing what is there atomically, as
    /// rename(2) does; 0, or -1 with errno set. A regular file there is exchanged with `source`
    /// in one step (RENAME_EXCHANGE) and then unlinked: a rename over it would make ext4 write
    /// the new file's delayed blocks out before returning (`auto_da_alloc`, its guard for programs
    /// that replace files without fsync), a quarter of a second for a 426 MB output. Anything
    /// else, or a file system that cannot exchange, gets the rename.
    static func move(_ source: String, to destination: String) -> Int32 {
        guard FileSystem.kind(of: destination, following: false) == S_IFREG, exchange(source, destination) == 0 else {
            return FileSystem.rename(source, destination)
        }
        // The old file is at `source` now; were it something else by then (replaced between the
        // two calls), it is put back and the rename decides.
        guard FileSystem.unlink(source) == 0 else {
            _ = exchange(source, destination)
            return FileSystem.rename(source, destination)
        }
        return 0
    }

    /// Swaps what the two paths name, in one step (`renameat2` with `RENAME_EXCHANGE`); 0, or -1
    /// with errno set.
    private static func exchange(_ first: String, _ second: String) -> Int32 {
        PathEncoding.withCString(first) { first in PathEncoding.withCString(second) { ipawrap_exchange_paths(first, $0) } }
    }

    /// Abandons the output: nothing is left behind.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if let temporaryPath { _ = FileSystem.unlink(temporaryPath) }
        if let specialDestination { close(specialDestination) }
    }

    /// Writes the first `length` staged bytes, in order, into a device, FIFO or socket.
    private func copyStaged(length: UInt64, into target: Int32) throws(OutputError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while offset < length {
            let wanted = Int(min(UInt64(buffer.count), length - offset))
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw OutputError(path: destination, reason: "the staged output could not be read back") }
            var done = 0
            while done < read {
                let written = buffer.withUnsafeBytes { Glibc.write(target, $0.baseAddress.map { $0 + done }, read - done) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw OutputError(path: destination, errno: errno)
                }
                done += written
            }
            offset += UInt64(read)
        }
    }

    /// The folder `destination` is in.
    private static func folder(of destination: String) -> String {
        let slash = destination.lastIndex(of: "/")
        return slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
    }

    /// `.<name>.ipawrap-<pid>-`: how this process's hidden files for `destination` begin (a
    /// random number follows).
    private static func hiddenPrefix(for destination: String) -> String {
        let base = destination.split(separator: "/").last.map(String.init) ?? "output"
        return ".\(base).ipawrap-\(getpid())-"
    }

    private static func hiddenName(for destination: String, in directory: String) -> String {
        "\(directory)/" + hiddenPrefix(for: destination) + "\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Removes the hidden named files this process made for `destination` in its folder, for a
    /// process about to exit with outputs still being written (their writers never reach
    /// `discard()`). Unnamed files need nothing: they vanish with the process.
    public static func removeAbandonedFiles(for destination: String) {
        let folder = folder(of: destination)
        let prefix = hiddenPrefix(for: destination)
        let names = (try? FileSystem.names(inFolder: folder, unreadable: { $0 })) ?? []
        for name in names where name.hasPrefix(prefix) {
            _ = FileSystem.unlink(folder + "/" + name)
        }
    }
}
