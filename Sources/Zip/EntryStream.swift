import CLibzip
import CZlib
import Deflate
import FormatSupport

/// Sequential reading of one entry's uncompressed bytes, holding the reader to the size the
/// central directory declares: more data is a lie (`ARCHIVE_SIZE_MISMATCH`), and a wrong CRC or a
/// broken deflate stream is `ARCHIVE_DATA_ERROR`.
///
/// A deflated entry is inflated here with zlib from reads of the file, its CRC taken with
/// libdeflate (several times zlib's speed: a 60 MB executable read twice by `sign` spent 40 ms in
/// zlib's CRC alone); any other method goes through libzip.
final class EntryStream {
    /// The archive's path, for messages (not the archive: a stream parked in it must not keep it alive).
    private let archivePath: String
    let entry: ArchiveEntry
    private let decoder: Decoder
    private(set) var position: UInt64 = 0

    private enum Decoder {
        case inflater(Inflater)
        /// libzip opened on this entry alone (the view released after the file is closed).
        case libzip(view: LibzipView, file: OpaquePointer)
    }

    init(archive: ZipArchive, entry: ArchiveEntry) throws(ArchiveError) {
        self.archivePath = archive.path
        self.entry = entry
        if entry.method == 8, let inflater = Inflater(file: archive.file, entry: entry) {
            decoder = .inflater(inflater)
            return
        }
        let view = try archive.libzipView(of: entry)
        guard let file = zip_fopen_index(view.handle, 0, 0) else {
            throw .dataError(archive: archive.path, entry: "\(entry.name)", reason: view.errorMessage)
        }
        decoder = .libzip(view: view, file: file)
    }

    deinit {
        if case .libzip(_, let file) = decoder { zip_fclose(file) }
    }

    /// Fills the front of `buffer`; returns the count, 0 at the end.
    func read(into buffer: inout [UInt8]) throws(ArchiveError) -> Int {
        let remaining = entry.uncompressedSize - position
        // Ask for one byte more than remains, so content longer than declared is noticed.
        let wanted = Int(min(UInt64(buffer.count), remaining &+ 1))
        let count: Int
        switch decoder {
        case .inflater(let inflater):
            count = try inflater.read(into: &buffer, wanted: wanted, archive: archivePath)
        case .libzip(_, let file):
            let got = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64(wanted)) }
            if got < 0 {
                let message = String(cString: zip_error_strerror(zip_file_get_error(file)))
                throw .dataError(archive: archivePath, entry: "\(entry.name)", reason: message)
            }
            count = Int(got)
        }
        if UInt64(count) > remaining {
            throw .sizeMismatch(
                archive: archivePath, entry: "\(entry.name)",
                reason: "it holds more than the \(entry.uncompressedSize) bytes it declares")
        }
        if count == 0 && remaining > 0 {
            throw .sizeMismatch(
                archive: archivePath, entry: "\(entry.name)",
                reason: "it ends after \(position) of the \(entry.uncompressedSize) bytes it declares")
        }
        position += UInt64(count)
        return count
    }

    /// Reads and discards `count` bytes.
    func skip(_ count: UInt64) throws(ArchiveError) {
        var left = count
        var scratch = [UInt8](repeating: 0, count: Int(min(left, 1 << 16)))
        while left > 0 {
            if UInt64(scratch.count) > left { scratch.removeLast(scratch.count - Int(left)) }
            let got = try read(into: &scratch)
            guard got > 0 else { return }
            left -= UInt64(got)
        }
    }

    /// A deflated entry's raw stream inflated forwards, read from the file a slice at a time and
    /// never past the entry's compressed size. At the stream's end the CRC of all it produced is
    /// compared with the declared one, as libzip does: a stream that ends early with the right CRC
    /// is left to the caller's size check.
    private final class Inflater {
        private let file: FileByteSource
        private let entry: ArchiveEntry
        /// Heap-allocated: zlib keeps pointers into its stream.
        private let stream: UnsafeMutablePointer<z_stream>
        private var input: [UInt8] = []
        /// How much of `input` zlib has taken.
        private var inputTaken = 0
        /// Compressed bytes read so far, from the entry's data offset.
        private var consumed: UInt64 = 0
        private var crc: UInt32 = 0
        /// Bytes inflated so far.
        private var total: UInt64 = 0
        private var ended = false

        /// Compressed bytes read at a time: the first read is small (most streams opened to read a
        /// header are left after a few kilobytes), each next one twice the last, up to `largestSlice`.
        private var slice = 1 << 14
        static let largestSlice = 1 << 18

        init?(file: FileByteSource, entry: ArchiveEntry) {
            self.file = file
            self.entry = entry
            stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                return nil
            }
        }

        deinit {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        func read(into buffer: inout [UInt8], wanted: Int, archive: String) throws(ArchiveError) -> Int {
            var produced = 0
            while produced < wanted && !ended {
                // With the input used up, zlib may still hold output; it is asked again with none,
                // and a call that then makes no progress (Z_BUF_ERROR) means the stream is cut short.
                if inputTaken == input.count && consumed < entry.compressedSize {
                    let count = Int(min(UInt64(slice), entry.compressedSize - consumed))
                    slice = min(slice * 2, Self.largestSlice)
                    do {
                        input = try file.read(offset: entry.dataOffset + consumed, count: count)
                    } catch let error as FileReadError {
                        throw .unreadable(archive: archive, reason: error.detail)
                    } catch {
                        throw .unreadable(archive: archive, reason: "\(error)")
                    }
                    consumed += UInt64(count)
                    inputTaken = 0
                }
                let status = input.withUnsafeMutableBytes { source in
                    buffer.withUnsafeMutableBytes { target in
                        stream.pointee.next_in = source.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + inputTaken }
                        stream.pointee.avail_in = uInt(source.count - inputTaken)
                        stream.pointee.next_out = target.baseAddress.map { $0.assumingMemoryBound(to: Bytef.self) + produced }
                        stream.pointee.avail_out = uInt(wanted - produced)
                        let status = inflate(stream, Z_NO_FLUSH)
                        let made = wanted - produced - Int(stream.pointee.avail_out)
                        inputTaken = source.count - Int(stream.pointee.avail_in)
                        if made > 0, let base = target.baseAddress {
                            crc = DeflateEngine.crc32(UnsafeRawBufferPointer(start: base + produced, count: made), continuing: crc)
                        }
                        produced += made
                        total += UInt64(made)
                        return status
                    }
                }
                switch status {
                case Z_STREAM_END:
                    ended = true
                    // Content longer than declared is the caller's size mismatch, whatever its CRC
                    // (as a whole read tells it); otherwise libzip's words for a wrong CRC, so either
                    // reading says it alike.
                    guard crc == entry.crc32 || total > entry.uncompressedSize else {
                        throw .dataError(archive: archive, entry: "\(entry.name)", reason: "CRC error")
                    }
                case Z_OK:
                    continue
                default:
                    throw corrupt(archive)
                }
            }
            return produced
        }

        private func corrupt(_ archive: String) -> ArchiveError {
            .dataError(archive: archive, entry: "\(entry.name)", reason: "its deflate stream is corrupt or cut short")
        }
    }
}

