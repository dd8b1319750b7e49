#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to a sized run of bytes that may not be in memory: a file on disk, an entry
/// inside a zip archive, or an array. Parsers that only need a few ranges of a large input
/// (Mach-O headers and signature, BOM blocks) read through this instead of loading everything.
public protocol ByteSource {
    /// Total size in bytes.
    var size: UInt64 { get }
    /// Exactly `count` bytes starting at `offset`; throws if the range is not inside `size`.
    mutating func read(offset: UInt64, count: Int) throws -> [UInt8]
}

extension ByteSource {
    /// Throws `OutOfBoundsError` unless `[offset, offset + count)` lies inside the source.
    public func checkRange(offset: UInt64, count: Int) throws(OutOfBoundsError) {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else {
            throw OutOfBoundsError(
                offset: Int(clamping: offset), length: count, size: Int(clamping: size))
        }
    }
}

/// A `ByteSource` over bytes already in memory.
public struct InMemoryByteSource: ByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var size: UInt64 { UInt64(bytes.count) }

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        let start = Int(offset)
        return Array(bytes[start..<(start + count)])
    }
}

/// Failure to open or read a file from disk (exit 74 at the command line).
public struct FileReadError: ReasonCodedError {
    public enum Reason: String, ErrorReason {
        case fileReadFailed = "FILE_READ_FAILED"

        public var category: ErrorCategory { .io }
    }

    public let path: String
    /// Why, in the operating system's words (`strerror`) or ours.
    public let detail: String

    public init(path: String, errno code: Int32) {
        self.path = path
        self.detail = String(cString: strerror(code))
    }

    public init(path: String, reason: String) {
        self.path = path
        self.detail = reason
    }

    /// One code: the path and `detail` say the rest.
    public var reason: Reason { .fileReadFailed }
    public var description: String { "\(path): cannot be read: \(detail)" }
}

/// A read-only `ByteSource` over a file, using `pread` so no state is shared between reads.
public final class FileByteSource: ByteSource {
    public let path: String
    public let size: UInt64
    /// The open, read-only descriptor, for in-kernel copies (`copy_file_range`) by writers.
    public let descriptor: Int32

    public convenience init(path: String) throws(FileReadError) {
        // O_NONBLOCK: opening a FIFO nobody writes to must not block; anything but a regular
        // file is refused below, before any read (O_NONBLOCK does not affect regular files).
        let fd = FileSystem.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw FileReadError(path: path, errno: errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileReadError(path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileReadError(path: path, reason: "it is \(Self.kind(of: info.st_mode)), not a regular file")
        }
        self.init(adopting: fd, path: path, size: UInt64(info.st_size))
    }

    /// Takes over `descriptor`, open for reading on a regular file of `size` bytes the caller
    /// has checked with `fstat` (it is closed with this source).
    public init(adopting descriptor: Int32, path: String, size: UInt64) {
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        close(descriptor)
    }

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        // Not cleared first: every byte is read into, or the read fails.
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                guard let base = buffer.baseAddress else { break }
                let got = pread(descriptor, base + done, count - done, off_t(offset) + off_t(done))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw FileReadError(path: path, errno: errno)
                }
                if got == 0 {
                    throw FileReadError(path: path, reason: "file shrank while being read")
                }
                done += got
                initialized = done
            }
        }
    }
}

extension FileByteSource {
    /// What a file that is not a regular one is, for messages.
    /// What a file of this `st_mode` is, in words ("a FIFO", "a folder").
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// The whole of a small input file (a policy), refusing anything but a regular file without
    /// blocking, and a file larger than `limit` bytes.
    public static func wholeFile(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
        guard let bytes = try contents(ofFile: path, limit: limit) else {
            throw FileReadError(path: path, reason: "it is larger than \(limit) bytes")
        }
        return bytes
    }

    /// The whole of a small file (a profile, an identity), or nil when it is larger than `limit`
    /// bytes: such files are read at once, and a larger one is not what it claims to be.
    public static func contents(ofFile path: String, limit: Int) throws(FileReadError) -> [UInt8]? {
        let source = try FileByteSource(path: path)
        guard source.size <= UInt64(limit) else { return nil }
        do {
            return try source.read(offset: 0, count: Int(source.size))
        } catch let error as FileReadError {
            throw error
        } catch {
            throw FileReadError(path: path, reason: "\(error)")
        }
    }
}
