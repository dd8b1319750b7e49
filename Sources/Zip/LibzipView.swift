import CLibzip
import FormatSupport
#if canImport(Glibc)
import Glibc
#endif

/// libzip, the second parser, opened on a virtual file made of ranges of the real one plus a few
/// bytes of our own: the archive's bytes before its central directory (where every local header
/// and all data are, at their real offsets), some of its central-directory records exactly as
/// stored, and an end record that declares just those records.
///
/// libzip reads its whole central directory into an index of about 350 bytes an entry when it
/// opens an archive (35 MB at 100,000 entries, more than everything else together). Viewed a
/// window of records at a time, it parses every record of the real directory with its own code,
/// in bounded memory; viewed one record at a time, it reads an entry's data (local header,
/// inflate, CRC) exactly as when it opened the whole archive.
final class LibzipView {
    let handle: OpaquePointer

    /// Opens libzip on the archive's bytes before `directoryOffset` followed by the raw records
    /// `records` (a byte range of the file, `count` records) and an end record for them.
    convenience init(
        file: FileByteSource, directoryOffset: UInt64, records: Range<UInt64>, count: Int, archive: String
    ) throws(ArchiveError) {
        let end = ZipRecordWriter.endRecords(
            entryCount: UInt64(count), directoryOffset: directoryOffset,
            directorySize: UInt64(records.count), comment: [])
        try self.init(file: file, parts: [
            .file(offset: 0, length: directoryOffset),
            .file(offset: records.lowerBound, length: UInt64(records.count)),
            .bytes(end),
        ], archive: archive)
    }

    /// Opens libzip on the whole file, as it is.
    convenience init(wholeFile file: FileByteSource, archive: String) throws(ArchiveError) {
        try self.init(file: file, parts: [.file(offset: 0, length: file.size)], archive: archive)
    }

    private init(file: FileByteSource, parts: [VirtualFile.Part], archive: String) throws(ArchiveError) {
        let virtual = VirtualFile(descriptor: file.descriptor, parts: parts)
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        let retained = Unmanaged.passRetained(virtual)
        guard let source = zip_source_function_create(virtualFileCallback, retained.toOpaque(), &error) else {
            retained.release()
            throw .corrupt(archive: archive, reason: "libzip cannot open it: \(String(cString: zip_error_strerror(&error)))")
        }
        // From here the source owns the virtual file (released on ZIP_SOURCE_FREE).
        guard let handle = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            throw .corrupt(archive: archive, reason: "libzip cannot open it: \(String(cString: zip_error_strerror(&error)))")
        }
        self.handle = handle
    }

    deinit {
        zip_discard(handle)
    }

    var entryCount: Int64 { zip_get_num_entries(handle, 0) }

    /// The raw name of entry `index` as libzip reads it.
    func rawName(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let raw = zip_get_name(handle, UInt64(index), ZIP_FL_ENC_RAW) else { return nil }
        // libzip hands back a NUL-terminated copy; names with NUL bytes were refused earlier.
        let length = strlen(raw)
        return UnsafeRawPointer(raw).withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
            UnsafeBufferPointer(start: bytes, count: length)
        }
    }

    var errorMessage: String { String(cString: zip_error_strerror(zip_get_error(handle))) }
}

/// The bytes libzip reads: parts of the real file and bytes in memory, one after another.
final class VirtualFile {
    enum Part {
        case file(offset: UInt64, length: UInt64)
        case bytes([UInt8])

        var length: UInt64 {
            switch self {
            case .file(_, let length): length
            case .bytes(let bytes): UInt64(bytes.count)
            }
        }
    }

    let descriptor: Int32
    let parts: [Part]
    /// Where each part starts in the virtual file.
    let starts: [UInt64]
    let size: UInt64
    var position: UInt64 = 0
    var error = zip_error_t()

    init(descriptor: Int32, parts: [Part]) {
        self.descriptor = descriptor
        self.parts = parts
        var starts: [UInt64] = []
        var size: UInt64 = 0
        for part in parts {
            starts.append(size)
            size += part.length
        }
        self.starts = starts
        self.size = size
        zip_error_init(&error)
    }

    deinit {
        zip_error_fini(&error)
    }

