import Deflate
import FormatSupport

extension ZipArchive {
    /// Largest deflated entry inflated whole, compressed or inflated: a 60 MB executable is, a
    /// game's 500 MB asset pack streams.
    public static let wholeReadLimit: UInt64 = 64 << 20
    /// Deflate that did not shrink an entry is stored blocks (random or encrypted bytes), which
    /// zlib copies as fast as libdeflate: above this size such an entry streams, since holding it
    /// twice, compressed and inflated, would cost memory for nothing.
    static let unshrunkWholeReadLimit: UInt64 = 1 << 20

    /// How an entry's content is read: the one decision every reader follows.
    enum Reading: Equatable {
        /// Stored: its bytes read in place, in chunks, the CRC (libdeflate's) over them.
        case stored
        /// Deflated and small enough to hold: inflated in one call (`DeflateEngine`) into the
        /// declared size, the CRC over the result.
        case whole
        /// Anything else: streamed (`EntryStream`: zlib for deflate, libzip for other methods), size and
        /// CRC checked at the end.
        case streamed
    }

    /// How `entry` is read: whole when deflated, within `wholeReadLimit` both ways and, its
    /// compressed and inflated bytes together, within `--max-memory`.
    func reading(of entry: ArchiveEntry) -> Reading {
        switch entry.method {
        case 0:
            return .stored
        case 8:
            let (compressed, inflated) = (entry.compressedSize, entry.uncompressedSize)
            guard compressed <= Self.wholeReadLimit, inflated <= Self.wholeReadLimit,
                compressed + inflated <= limits.maximumMemory,
                compressed < inflated || inflated <= Self.unshrunkWholeReadLimit
            else { return .streamed }
            return .whole
        default:
            return .streamed
        }
    }

    /// The content of an entry read whole (see `Reading.whole`): exactly the declared size,
    /// with the declared CRC. Faults are told as when libzip streams the entry: a stream that
    /// holds more than declared, or less but with the declared CRC, is `ARCHIVE_SIZE_MISMATCH`;
    /// a wrong CRC (over what the stream holds) or a corrupt or cut-short stream is
    /// `ARCHIVE_DATA_ERROR`.
    func readWhole(_ entry: ArchiveEntry) throws(ArchiveError) -> [UInt8] {
        let compressed = try readData(of: entry, offset: 0, count: Int(entry.compressedSize))
        let size = Int(entry.uncompressedSize)
        var outcome = DeflateEngine.InflateOutcome.corrupt
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            outcome = compressed.withUnsafeBytes { DeflateEngine.inflate($0, into: UnsafeMutableRawBufferPointer(buffer)) }
            switch outcome {
            case .complete: initialized = size
            case .endsEarly(let produced): initialized = produced
            case .overruns, .corrupt: initialized = 0
            }
        }
        recentReads.inflatedBytes[entry.index, default: 0] += UInt64(bytes.count)
        switch outcome {
        case .complete:
            break
        case .endsEarly(let produced):
            try checkCRC(bytes.withUnsafeBytes { DeflateEngine.crc32($0) }, of: entry)
            throw .sizeMismatch(
                archive: path, entry: "\(entry.name)", reason: "it ends after \(produced) of the \(size) bytes it declares")
        case .overruns:
            throw .sizeMismatch(
                archive: path, entry: "\(entry.name)", reason: "it holds more than the \(size) bytes it declares")
        case .corrupt:
            throw .dataError(archive: path, entry: "\(entry.name)", reason: "its deflate stream is corrupt or cut short")
        }
        try checkCRC(bytes.withUnsafeBytes { DeflateEngine.crc32($0) }, of: entry)
        return bytes
    }

    /// A deflated entry's stream as stored (not inflated, not checked), for a writer that reuses
    /// it; nil when it is not deflated or larger than `wholeReadLimit`.
    func deflateStream(of entry: ArchiveEntry) throws(ArchiveError) -> [UInt8]? {
        guard entry.method == 8, entry.compressedSize <= Self.wholeReadLimit else { return nil }
        return try readData(of: entry, offset: 0, count: Int(entry.compressedSize))
    }

    /// Hands a stored entry's bytes to `body` in chunks read in place, then checks the CRC.
    func streamStored(
        _ entry: ArchiveEntry, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws(ArchiveError) {
        var done: UInt64 = 0
        var crc: UInt32 = 0
        while done < entry.uncompressedSize {
            let chunk = try readData(of: entry, offset: done, count: Int(min(UInt64(chunkSize), entry.uncompressedSize - done)))
            try reportingAsEntry(entry) {
                try chunk.withUnsafeBytes { buffer in
                    crc = DeflateEngine.crc32(buffer, continuing: crc)
                    try body(buffer)
                }
            }
            done += UInt64(chunk.count)
        }
        try checkCRC(crc, of: entry)
    }

    /// Runs `work` (which hands an entry's bytes to a caller's closure), reporting what it throws
    /// as this entry's `ARCHIVE_DATA_ERROR` (an `ArchiveError` as it is).
    func reportingAsEntry(_ entry: ArchiveEntry, _ work: () throws -> Void) throws(ArchiveError) {
        do {
            try work()
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw .dataError(archive: path, entry: "\(entry.name)", reason: "\(error)")
        }
    }

    private func checkCRC(_ crc: UInt32, of entry: ArchiveEntry) throws(ArchiveError) {
        guard crc == entry.crc32 else {
            // libzip's words for the same fault, so either reading says it alike.
            throw .dataError(archive: path, entry: "\(entry.name)", reason: "CRC error")
        }
    }

    /// `count` bytes of the entry's data (as stored) from `offset`; the range lies within the
    /// file, checked on opening.
    private func readData(of entry: ArchiveEntry, offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
        do {
            return try file.read(offset: entry.dataOffset + offset, count: count)
        } catch let error as FileReadError {
            throw .unreadable(archive: path, reason: error.detail)
        } catch {
            throw .unreadable(archive: path, reason: "\(error)")
        }
    }
}
