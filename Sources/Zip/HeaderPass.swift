import Dispatch
import FormatSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The part of opening an archive that runs on a second thread while the opening thread puts
/// the central directory into the path tree and the table: every record's own fields checked
/// (`ZipArchive.checkEntryHeader`), its local header read and compared with it (where its data
/// lies), and libzip's reading of every name compared with ours. It parses the records from the
/// chunks the opening thread reads (`DirectoryChunks`), so both see the same directory; the
/// opening thread reports what either finds in the order the checks were always made, so an
/// archive with several faults is refused for the same one.
final class HeaderPass: Sendable {
    struct Outcome: Sendable {
        /// Per record, data offset minus local-header offset, and the data descriptor's length in
        /// 4-byte units (see `EntryTable`).
        var dataOffsetDeltas: [UInt32] = []
        var descriptorUnits: [UInt8] = []
        /// The first record whose fields or local header are refused, and at which step.
        var headerFailure: (position: DirectoryPosition, error: ArchiveError)?
        /// libzip reads the directory differently (checked only when every local header passed).
        var libzipFailure: ArchiveError?
    }

    private let outcome = Mutex(Outcome())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the pass over the `end.entryCount` records the opening thread sends through
    /// `chunks`. The pass reads the file through a duplicate of the opening thread's descriptor
    /// (`dup`: the very file it opened, whatever its path names by now; reads are `pread`, so the
    /// two share no position), which it owns and closes.
    init(
        file: FileByteSource, end: EndOfCentralDirectory, chunks: DirectoryChunks, archive: String, limits: ArchiveLimits,
        clock: WorkClock
    ) {
        let duplicate = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 0)
        let failure = duplicate < 0 ? String(cString: strerror(errno)) : nil
        let (path, size) = (file.path, file.size)
        Thread.detachNewThread { [self] in
            let result: Outcome
            if let failure {
                chunks.abandon()
                var failed = Outcome()
                failed.headerFailure = (
                    DirectoryPosition(record: 0, step: .entryHeader),
                    .unreadable(archive: archive, reason: "its descriptor cannot be duplicated: \(failure)"))
                result = failed
            } else {
                let file = FileByteSource(adopting: duplicate, path: path, size: size)
                result = Self.run(file: file, end: end, chunks: chunks, archive: archive, limits: limits, clock: clock)
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// What the pass found, once it has ended (the opening thread must have closed `chunks`).
    func wait() -> Outcome {
        finished.wait()
        finished.signal()
        return outcome.withLock { $0 }
    }

    private static func run(
        file: FileByteSource, end: EndOfCentralDirectory, chunks: DirectoryChunks, archive: String, limits: ArchiveLimits,
        clock: WorkClock
    ) -> Outcome {
        defer { chunks.abandon() }
        var outcome = Outcome()
        let count = Int(end.entryCount)
        outcome.dataOffsetDeltas.reserveCapacity(count)
        outcome.descriptorUnits.reserveCapacity(count)
        var reader = CentralDirectoryReader(
            source: .chunks(chunks), directoryOffset: end.centralDirectoryOffset, directorySize: end.centralDirectorySize,
            count: end.entryCount, archive: archive)
        var headers = ReadAheadFile(file)
        var clock = clock
        var names = LibzipNameCheck(file: file, end: end, archive: archive)
        // libzip reads the names window by window as the records go by; once it disagrees, or
        // the opening thread has refused the archive, only the local headers are read on.
        var checkingNames = true
        // A directory this reader cannot read to its end, the opening thread cannot either: it
        // reports that (or stopped first, on a fault of its own).
        while let (record, offset) = try? reader.next() {
            var position = DirectoryPosition(record: outcome.dataOffsetDeltas.count, step: .entryHeader)
            do {
                try clock.tick(1 + record.name.count)
                try ZipArchive.checkEntryHeader(record, archive: archive, limits: limits)
                position.step = .localHeader
                let span = try LocalHeader.span(of: record, in: &headers, archive: archive)
                outcome.dataOffsetDeltas.append(UInt32(truncatingIfNeeded: span.dataOffset - record.localHeaderOffset))
                outcome.descriptorUnits.append(UInt8(truncatingIfNeeded: (span.end - span.dataOffset - record.compressedSize) / 4))
            } catch {
                outcome.headerFailure = (position, error)
                return outcome
            }
            guard checkingNames else { continue }
            if names.isFull(adding: offset + UInt64(record.raw.count)) {
                checkingNames = !chunks.senderFailed
                do {
                    if checkingNames { try names.check(clock: &clock) }
                } catch {
                    outcome.libzipFailure = error
                    checkingNames = false
                }
            }
            names.add(record.name, offset: offset, length: UInt64(record.raw.count))
        }
        guard checkingNames, outcome.dataOffsetDeltas.count == count, !chunks.senderFailed else { return outcome }
        do {
            try names.check(clock: &clock)
        } catch {
            outcome.libzipFailure = error
        }
        return outcome
    }
}

/// libzip must read every record's name as we do. It opens a small archive whole, as it is; a
/// larger one a window of records at a time (up to 4,096 records or 4 MiB of them, and at least
/// one), so its index stays small. The names of a window are kept until libzip has read them.
struct LibzipNameCheck {
    private let file: FileByteSource
    private let archive: String
    private let directoryOffset: UInt64
    private let whole: Bool
    /// The window: its first record's index, where it starts and ends in the directory, and its
    /// records' names one after another.
    private var first = 0
    private var start: UInt64 = 0
    private var end: UInt64 = 0
    private var names: [UInt8] = []
    private var nameEnds: [Int] = []

    init(file: FileByteSource, end: EndOfCentralDirectory, archive: String) {
        self.file = file
        self.archive = archive
        self.directoryOffset = end.centralDirectoryOffset
        self.whole = end.entryCount <= UInt64(ZipArchive.libzipWindow)
            && end.centralDirectorySize <= ZipArchive.libzipWindowBytes
    }

    /// Whether the window must be checked before it takes a record that ends at `recordEnd` in
    /// the directory: it holds 4,096 records, or that one would take it past 4 MiB (a window
    /// takes at least one record; the whole directory is one window).
    func isFull(adding recordEnd: UInt64) -> Bool {
        !whole && !nameEnds.isEmpty
            && (nameEnds.count >= ZipArchive.libzipWindow || recordEnd > start + ZipArchive.libzipWindowBytes)
    }

    /// Adds the record at `offset` in the directory, `length` bytes long.
    mutating func add(_ name: ArraySlice<UInt8>, offset: UInt64, length: UInt64) {
        if nameEnds.isEmpty { start = offset }
        end = offset + length
        names.append(contentsOf: name)
        nameEnds.append(names.count)
    }

    /// Has libzip read the window's names, compares them with ours, and starts the next window.
    mutating func check(clock: inout WorkClock) throws(ArchiveError) {
        guard whole || !nameEnds.isEmpty else { return }
        let count = nameEnds.count
        let last = first + count
        let view = whole
            ? try LibzipView(wholeFile: file, archive: archive)
            : try LibzipView(
                file: file, directoryOffset: directoryOffset, records: (directoryOffset + start)..<(directoryOffset + end),
                count: count, archive: archive)
        guard view.entryCount == Int64(count) else {
            throw .corrupt(
                archive: archive,
                reason: "libzip sees \(view.entryCount) entries where the central directory lists \(count)"
                    + (whole ? "" : " (records \(first) to \(last - 1))"))
        }
        try names.withUnsafeBufferPointer { names throws(ArchiveError) in
            var nameStart = 0
            for position in 0..<count {
                try clock.tick(1)
                guard let libzipName = view.rawName(position) else {
                    throw .corrupt(archive: archive, reason: "libzip cannot name entry \(first + position)")
                }
                let nameEnd = nameEnds[position]
                guard ByteComparison.equal(UnsafeBufferPointer(rebasing: names[nameStart..<nameEnd]), libzipName) else {
                    throw .corrupt(archive: archive, reason: "libzip reads the name of entry \(first + position) differently")
                }
                nameStart = nameEnd
            }
        }
        first = last
        names.removeAll(keepingCapacity: true)
        nameEnds.removeAll(keepingCapacity: true)
    }
}
