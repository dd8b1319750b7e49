import CLibzip
import FormatSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A zip archive opened for reading and checked before anything else may use it.
///
/// Opening reads only the end records, the central directory and each local header; no entry is
/// extracted. The archive is refused (`ArchiveError`, exit 65) when it is not safe to extract or
/// would be read differently by different tools:
/// - unsafe names (absolute, `..`, `.` or empty components, backslashes, control bytes), names that
///   appear twice (also as NFC/NFD twins or as both a file and a folder) or differ only in case,
///   entries beneath a symlink or a file;
/// - symlinks whose target is absolute, loops, or leaves the archive;
/// - encrypted entries, compression methods libzip cannot read (Apple's LZFSE method 99 named);
/// - local headers or data descriptors that disagree with the central directory, entries whose
///   bytes overlap, a central directory that does not end where the end record begins;
/// - more entries, more total expansion, or a higher per-entry expansion ratio than `limits`.
///
/// Two parsers read the structure: ours (which keeps the raw records the writer copies) and
/// libzip (which reads entry data). They must agree on every name, or the archive is refused.
///
/// Not thread-safe: use one `ZipArchive` per thread.
public final class ZipArchive {
    /// The path the archive was opened from, as given.
    public let path: String
    public let fileSize: UInt64
    /// Entries in central-directory order.
    public var entries: ArchiveEntries { ArchiveEntries(store: store) }
    /// The archive comment, raw.
    public let comment: [UInt8]
    public let limits: ArchiveLimits

    /// The central directory, parsed: shared by lookups, the bundle model and the writer.
    package let store: EntryStore
    let centralDirectoryOffset: UInt64
    let centralDirectorySize: UInt64
    let file: FileByteSource
    /// Symlink entry index → target text.
    private var symlinkTargets: [Int: String]
    /// Every folder's children, built when first asked for.
    private var children: PathTree.Children?
    /// When the work on this input must have ended (`limits.maximumSeconds` after opening).
    let deadline: ContinuousClock.Instant
    /// The first resource limit this input hit. Readers that turn a failed read into a finding
    /// still leave it here, so `checkLimits()` refuses the input as a whole.
    public private(set) var exceededLimit: ArchiveError?
    /// Ranges of compressed entries read lately, and the last stream left open (see `ArchiveEntrySource`).
    var recentReads = RecentReads()

    /// Largest symlink target accepted (PATH_MAX on Darwin).
    package static let maximumSymlinkTarget = 1024
    /// Symlinks followed while resolving one path (the kernel's ELOOP limit).
    static let maximumSymlinkHops = 40
    /// Records, and bytes of them, libzip parses at once when it checks a large archive's names
    /// (its index takes about 350 bytes an entry plus the names); an archive with no more than
    /// this it opens whole, as it is.
    static let libzipWindow = 4096
    static let libzipWindowBytes: UInt64 = 4 << 20

    public convenience init(path: String, limits: ArchiveLimits = .default) throws(ArchiveError) {
        try self.init(opening: path, displayedAs: path, limits: limits)
    }