/// Random access to an entry's content, for parsers that need a few ranges of a large entry
/// (Mach-O headers, symbol tables, signatures) without holding it all in memory.
///
/// Stored entries are read in place with `pread`. A deflated entry the archive reads whole
/// (`ZipArchive.Reading.whole`) is inflated whole by the first read that reaches past its first
/// `streamedPrefix` bytes, and kept for the next readers; reads within those bytes (a Mach-O
/// header) and entries too large to hold are inflated forwards, and a read behind the current
/// position starts inflating again from the beginning, so callers should request ranges in
/// increasing order. Several readers of one executable (the binary checks, the signature
/// summary, the entitlement check) each open their own source: the archive keeps the entry last
/// inflated whole, the ranges they read (`ZipArchive.RecentReads`) and the stream the last one
/// left, so a range read again, or one further on, is not inflated again from the start.
public final class ArchiveEntrySource: ByteSource {
    public let entry: ArchiveEntry
    let archive: ZipArchive
    private var stream: EntryStream?

    init(archive: ZipArchive, entry: ArchiveEntry) {
        self.archive = archive
        self.entry = entry
    }

    deinit {
        if let stream { archive.recentReads.park(stream) }
    }

    public var size: UInt64 { entry.uncompressedSize }

    /// Reads that end within this many bytes of the start inflate only what they need.
    static let streamedPrefix: UInt64 = 64 << 10

