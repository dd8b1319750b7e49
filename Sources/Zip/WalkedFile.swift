import FormatSupport
import Foundation

/// A regular file as the walk of an app folder saw it (by `lstat`). Packing opens it once,
/// without following a symlink in its last component or blocking on a FIFO, and reads it only
/// through that descriptor and only if it is still this file (device, inode, size): one swapped
/// after the walk (for a symlink to `/etc/shadow`, a FIFO, another file) is refused, never read.
/// A parent folder swapped for a symlink is followed by `open` (the last component alone is
/// `O_NOFOLLOW`), so such a file is opened, then refused by the identity check, still unread.
package struct WalkedFile: Sendable, Equatable {
    /// The folder given, and the entry's name in the archive, for messages.
    var folder: String
    var entry: String
    var device: UInt64
    var inode: UInt64
    var size: UInt64

    package init(folder: String, entry: String, info: stat) {
        self.folder = folder
        self.entry = entry
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = UInt64(info.st_size)
    }

    /// Bytes of this file through the descriptor `open` gave. A read cut short because the file
    /// changed size after it was opened is the same change as one seen at the open
    /// (`ArchiveError.folderChanged`, exit 65); a read error of an unchanged file stays an I/O error.
    func read(_ file: FileByteSource, offset: UInt64, count: Int) throws -> [UInt8] {
        do {
            return try file.read(offset: offset, count: count)
        } catch {
            var info = stat()
            if fstat(file.descriptor, &info) == 0, UInt64(info.st_size) != size {
                throw ArchiveError.folderChanged(archive: folder, entry: entry, reason: "its size changed while it was read")
            }
            throw error
        }
    }

    /// The file at `path`, open for reading, if it is still the file the walk saw.
    /// - Throws: `ArchiveError.folderChanged` when it is not (exit 65), `.unreadable` when it
    ///   cannot be opened (74).
    func open(_ path: String) throws(ArchiveError) -> FileByteSource {
        let descriptor = FileSystem.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ELOOP: throw .folderChanged(archive: folder, entry: entry, reason: "it is now a symlink")
            case ENOENT: throw .folderChanged(archive: folder, entry: entry, reason: "it was removed")
            case ENOTDIR: throw .folderChanged(archive: folder, entry: entry, reason: "a folder above it is now a file")
            default: throw .unreadable(archive: folder, reason: "'\(entry)' cannot be read: \(String(cString: strerror(code)))")
            }
        }
        var info = stat()
        let reason: String? =
            if fstat(descriptor, &info) != 0 {
                "it cannot be looked at: \(String(cString: strerror(errno)))"
            } else if info.st_mode & S_IFMT != S_IFREG {
                "it is now \(FileByteSource.kind(of: info.st_mode))"
            } else if UInt64(info.st_dev) != device || UInt64(info.st_ino) != inode {
                "it is now another file"
            } else if UInt64(info.st_size) != size {
                "it was \(size) bytes and is now \(info.st_size)"
            } else {
                nil
            }
        if let reason {
            close(descriptor)
            throw .folderChanged(archive: folder, entry: entry, reason: reason)
        }
        return FileByteSource(adopting: descriptor, path: path, size: size)
    }
}