    /// Answers one libzip source command.
    func handle(_ command: zip_source_cmd_t, data: UnsafeMutableRawPointer?, length: UInt64) -> Int64 {
        switch command {
        case ZIP_SOURCE_OPEN:
            position = 0
            return 0
        case ZIP_SOURCE_CLOSE:
            return 0
        case ZIP_SOURCE_READ:
            guard let data else { return fail(ZIP_ER_INVAL) }
            return read(into: data, count: length)
        case ZIP_SOURCE_STAT:
            guard let data, length >= UInt64(MemoryLayout<zip_stat_t>.size) else { return fail(ZIP_ER_INVAL) }
            let stat = data.assumingMemoryBound(to: zip_stat_t.self)
            zip_stat_init(stat)
            stat.pointee.size = size
            stat.pointee.valid |= UInt64(ZIP_STAT_SIZE)
            return Int64(MemoryLayout<zip_stat_t>.size)
        case ZIP_SOURCE_ERROR:
            guard let data else { return -1 }
            return zip_error_to_data(&error, data, length)
        case ZIP_SOURCE_SEEK:
            guard let data else { return fail(ZIP_ER_INVAL) }
            let target = zip_source_seek_compute_offset(position, size, data, length, &error)
            guard target >= 0 else { return -1 }
            position = UInt64(target)
            return 0
        case ZIP_SOURCE_TELL:
            return Int64(position)
        case ZIP_SOURCE_SUPPORTS:
            let commands = [
                ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
                ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS,
            ]
            return commands.reduce(Int64(0)) { $0 | Int64(1) << Int64($1.rawValue) }
        case ZIP_SOURCE_FREE:
            return 0
        default:
            return fail(ZIP_ER_OPNOTSUPP)
        }
    }

    private func fail(_ code: Int32) -> Int64 {
        zip_error_set(&error, code, 0)
        return -1
    }

    /// File bytes read ahead, and the file offset of the first.
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    static let readAhead: UInt64 = 64 << 10

    /// Reads exactly `count` bytes of the file at `offset`.
    private func read(into destination: UnsafeMutableRawPointer, count: Int, at offset: UInt64) -> Bool {
        var filled = 0
        while filled < count {
            let got = pread(descriptor, destination + filled, count - filled, off_t(offset) + off_t(filled))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                zip_error_set(&error, ZIP_ER_READ, got < 0 ? errno : 0)
                return false
            }
            filled += got
        }
        return true
    }

    /// Copies up to `count` bytes from the position; 0 at the end.
    private func read(into data: UnsafeMutableRawPointer, count: UInt64) -> Int64 {
        var done: UInt64 = 0
        while done < count, position < size {
            // The part holding the position: the last one starting at or before it.
            var part = parts.count - 1
            while starts[part] > position { part -= 1 }
            let within = position - starts[part]
            let wanted = min(count - done, parts[part].length - within)
            switch parts[part] {
            case .bytes(let bytes):
                bytes.withUnsafeBytes { source in
                    guard let base = source.baseAddress else { return }
                    (data + Int(done)).copyMemory(from: base + Int(within), byteCount: Int(wanted))
                }
            case .file(let offset, let length):
                let fileOffset = offset + within
                if wanted >= Self.readAhead {
                    guard read(into: data + Int(done), count: Int(wanted), at: fileOffset) else { return -1 }
                } else {
                    // libzip reads a record's header and then its name: small reads, served from
                    // a window read ahead (within the part).
                    if fileOffset < windowStart || fileOffset + wanted > windowStart + UInt64(window.count) {
                        window = [UInt8](repeating: 0, count: Int(min(Self.readAhead, length - within)))
                        windowStart = fileOffset
                        let filled = window.withUnsafeMutableBytes { buffer in
                            buffer.baseAddress.map { read(into: $0, count: buffer.count, at: fileOffset) } ?? false
                        }
                        guard filled else {
                            window = []
                            return -1
                        }
                    }
                    let start = Int(fileOffset - windowStart)
                    window.withUnsafeBytes { source in
                        guard let base = source.baseAddress else { return }
                        (data + Int(done)).copyMemory(from: base + start, byteCount: Int(wanted))
                    }
                }
            }
            done += wanted
            position += wanted
        }
        return Int64(done)
    }
}

/// The C callback libzip calls for every source command; `userdata` is the retained `VirtualFile`.
private let virtualFileCallback: zip_source_callback = { userdata, data, length, command in
    guard let userdata else { return -1 }
    let unmanaged = Unmanaged<VirtualFile>.fromOpaque(userdata)
    if command == ZIP_SOURCE_FREE {
        unmanaged.release()
        return 0
    }
    return unmanaged.takeUnretainedValue().handle(command, data: data, length: length)
}