    public func read(offset: UInt64, count: Int) throws -> [UInt8] {
        try checkRange(offset: offset, count: count)
        if count == 0 { return [] }
        if entry.method == 0 {
            return try archive.file.read(offset: entry.dataOffset + offset, count: count)
        }
        if let bytes = archive.recentReads.bytes(entry: entry.index, offset: offset, count: count) {
            return bytes
        }
        if archive.reading(of: entry) == .whole, offset + UInt64(count) > Self.streamedPrefix || archive.recentReads.holdsWhole(entry) {
            let whole: [UInt8]
            if let kept = archive.recentReads.whole(of: entry) {
                whole = kept
            } else {
                // One entry held whole at a time: the one kept before goes first.
                archive.recentReads.keepWhole(nil)
                whole = try archive.readWhole(entry)
                archive.recentReads.keepWhole((entry.index, whole))
            }
            return Array(whole[Int(offset)..<(Int(offset) + count)])
        }
        if stream == nil || (stream?.position ?? 0) > offset {
            stream = try archive.recentReads.takeStream(entry: entry.index, atMost: offset) ?? EntryStream(archive: archive, entry: entry)
        }
        guard let stream else { return [] }
        let startedAt = stream.position
        defer { archive.recentReads.inflatedBytes[entry.index, default: 0] += stream.position - startedAt }
        try stream.skip(offset - stream.position)
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        var chunk = [UInt8](repeating: 0, count: min(count, 1 << 16))
        while filled < count {
            if chunk.count > count - filled { chunk.removeLast(chunk.count - (count - filled)) }
            let got = try stream.read(into: &chunk)
            guard got > 0 else {
                throw ArchiveError.sizeMismatch(
                    archive: archive.path, entry: "\(entry.name)", reason: "its content ended early")
            }
            result.replaceSubrange(filled..<(filled + got), with: chunk[0..<got])
            filled += got
        }
        archive.recentReads.keep(result, entry: entry.index, offset: offset)
        return result
    }
}

extension ZipArchive {
    /// What readers of compressed entries leave behind for the next reader of the same entry: the
    /// last few ranges read (at most `maximumBytes` in all, each one whole, inflated and checked
    /// against the declared size as it was read), and the stream the last closed source left at
    /// its position.
    struct RecentReads {
        static let maximumBytes = 4 << 20
        static let maximumRanges = 16

        private var ranges: [(entry: Int, offset: UInt64, bytes: [UInt8])] = []
        private var byteCount = 0
        /// The last entry read whole by a source (`ZipArchive.Reading.whole`), by index.
        private var wholeEntry: (index: Int, bytes: [UInt8])?
        /// Streams left by closed sources, one per entry, the latest last.
        private var parked: [EntryStream] = []
        static let maximumParked = 4
        /// Bytes inflated for readers, by entry index: an entry read again from its start counts
        /// twice (what tests check to see that readers share).
        var inflatedBytes: [Int: UInt64] = [:]

        /// The content of `entry` when it is the one kept whole.
        func whole(of entry: ArchiveEntry) -> [UInt8]? {
            wholeEntry.flatMap { $0.index == entry.index ? $0.bytes : nil }
        }

        /// The entry kept whole, by index, with its content.
        var heldWhole: (index: Int, bytes: [UInt8])? { wholeEntry }

        func holdsWhole(_ entry: ArchiveEntry) -> Bool {
            wholeEntry?.index == entry.index
        }

        /// Keeps an entry's content (by index), or none, in place of the entry kept before.
        mutating func keepWhole(_ entry: (index: Int, bytes: [UInt8])?) {
            wholeEntry = entry
        }

        /// A copy of `count` bytes at `offset` of `entry` when a kept range holds them.
        func bytes(entry: Int, offset: UInt64, count: Int) -> [UInt8]? {
            for range in ranges.reversed() where range.entry == entry && range.offset <= offset {
                let start = offset - range.offset
                guard start + UInt64(count) <= UInt64(range.bytes.count) else { continue }
                return Array(range.bytes[Int(start)..<(Int(start) + count)])
            }
            return nil
        }

        mutating func keep(_ bytes: [UInt8], entry: Int, offset: UInt64) {
            guard bytes.count <= Self.maximumBytes / 2 else { return }
            ranges.append((entry, offset, bytes))
            byteCount += bytes.count
            while byteCount > Self.maximumBytes || ranges.count > Self.maximumRanges {
                byteCount -= ranges.removeFirst().bytes.count
            }
        }

        mutating func park(_ stream: EntryStream) {
            parked.removeAll { $0.entry.index == stream.entry.index }
            parked.append(stream)
            if parked.count > Self.maximumParked { parked.removeFirst() }
        }

        /// The stream parked on `entry` when it is no further than `offset`.
        mutating func takeStream(entry: Int, atMost offset: UInt64) -> EntryStream? {
            guard let at = parked.firstIndex(where: { $0.entry.index == entry && $0.position <= offset }) else { return nil }
            return parked.remove(at: at)
        }
    }
}