    /// Opens the file at `location`, named `path` in every message and report (a folder packed into a
    /// temporary archive is named as the folder).
    ///
    /// - Parameter deadline: when the work on this input began before (a folder walked and packed,
    ///   a worker reopening the archive), its deadline, so `--time-limit` counts once; else the
    ///   limit from now.
    package init(
        opening location: String, displayedAs path: String, limits: ArchiveLimits,
        deadline: ContinuousClock.Instant? = nil
    ) throws(ArchiveError) {
        self.path = path
        self.limits = limits
        self.deadline = deadline ?? WorkClock.deadline(after: limits.maximumSeconds)
        do {
            self.file = try FileByteSource(path: location)
        } catch {
            if Self.isFolder(path) { throw .folderGiven(archive: path) }
            throw .unreadable(archive: path, reason: error.detail)
        }
        self.fileSize = file.size

        let end = try EndOfCentralDirectory.read(from: file, archive: path)
        guard end.entryCount <= UInt64(limits.maximumEntries) else {
            throw .tooManyEntries(archive: path, count: end.entryCount, limit: limits.maximumEntries)
        }
        var clock = WorkClock(deadline: self.deadline, seconds: limits.maximumSeconds, file: path)
        // Each record's own fields, its local header and libzip's reading of the names are checked
        // on a second thread (they need nothing from the path tree); what either thread finds is
        // reported in the order the checks have always been made: the directory record by record
        // (see `DirectoryPosition`), then the spans, the names, libzip.
        let chunks = DirectoryChunks()
        let headerPass = HeaderPass(
            file: file, end: end, chunks: chunks, archive: path, limits: limits, clock: clock)
        var progress = DirectoryPosition()
        var table: EntryTable
        let tree: PathTree
        do {
            (table, tree) = try Self.readDirectory(
                file, end: end, limits: limits, archive: path, clock: &clock, forwarding: chunks, progress: &progress)
        } catch {
            chunks.close(failed: true)
            if let (position, headerError) = headerPass.wait().headerFailure, position < progress {
                throw headerError
            }
            throw error
        }
        chunks.close(failed: false)
        var nameFailure: ArchiveError?
        do {
            try Self.checkNames(EntryStore(table: table, tree: tree), archive: path, clock: &clock)
        } catch {
            nameFailure = error
        }
        let headers = headerPass.wait()
        if let (_, headerError) = headers.headerFailure { throw headerError }
        guard headers.dataOffsetDeltas.count == table.count, headers.descriptorUnits.count == table.count else {
            throw .unreadable(archive: path, reason: "the file changed while being read")
        }
        table.setSpans(dataOffsetDeltas: headers.dataOffsetDeltas, descriptorUnits: headers.descriptorUnits)
        let store = EntryStore(table: table, tree: tree)
        self.store = store
        self.comment = end.comment
        self.centralDirectoryOffset = end.centralDirectoryOffset
        self.centralDirectorySize = end.centralDirectorySize
        try Self.checkSpans(store, directoryOffset: end.centralDirectoryOffset, archive: path, clock: &clock)
        if let nameFailure { throw nameFailure }
        if let libzipFailure = headers.libzipFailure { throw libzipFailure }
        self.symlinkTargets = [:]
        // From here `self` is fully initialised.
        self.symlinkTargets = try readSymlinkTargets()
        try checkSymlinks { _ in [] }
        try checkLimits()
    }

    /// What another thread needs to open this archive on its own (a `ZipArchive` is one thread's:
    /// it reads through its own file handle and keeps its own recent reads), under the same name,
    /// limits and deadline.
    public struct Reopening: Sendable {
        /// Where the file is reached: its descriptor in `/proc/self/fd`, which reaches it even when
        /// its path is gone or names another file by now (an app folder's packed, already unlinked
        /// archive); the path it was opened from where there is no `/proc`.
        let location: String
        let path: String
        let limits: ArchiveLimits
        let deadline: ContinuousClock.Instant
        /// The entry this archive holds read whole (checked): the other thread's reads of it take
        /// these bytes instead of inflating the entry again, while the entry at that index is still
        /// the one they were read from.
        let heldWhole: (index: Int, offset: UInt64, crc: UInt32, bytes: [UInt8])?

        public func open() throws(ArchiveError) -> ZipArchive {
            let archive = try ZipArchive(opening: location, displayedAs: path, limits: limits, deadline: deadline)
            if let heldWhole, heldWhole.index < archive.entries.count {
                let entry = archive.entries[heldWhole.index]
                if entry.localHeaderOffset == heldWhole.offset, entry.crc32 == heldWhole.crc,
                    entry.uncompressedSize == UInt64(heldWhole.bytes.count)
                {
                    archive.recentReads.keepWhole((heldWhole.index, heldWhole.bytes))
                }
            }
            return archive
        }
    }

    /// How another thread opens this archive (while this one stays open: the descriptor is this one's).
    public var reopening: Reopening {
        let descriptorPath = "/proc/self/fd/\(file.descriptor)"
        let location = FileSystem.access(descriptorPath, F_OK) == 0 ? descriptorPath : file.path
        let held = recentReads.heldWhole.flatMap { held in
            held.index < entries.count
                ? (held.index, entries[held.index].localHeaderOffset, entries[held.index].crc32, held.bytes) : nil
        }
        return Reopening(location: location, path: path, limits: limits, deadline: deadline, heldWhole: held)
    }

