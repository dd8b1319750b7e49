import CLibzip
import FormatSupport

/// A zip archive opened for reading and checked before anything else may use it.
///
/// Opening reads only the end records, the central directory and each local header; no entry is
/// extracted. The archive is refused (`ArchiveError`, exit 65) when it is not safe to extract or
/// would be read differently by different tools:
/// - unsafe names (absolute, `..`, `.` or empty components, backslashes, control bytes), names that
///   appear twice (also as NFC/NFD twins or as both a file and a folder), entries beneath a
///   symlink or a file;
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
    public let entries: [ArchiveEntry]
    /// The archive comment, raw.
    public let comment: [UInt8]
    public let limits: ArchiveLimits

    let records: [CentralDirectoryRecord]
    let centralDirectoryOffset: UInt64
    let file: FileByteSource
    private let handle: OpaquePointer
    private let indexByPath: [String: Int]
    /// Symlink path (no trailing slash) → target text.
    private var symlinkTargets: [String: String]
    /// When the work on this input must have ended (`limits.maximumSeconds` after opening).
    private let deadline: ContinuousClock.Instant
    /// The first resource limit this input hit. Readers that turn a failed read into a finding
    /// still leave it here, so `checkLimits()` refuses the input as a whole.
    public private(set) var exceededLimit: ArchiveError?

    /// Largest symlink target accepted (PATH_MAX on Darwin).
    static let maximumSymlinkTarget = 1024
    /// Symlinks followed while resolving one path (the kernel's ELOOP limit).
    static let maximumSymlinkHops = 40

    public init(path: String, limits: ArchiveLimits = .default) throws(ArchiveError) {
        self.path = path
        self.limits = limits
        self.deadline = Self.deadline(after: limits.maximumSeconds)
        do {
            self.file = try FileByteSource(path: path)
        } catch {
            throw .unreadable(archive: path, reason: error.reason)
        }
        self.fileSize = file.size

        let end = try EndOfCentralDirectory.read(from: file, archive: path)
        guard end.entryCount <= UInt64(limits.maximumEntries) else {
            throw .tooManyEntries(archive: path, count: end.entryCount, limit: limits.maximumEntries)
        }
        let directory: [UInt8]
        do {
            directory = try file.read(offset: end.centralDirectoryOffset, count: Int(end.centralDirectorySize))
        } catch {
            throw .unreadable(archive: path, reason: "\(error)")
        }
        let records = try CentralDirectoryRecord.readAll(directory, count: end.entryCount, archive: path)
        self.records = records
        self.comment = end.comment
        self.centralDirectoryOffset = end.centralDirectoryOffset

        var entries: [ArchiveEntry] = []
        entries.reserveCapacity(records.count)
        var totalSize: UInt64 = 0
        for (index, record) in records.enumerated() {
            if index % 4096 == 4095, ContinuousClock.now > deadline {
                throw .timeLimit(archive: path, seconds: limits.maximumSeconds)
            }
            let name = EntryName(bytes: record.name)
            try Self.checkEntryHeader(record, name: name, archive: path, limits: limits)
            let (sum, overflow) = totalSize.addingReportingOverflow(record.uncompressedSize)
            totalSize = overflow ? .max : sum
            guard totalSize <= limits.maximumTotalUncompressedSize else {
                // The message names what the whole archive declares, not the sum so far.
                let declared = records.reduce(UInt64(0)) { total, record in
                    let (sum, overflow) = total.addingReportingOverflow(record.uncompressedSize)
                    return overflow ? .max : sum
                }
                throw .totalSizeLimit(archive: path, total: declared, limit: limits.maximumTotalUncompressedSize)
            }
            let span = try LocalHeader.span(of: record, name: name, in: file, archive: path)
            let host = record.versionMadeBy >> 8
            let mode = ArchiveEntry.unixHosts.contains(host) ? UInt16(truncatingIfNeeded: record.externalAttributes >> 16) : 0
            let unixMode: UInt16? = mode == 0 ? nil : mode
            entries.append(ArchiveEntry(
                index: index, name: name, unixMode: unixMode, method: record.method, crc32: record.crc32,
                compressedSize: record.compressedSize, uncompressedSize: record.uncompressedSize,
                modified: DOSTimestamp(time: record.dosTime, date: record.dosDate), flags: record.flags,
                externalAttributes: record.externalAttributes, versionMadeBy: record.versionMadeBy,
                localHeaderOffset: record.localHeaderOffset, dataOffset: span.dataOffset, endOffset: span.end))
        }
        try Self.checkSpans(entries, directoryOffset: end.centralDirectoryOffset, archive: path)
        self.indexByPath = try Self.checkNames(entries, archive: path)
        self.entries = entries

        var errorCode: Int32 = 0
        guard let handle = zip_open(path, ZIP_RDONLY, &errorCode) else {
            throw .corrupt(archive: path, reason: "libzip cannot open it: \(Self.libzipMessage(errorCode))")
        }
        self.handle = handle
        self.symlinkTargets = [:]
        // From here `self` is fully initialised; on failure deinit closes libzip's handle.
        try crossCheckWithLibzip()
        self.symlinkTargets = try readSymlinkTargets()
        try checkSymlinks { _ in [] }
        try checkLimits()
    }

    deinit {
        zip_discard(handle)
    }

    // MARK: Lookup

    /// The entry with this path (a trailing slash is optional for folders). Names that differ
    /// only by Unicode normalization are the same path, as on Apple's file systems.
    public func entry(named name: String) -> ArchiveEntry? {
        var key = name
        if key.hasSuffix("/") { key.removeLast() }
        return indexByPath[key].map { entries[$0] }
    }

    /// The target of a symlink entry.
    public func symlinkTarget(of entry: ArchiveEntry) -> String? {
        entry.kind == .symlink ? symlinkTargets[entry.pathKey] : nil
    }

    // MARK: Reading

    /// The whole uncompressed content of an entry, refused when it declares more than
    /// `maximumSize` bytes (so a caller reading an Info.plist cannot be handed a gigabyte).
    public func read(_ entry: ArchiveEntry, maximumSize: UInt64) throws(ArchiveError) -> [UInt8] {
        try reserveMemory(entry.uncompressedSize, for: "entry '\(entry.name)'")
        guard entry.uncompressedSize <= maximumSize else {
            throw .entryTooLarge(archive: path, entry: "\(entry.name)", size: entry.uncompressedSize, limit: maximumSize)
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

    private static func deadline(after seconds: Double) -> ContinuousClock.Instant {
        // Far beyond any run (and beyond what Duration holds) counts as no limit.
        let bounded = seconds.isFinite ? min(max(seconds, 0), 1e9) : 1e9
        return ContinuousClock.now.advanced(by: .milliseconds(Int64(bounded * 1000)))
    }

    /// Streams an entry's uncompressed content in chunks, checking that it is exactly as long as
    /// declared (libzip checks the CRC at the end).
    public func stream(
        _ entry: ArchiveEntry, chunkSize: Int = 1 << 16, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws(ArchiveError) {
        let reader = try EntryStream(archive: self, entry: entry)
        var buffer = [UInt8](repeating: 0, count: max(1, chunkSize))
        while true {
            let count = try reader.read(into: &buffer)
            if count == 0 { break }
            do {
                try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            } catch let error as ArchiveError {
                throw error
            } catch {
                throw .dataError(archive: path, entry: "\(entry.name)", reason: "\(error)")
            }
        }
    }

    /// Random access to an entry's content for parsers that need only some ranges (Mach-O).
    public func byteSource(for entry: ArchiveEntry) -> ArchiveEntrySource {
        ArchiveEntrySource(archive: self, entry: entry)
    }

    func openLibzipEntry(_ entry: ArchiveEntry) throws(ArchiveError) -> OpaquePointer {
        guard let file = zip_fopen_index(handle, UInt64(entry.index), 0) else {
            let message = String(cString: zip_error_strerror(zip_get_error(handle)))
            throw .dataError(archive: path, entry: "\(entry.name)", reason: message)
        }
        return file
    }

    // MARK: Checks

    private static func checkEntryHeader(
        _ record: CentralDirectoryRecord, name: EntryName, archive: String, limits: ArchiveLimits
    ) throws(ArchiveError) {
        if let reason = name.unsafeReason {
            throw .unsafeName(archive: archive, entry: "\(name)", reason: reason)
        }
        // Bit 0: encrypted; bit 6: strong encryption; bit 13: masked local headers.
        if record.flags & 0x2041 != 0 {
            throw .encryptedEntry(archive: archive, entry: "\(name)")
        }
        if record.method == 99 {
            // WinZip AES marks itself with method 99 plus an 0x9901 extra field; Apple's LZFSE
            // entries use 99 without it.
            if ExtraField.find(ZipSignature.aesExtraID, in: record.extra) != nil {
                throw .encryptedEntry(archive: archive, entry: "\(name)")
            }
            throw .lzfseEntry(archive: archive, entry: "\(name)")
        }
        if record.method != 0 && record.method != 8
            && zip_compression_method_supported(Int32(record.method), 0) == 0 {
            throw .unsupportedCompression(archive: archive, entry: "\(name)", method: record.method)
        }
        if record.method == 0 && record.compressedSize != record.uncompressedSize {
            throw .sizeMismatch(
                archive: archive, entry: "\(name)",
                reason: "stored entry with \(record.compressedSize) bytes of data declares \(record.uncompressedSize)")
        }
        if record.uncompressedSize >= limits.ratioCheckMinimumSize {
            let ratio = record.uncompressedSize / max(record.compressedSize, 1)
            if ratio > limits.maximumExpansionRatio {
                throw .expansionRatio(archive: archive, entry: "\(name)", ratio: ratio, limit: limits.maximumExpansionRatio)
            }
        }
    }

    /// Entries' bytes must not overlap each other or the central directory.
    private static func checkSpans(
        _ entries: [ArchiveEntry], directoryOffset: UInt64, archive: String
    ) throws(ArchiveError) {
        let ordered = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (position, entry) in ordered.enumerated() {
            if entry.endOffset > directoryOffset {
                throw .corrupt(archive: archive, reason: "entry '\(entry.name)' runs into the central directory")
            }
            if position + 1 < ordered.count, ordered[position + 1].localHeaderOffset < entry.endOffset {
                throw .overlappingEntries(archive: archive, entry: "\(entry.name)", other: "\(ordered[position + 1].name)")
            }
        }
    }

    /// Refuses duplicate paths and paths beneath a file or a symlink; returns the path index.
    private static func checkNames(_ entries: [ArchiveEntry], archive: String) throws(ArchiveError) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(entries.count)
        for entry in entries {
            if index.updateValue(entry.index, forKey: entry.pathKey) != nil {
                throw .duplicateName(archive: archive, entry: "\(entry.name)")
            }
        }
        for entry in entries {
            let key = entry.pathKey
            var searchEnd = key.utf8.endIndex
            while let slash = key.utf8[key.utf8.startIndex..<searchEnd].lastIndex(of: UInt8(ascii: "/")) {
                let parent = String(key[key.startIndex..<slash])
                if let parentIndex = index[parent] {
                    switch entries[parentIndex].kind {
                    case .symlink:
                        throw .unsafeName(
                            archive: archive, entry: "\(entry.name)", reason: "it lies beneath the symlink '\(parent)'")
                    case .file:
                        throw .unsafeName(
                            archive: archive, entry: "\(entry.name)", reason: "its parent '\(parent)' is a file")
                    case .directory:
                        break
                    }
                }
                searchEnd = slash
            }
        }
        return index
    }

    private func crossCheckWithLibzip() throws(ArchiveError) {
        let count = zip_get_num_entries(handle, 0)
        guard count == Int64(entries.count) else {
            throw .corrupt(archive: path, reason: "libzip sees \(count) entries where the central directory lists \(entries.count)")
        }
        for entry in entries {
            guard let raw = zip_get_name(handle, UInt64(entry.index), ZIP_FL_ENC_RAW) else {
                throw .corrupt(archive: path, reason: "libzip cannot name entry \(entry.index)")
            }
            // libzip hands back a NUL-terminated copy; names with NUL bytes were refused earlier.
            let libzipName = Array(UnsafeBufferPointer(start: raw, count: Self.cStringLength(raw)))
            guard libzipName.elementsEqual(entry.name.bytes, by: { UInt8(bitPattern: $0) == $1 }) else {
                throw .corrupt(archive: path, reason: "libzip reads the name of entry \(entry.index) differently")
            }
        }
    }

    private func readSymlinkTargets() throws(ArchiveError) -> [String: String] {
        var targets: [String: String] = [:]
        for entry in entries where entry.kind == .symlink {
            guard entry.uncompressedSize <= UInt64(Self.maximumSymlinkTarget) else {
                throw .symlinkInvalid(
                    archive: path, entry: "\(entry.name)",
                    reason: "its target is \(entry.uncompressedSize) bytes long (limit \(Self.maximumSymlinkTarget))")
            }
            let bytes = try read(entry, maximumSize: UInt64(Self.maximumSymlinkTarget))
            guard !bytes.isEmpty, !bytes.contains(0), let target = String(validating: bytes, as: UTF8.self) else {
                throw .symlinkInvalid(archive: path, entry: "\(entry.name)", reason: "its target is empty or not text")
            }
            targets[entry.pathKey] = target
        }
        return targets
    }

    /// Resolves every symlink through the archive's other symlinks and refuses any whose final
    /// location leaves `root(entry)` (components of the folder it must stay in), is absolute,
    /// climbs above the archive root, or loops.
    func checkSymlinks(root: (ArchiveEntry) -> [Substring]) throws(ArchiveError) {
        for entry in entries where entry.kind == .symlink {
            guard let target = symlinkTargets[entry.pathKey] else { continue }
            let rootComponents = root(entry)
            var resolved = entry.pathKey.split(separator: "/")
            resolved.removeLast()
            var pending = ArraySlice(target.split(separator: "/", omittingEmptySubsequences: false))
            var hops = 0
            if target.hasPrefix("/") {
                throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
            }
            while let component = pending.popFirst() {
                if component.isEmpty || component == "." { continue }
                if component == ".." {
                    guard !resolved.isEmpty else {
                        throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
                    }
                    resolved.removeLast()
                    continue
                }
                resolved.append(component)
                if let next = symlinkTargets[resolved.joined(separator: "/")] {
                    hops += 1
                    guard hops <= Self.maximumSymlinkHops else {
                        throw .symlinkInvalid(archive: path, entry: "\(entry.name)", reason: "it is part of a symlink loop")
                    }
                    guard !next.hasPrefix("/") else {
                        throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
                    }
                    resolved.removeLast()
                    pending = ArraySlice(next.split(separator: "/", omittingEmptySubsequences: false)) + pending
                }
            }
            guard resolved.starts(with: rootComponents) else {
                throw .symlinkEscape(archive: path, entry: "\(entry.name)", target: target)
            }
        }
    }

    private static func cStringLength(_ pointer: UnsafePointer<CChar>) -> Int {
        var length = 0
        while pointer[length] != 0 { length += 1 }
        return length
    }

    static func libzipMessage(_ code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }
}