    private static func isFolder(_ path: String) -> Bool {
        FileSystem.isFolder(path)
    }

    // MARK: Lookup

    /// The entry at `path`, which the caller found listed before: a lookup that fails now means
    /// the archive changed under the caller, told as that entry's data error.
    public func requiredEntry(named path: String) throws(ArchiveError) -> ArchiveEntry {
        guard let entry = entry(named: path) else {
            throw .dataError(archive: self.path, entry: path, reason: "the entry disappeared")
        }
        return entry
    }

    /// The entry with this path (a trailing slash is optional for folders). Names that differ
    /// only by Unicode normalization are the same path, as on Apple's file systems.
    public func entry(named name: String) -> ArchiveEntry? {
        var key = name.utf8[...]
        if key.last == UInt8(ascii: "/") { key = key.dropLast() }
        guard let node = store.tree.node(atPath: key), let index = store.tree.entry(ofNode: node) else { return nil }
        return ArchiveEntry(store: store, index: index)
    }

    /// Whether `path` (no trailing slash; "" for the root) is a folder: an entry that is one, or
    /// a folder that other entries' names imply (archives need not list every folder).
    public func isFolder(_ path: String) -> Bool {
        store.tree.node(atPath: path.utf8).map(isFolder) ?? false
    }

    package func isFolder(_ node: UInt32) -> Bool {
        store.tree.entry(ofNode: node).map { store.table.kind($0) == .directory } ?? true
    }

    /// The names directly inside the folder `path` (no trailing slash; "" for the root), sorted;
    /// empty when there is no such folder.
    public func contents(ofFolder path: String) throws(ArchiveError) -> [String] {
        try childNodes(ofFolder: path).map { EntryName.decode(store.tree.component(of: $0)) }.sorted()
    }

    /// The entries directly inside the folder `path` (no trailing slash; "" for the root), in
    /// the order they first appear (folders that only other names imply are not entries).
    public func entries(inFolder path: String) throws(ArchiveError) -> [ArchiveEntry] {
        try childNodes(ofFolder: path).compactMap { store.tree.entry(ofNode: $0).map { ArchiveEntry(store: store, index: $0) } }
    }

    /// The entries anywhere below the folder `path` (no trailing slash), in central-directory
    /// order; empty when there is no such folder.
    public func entries(within path: String) -> [ArchiveEntry] {
        let tree = store.tree
        guard !path.isEmpty, let folder = tree.node(atPath: path.utf8) else { return [] }
        return tree.entries(within: folder).compactMap { index in
            tree.node(ofEntry: index) == folder ? nil : ArchiveEntry(store: store, index: index)
        }
    }

    /// A folder `folders(within:where:limit:)` found.
    public struct FolderMatch: Sendable, Equatable {
        /// Its path, no trailing slash.
        public let path: String
        /// How many matching folders hold it (0: none).
        public let nesting: Int
        /// The innermost matching folder that holds it, by its index in the result.
        public let container: Int?
    }

    /// The folders anywhere below `path` whose own name satisfies `matches` (a bundle
    /// extension, say), outer ones before the folders they hold. Walked node by
    /// node over the children index, so the cost is the number of files and folders below
    /// `path` however deep they go; a path is built only for a folder that matches. Returns nil
    /// when more than `limit` folders match (the search stops there).
    public func folders(
        within path: String, where matches: (ArraySlice<UInt8>) -> Bool, limit: Int
    ) throws(ArchiveError) -> [FolderMatch]? {
        guard let top = store.tree.node(atPath: path.utf8), isFolder(top) else { return [] }
        let index = try childrenIndex()
        var clock = workClock()
        var found: [FolderMatch] = []
        // Depth first (an outer match before the ones it holds), siblings in the order they first
        // appear in the archive; the caller orders the matches as it needs.
        var pending: [(node: UInt32, nesting: Int, container: Int?)] = [(top, 0, nil)]
        while let (node, nesting, container) = pending.popLast() {
            let children = index.of(node)
            try clock.tick(children.count + 1)
            var next: [(node: UInt32, nesting: Int, container: Int?)] = []
            for child in children where isFolder(child) {
                let name = store.tree.component(of: child)
                if matches(name) {
                    guard found.count < limit else { return nil }
                    next.append((child, nesting + 1, found.count))
                    found.append(FolderMatch(
                        path: EntryName.decode(store.tree.path(of: child)), nesting: nesting, container: container))
                } else {
                    next.append((child, nesting, container))
                }
            }
            pending.append(contentsOf: next.reversed())
        }
        return found
    }

    /// The nodes directly inside the folder `path`, in the order they first appear. The first
    /// call indexes every folder's children (counted against the memory limit; a limit hit is
    /// also recorded for `checkLimits`).
    func childNodes(ofFolder path: String) throws(ArchiveError) -> [UInt32] {
        guard let node = store.tree.node(atPath: path.utf8) else { return [] }
        return try childrenIndex().of(node).sorted {
            store.tree.firstAppearance(of: $0) < store.tree.firstAppearance(of: $1)
        }
    }

    /// Every folder's children, indexed on the first call (counted against the memory limit; a
    /// limit hit is also recorded for `checkLimits`).
    private func childrenIndex() throws(ArchiveError) -> PathTree.Children {
        let index: PathTree.Children
        if let children {
            index = children
        } else {
            do {
                var clock = workClock()
                index = try store.tree.children { units throws(ArchiveError) in try clock.tick(units) }
                try Self.checkIndexSize(index.byteCount + store.tree.byteCount, limits: limits, archive: self.path)
            } catch {
                if exceededLimit == nil { exceededLimit = error }
                throw error
            }
            children = index
        }
        return index
    }

    /// The target of a symlink entry.
    public func symlinkTarget(of entry: ArchiveEntry) -> String? {
        entry.kind == .symlink ? symlinkTargets[entry.index] : nil
    }

    /// Every record of the central directory, parsed again from the file (for tests).
    var records: [CentralDirectoryRecord] {
        var reader = centralDirectoryReader()
        var records: [CentralDirectoryRecord] = []
        while let next = try? reader.next() { records.append(next.record) }
        return records
    }

    func centralDirectoryReader() -> CentralDirectoryReader {
        CentralDirectoryReader(
            file: file, directoryOffset: centralDirectoryOffset, directorySize: centralDirectorySize,
            count: UInt64(store.table.count), archive: path)
    }

    /// Whether `record`, read again from the file, is the one `entry` was made from.
    func describes(_ entry: ArchiveEntry, as record: CentralDirectoryRecord) -> Bool {
        let table = store.table
        let index = entry.index
        return record.localHeaderOffset == table.localHeaderOffsets[index] && record.crc32 == table.crc32s[index]
            && record.compressedSize == table.compressedSizes[index] && record.uncompressedSize == table.uncompressedSizes[index]
            && record.flags == table.flags[index] && record.method == table.methods[index]
            && record.externalAttributes == table.externalAttributes[index]
            && record.name.withUnsafeBufferPointer {
                store.tree.name(ofEntry: index, isDirectoryName: table.isDirectoryName(index), equals: $0)
            }
    }

    /// The file range of entry `index`'s central-directory record.
    func recordRange(_ index: Int) -> Range<UInt64> {
        let table = store.table
        let start = UInt64(table.recordOffsets[index])
        let end = index + 1 < table.count ? UInt64(table.recordOffsets[index + 1]) : centralDirectorySize
        return (centralDirectoryOffset + start)..<(centralDirectoryOffset + end)
    }

    // MARK: Reading

    /// The whole uncompressed content of an entry, refused when it declares more than
    /// `maximumSize` bytes (so a caller reading an Info.plist cannot be handed a gigabyte).
    public func read(_ entry: ArchiveEntry, maximumSize: UInt64) throws(ArchiveError) -> [UInt8] {
        try reserveMemory(entry.uncompressedSize, for: "entry '\(entry.name)'")
        guard entry.uncompressedSize <= maximumSize else {
            throw .entryTooLarge(archive: path, entry: "\(entry.name)", size: entry.uncompressedSize, limit: maximumSize)
        }
        if reading(of: entry) == .whole {
            if let kept = recentReads.whole(of: entry) { return kept }
            return try readWhole(entry)
        }
        var result: [UInt8] = []
        result.reserveCapacity(Int(entry.uncompressedSize))
        try stream(entry) { chunk in result.append(contentsOf: chunk) }
        return result
    }

    // MARK: Resource limits

    /// Refuses to hold `bytes` in memory at once for `what` (an entry, or an image decoded from
    /// one, as a message names it) when that is above `limits.maximumMemory`, and records it in
    /// `exceededLimit`.
    public func reserveMemory(_ bytes: UInt64, for what: String) throws(ArchiveError) {
        guard bytes > limits.maximumMemory else { return }
        let error = ArchiveError.memoryLimit(archive: path, what: what, size: bytes, limit: limits.maximumMemory)
        if exceededLimit == nil { exceededLimit = error }
        throw error
    }

    /// Throws the resource limit this input hit: the memory limit, found by an earlier read
    /// (even one whose failure was reported as a finding), or the time limit, now. Called between
    /// the steps of every command, so an input over its limits is refused, not processed slowly.
    public func checkLimits() throws(ArchiveError) {
        if let exceededLimit { throw exceededLimit }
        if ContinuousClock.now > deadline {
            let error = ArchiveError.timeLimit(archive: path, seconds: limits.maximumSeconds)
            exceededLimit = error
            throw error
        }
    }

    /// The time limit of the work on this input, to pass into the parsers of its entries.
    public func workClock() -> WorkClock {
        WorkClock(deadline: deadline, seconds: limits.maximumSeconds, file: path)
    }

    /// Hands an entry's uncompressed content to `body` in chunks of at most `chunkSize` bytes,
    /// checking that it is exactly as long as declared and has the declared CRC (see `Reading`:
    /// a deflated entry that fits is inflated whole first, one that does not is streamed).
    public func stream(
        _ entry: ArchiveEntry, chunkSize: Int = 1 << 16, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws(ArchiveError) {
        let chunkSize = max(1, chunkSize)
        switch reading(of: entry) {
        case .stored:
            try streamStored(entry, chunkSize: chunkSize, body)
        case .whole:
            let bytes: [UInt8]
            if let kept = recentReads.whole(of: entry) { bytes = kept } else { bytes = try readWhole(entry) }
            try reportingAsEntry(entry) {
                try bytes.withUnsafeBytes { all in
                    var start = 0
                    while start < all.count {
                        let end = min(all.count, start + chunkSize)
                        try body(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                        start = end
                    }
                }
            }
        case .streamed:
            let reader = try EntryStream(archive: self, entry: entry)
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            while true {
                let count = try reader.read(into: &buffer)
                if count == 0 { break }
                try reportingAsEntry(entry) {
                    try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                }
            }
        }
    }

    /// Random access to an entry's content for parsers that need only some ranges (Mach-O).
    public func byteSource(for entry: ArchiveEntry) -> ArchiveEntrySource {
        ArchiveEntrySource(archive: self, entry: entry)
    }

    /// libzip opened on this entry alone (its record, at the real offsets; see `LibzipView`).
    func libzipView(of entry: ArchiveEntry) throws(ArchiveError) -> LibzipView {
        try LibzipView(
            file: file, directoryOffset: centralDirectoryOffset, records: recordRange(entry.index), count: 1, archive: path)
    }

    // MARK: Checks

    /// Reads the central directory record by record, each one's name placed in the path tree and
    /// its numbers in the table (its fields and local header are checked on the other thread,
    /// `HeaderPass`). Every chunk read is handed on to `forwarding`; `progress` tells where a
    /// fault was found.
    private static func readDirectory(
        _ file: FileByteSource, end: EndOfCentralDirectory, limits: ArchiveLimits, archive: String, clock: inout WorkClock,
        forwarding: DirectoryChunks, progress: inout DirectoryPosition
    ) throws(ArchiveError) -> (EntryTable, PathTree) {
        let count = Int(end.entryCount)
        var reader = CentralDirectoryReader(
            source: .file(file, forwarding: forwarding), directoryOffset: end.centralDirectoryOffset,
            directorySize: end.centralDirectorySize, count: end.entryCount, archive: archive)
        var table = EntryTable()
        table.reserveCapacity(count)
        let nameBytes = end.centralDirectorySize - min(end.centralDirectorySize, end.entryCount * UInt64(ZipSignature.centralHeaderSize))
        var tree = PathTree(entryCount: count, nameBytes: Int(nameBytes))
        var totalSize: UInt64 = 0
        while let (record, offset) = try reader.next() {
            progress.step = .totalSize
            // Each record's name is read a few times over (checked, compared with its local
            // header and the previous name): a deep name is as much work as many records.
            try clock.tick(1 + record.name.count)
            let (sum, overflow) = totalSize.addingReportingOverflow(record.uncompressedSize)
            totalSize = overflow ? .max : sum
            guard totalSize <= limits.maximumTotalUncompressedSize else {
                // The message names what the whole archive declares, not the sum so far.
                while let (rest, _) = try reader.next() {
                    let (sum, overflow) = totalSize.addingReportingOverflow(rest.uncompressedSize)
                    totalSize = overflow ? .max : sum
                }
                throw .totalSizeLimit(archive: archive, total: totalSize, limit: limits.maximumTotalUncompressedSize)
            }
            progress.step = .pathIndex
            try tree.insert(entry: table.count, name: record.name) { units throws(ArchiveError) in try clock.tick(units) }
            try checkIndexSize(tree.byteCount, limits: limits, archive: archive)
            table.append(record, recordOffset: offset)
            progress = DirectoryPosition(record: progress.record + 1, step: .reading)
        }
        return (table, tree)
    }

    /// An index of paths below this size always fits, whatever `--max-memory` says: counting
    /// starts where a name's depth, not the number of entries, could make it large.
    static let indexAllowance = 1 << 20

    private static func checkIndexSize(_ bytes: Int, limits: ArchiveLimits, archive: String) throws(ArchiveError) {
        guard bytes > indexAllowance, UInt64(bytes) > limits.maximumMemory else { return }
        throw .memoryLimit(
            archive: archive, what: "the index of its folders and entries", size: UInt64(bytes), limit: limits.maximumMemory)
    }

    static func checkEntryHeader(
        _ record: CentralDirectoryRecord, archive: String, limits: ArchiveLimits
    ) throws(ArchiveError) {
        // Formatted only when a message needs it.
        var name: String { "\(EntryName(bytes: Array(record.name)))" }
        if let reason = EntryName.unsafeReason(of: record.name) {
            throw .unsafeName(archive: archive, entry: name, reason: reason)
        }
        // Bit 0: encrypted; bit 6: strong encryption; bit 13: masked local headers.
        if record.flags & 0x2041 != 0 {
            throw .encryptedEntry(archive: archive, entry: name)
        }
        if record.method == 99 {
            // WinZip AES marks itself with method 99 plus an 0x9901 extra field; Apple's LZFSE
            // entries use 99 without it.
            if ExtraField.find(ZipSignature.aesExtraID, in: record.extra) != nil {
                throw .encryptedEntry(archive: archive, entry: name)
            }
            throw .lzfseEntry(archive: archive, entry: name)
        }
        if record.method != 0 && record.method != 8
            && zip_compression_method_supported(Int32(record.method), 0) == 0 {
            throw .unsupportedCompression(archive: archive, entry: name, method: record.method)
        }
        if record.method == 0 && record.compressedSize != record.uncompressedSize {
            throw .sizeMismatch(
                archive: archive, entry: name,
                reason: "stored entry with \(record.compressedSize) bytes of data declares \(record.uncompressedSize)")
        }
        if record.uncompressedSize >= limits.ratioCheckMinimumSize {
            let ratio = record.uncompressedSize / max(record.compressedSize, 1)
            if ratio > limits.maximumExpansionRatio {
                throw .expansionRatio(archive: archive, entry: name, ratio: ratio, limit: limits.maximumExpansionRatio)
            }
        }
    }

    /// Refuses repeated names, names that differ only in case, and entries beneath a file or a
    /// symlink.
    private static func checkNames(_ store: EntryStore, archive: String, clock: inout WorkClock) throws(ArchiveError) {
        if let duplicate = store.tree.firstDuplicate {
            throw .duplicateName(archive: archive, entry: "\(store.name(duplicate))")
        }
        if let (first, second) = try store.tree.firstCaseCollision(work: { units throws(ArchiveError) in try clock.tick(units) }) {
            throw .caseCollision(
                archive: archive, entry: EntryName.decode(store.tree.path(of: first)),
                other: EntryName.decode(store.tree.path(of: second)))
        }
        try checkParents(store, archive: archive, clock: &clock)
    }

    /// Entries' bytes must not overlap each other or the central directory.
    private static func checkSpans(
        _ store: EntryStore, directoryOffset: UInt64, archive: String, clock: inout WorkClock
    ) throws(ArchiveError) {
        let table = store.table
        let offsets = table.localHeaderOffsets
        // Usually the directory lists entries in file order; otherwise sort them by offset.
        let inOrder = (0..<max(table.count - 1, 0)).allSatisfy { offsets[$0] <= offsets[$0 + 1] }
        let ordered = inOrder ? [] : (0..<UInt32(table.count)).sorted { offsets[Int($0)] < offsets[Int($1)] }
        func entry(at position: Int) -> Int { inOrder ? position : Int(ordered[position]) }
        func name(_ index: Int) -> String { "\(store.name(index))" }
        for position in 0..<table.count {
            try clock.tick(1)
            let index = entry(at: position)
            let end = table.endOffset(index)
            if end > directoryOffset {
                throw .corrupt(archive: archive, reason: "entry '\(name(index))' runs into the central directory")
            }
            if position + 1 < table.count, offsets[entry(at: position + 1)] < end {
                throw .overlappingEntries(archive: archive, entry: name(index), other: name(entry(at: position + 1)))
            }
        }
    }

    /// Refuses entries beneath a file or a symlink, naming the entry and its nearest such parent.
    static func checkParents(_ store: EntryStore, archive: String, clock: inout WorkClock) throws(ArchiveError) {
        let tree = store.tree
        // Folders whose every ancestor is a folder, so each is walked through once.
        var clear = [Bool](repeating: false, count: tree.nodeCount)
        var walked: [UInt32] = []
        for index in 0..<store.table.count {
            var node = tree.parents[Int(tree.node(ofEntry: index))]
            var distance = 1
            walked.removeAll(keepingCapacity: true)
            while node != tree.root, node < PathTree.unused, !clear[Int(node)] {
                try clock.tick(1)
                if let parent = tree.entry(ofNode: node), store.table.kind(parent) != .directory {
                    let entry = store.name(index)
                    let parentPath = Self.prefix(of: entry, droppingComponents: distance)
                    if store.table.kind(parent) == .symlink {
                        throw .unsafeName(archive: archive, entry: "\(entry)", reason: "it lies beneath the symlink '\(parentPath)'")
                    }
                    throw .unsafeName(archive: archive, entry: "\(entry)", reason: "its parent '\(parentPath)' is a file")
                }
                walked.append(node)
                node = tree.parents[Int(node)]
                distance += 1
            }
            for node in walked { clear[Int(node)] = true }
        }
    }

    /// The entry's path without its last `count` components.
    private static func prefix(of name: EntryName, droppingComponents count: Int) -> String {
        var key = name.string
        if name.isDirectoryName { key.removeLast() }
        var end = key.utf8.endIndex
        for _ in 0..<count {
            guard let slash = key.utf8[key.utf8.startIndex..<end].lastIndex(of: UInt8(ascii: "/")) else { break }
            end = slash
        }
        return String(key[key.startIndex..<end])
    }

    private func readSymlinkTargets() throws(ArchiveError) -> [Int: String] {
        var targets: [Int: String] = [:]
        // Found in the table's kinds: most archives have few symlinks among many entries.
        let table = store.table
        for index in 0..<table.count where table.kind(index) == .symlink {
            let entry = ArchiveEntry(store: store, index: index)
            guard entry.uncompressedSize <= UInt64(Self.maximumSymlinkTarget) else {
                throw .symlinkInvalid(
                    archive: path, entry: "\(entry.name)",
                    reason: "its target is \(entry.uncompressedSize) bytes long (limit \(Self.maximumSymlinkTarget))")
            }
            let bytes = try read(entry, maximumSize: UInt64(Self.maximumSymlinkTarget))
            guard !bytes.isEmpty, !bytes.contains(0), let target = String(validating: bytes, as: UTF8.self) else {
                throw .symlinkInvalid(archive: path, entry: "\(entry.name)", reason: "its target is empty or not text")
            }
            targets[entry.index] = target
        }
        return targets
    }

    /// Resolves every symlink through the archive's other symlinks and refuses any whose final
    /// location leaves `root(entry)` (components of the folder it must stay in), is absolute,
    /// climbs above the archive root, or loops.
    package func checkSymlinks(root: (ArchiveEntry) -> [Substring]) throws(ArchiveError) {
        var clock = workClock()
        for index in symlinkTargets.keys.sorted() {
            guard let target = symlinkTargets[index] else { continue }
            let entry = ArchiveEntry(store: store, index: index)
            let resolved = try resolve(target, of: entry, clock: &clock)
            guard resolved.starts(with: root(entry)) else {
                throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
            }
        }
    }

    /// Where the file or folder at `path` really is: `path` itself, or, when it is a symlink, the
    /// location its target resolves to through the archive's other symlinks; nil when that
    /// location names nothing in the archive. (Targets that escape or loop were refused on open.)
    public func resolvingSymlinks(_ path: String) -> String? {
        guard let entry = entry(named: path) else { return nil }
        guard let target = symlinkTargets[entry.index] else { return path }
        var clock = workClock()
        guard let resolved = try? resolve(target, of: entry, clock: &clock) else { return nil }
        let location = resolved.joined(separator: "/")
        return self.entry(named: location) != nil || isFolder(location) ? location : nil
    }

    /// The path components `target`, the target of the symlink `entry`, leads to. Paths are
    /// walked in the path tree: a node, plus the components beyond it that name nothing in the
    /// archive.
    private func resolve(_ target: String, of entry: ArchiveEntry, clock: inout WorkClock) throws(ArchiveError) -> [Substring] {
        let tree = store.tree
        var node = tree.parents[Int(tree.node(ofEntry: entry.index))]
        var beyond: [Substring] = []
        var pending = ArraySlice(target.split(separator: "/", omittingEmptySubsequences: false))
        var hops = 0
        if target.hasPrefix("/") {
            throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
        }
        while let component = pending.popFirst() {
            try clock.tick(component.utf8.count + 1)
            if component.isEmpty || component == "." { continue }
            if component == ".." {
                if beyond.popLast() != nil { continue }
                guard node != tree.root else {
                    throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
                }
                node = tree.parents[Int(node)]
                continue
            }
            guard beyond.isEmpty, let child = tree.child(of: node, named: component.utf8) else {
                beyond.append(component)
                continue
            }
            guard let next = tree.entry(ofNode: child).flatMap({ symlinkTargets[$0] }) else {
                node = child
                continue
            }
            hops += 1
            guard hops <= Self.maximumSymlinkHops else {
                throw .symlinkInvalid(archive: path, entry: "\(entry.name)", reason: "it is part of a symlink loop")
            }
            guard !next.hasPrefix("/") else {
                throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
            }
            pending = ArraySlice(next.split(separator: "/", omittingEmptySubsequences: false)) + pending
        }
        return EntryName.decode(tree.path(of: node)).split(separator: "/") + beyond
    }
}

extension WorkClock {
    /// Counts `units` of work in the archive's own loops (records, names, folders, symlinks):
    /// `ARCHIVE_TIME_LIMIT` once the deadline has passed.
    public mutating func tick(_ units: Int) throws(ArchiveError) {
        if isExpired(after: units) { throw .timeLimit(archive: file, seconds: seconds) }
    }
}

/// A step of reading the central directory, in the order each record goes through them: the
/// first fault found in this order is the one reported, whichever thread found it.
struct DirectoryPosition: Comparable {
    enum Step: Int {
        /// Reading the record (this thread).
        case reading
        /// Its own fields (the other thread).
        case entryHeader
        /// The total of the sizes so far (this thread).
        case totalSize
        /// Its local header (the other thread).
        case localHeader
        /// Its name in the path tree (this thread).
        case pathIndex
    }

    var record = 0
    var step = Step.reading

    static func < (lhs: DirectoryPosition, rhs: DirectoryPosition) -> Bool {
        (lhs.record, lhs.step.rawValue) < (rhs.record, rhs.step.rawValue)
    }
}
