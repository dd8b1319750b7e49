import CSystemShims
import FormatSupport
import Foundation
import OutputFiles

/// Writes a new archive from an existing one plus edits, copying every unchanged entry's bytes
/// raw (local header, compressed data, data descriptor) with in-kernel copies of contiguous
/// runs, and its central-directory record unchanged except for the offset. Nothing is
/// decompressed or recompressed; added entries are deflated. The output is verified by reading
/// it back before it appears at its destination.
public enum ArchiveWriter {
    /// Reads a finished, unpublished output back; throws to abandon it. It gets a readable path
    /// and the input's limits, widened by what the repack added (so an input at a limit can
    /// still be wrapped).
    public typealias Verification = (_ path: String, _ limits: ArchiveLimits) throws -> Void

    /// Repacks `archive` into `output`.
    ///
    /// - Parameter verify: called with a readable path of the finished, unpublished output; throw
    ///   to abandon it (the default re-opens it as a `ZipArchive`).
    @discardableResult
    public static func repack(
        _ archive: ZipArchive, to output: String, edits: ArchiveEdits = ArchiveEdits(),
        options: RepackOptions = RepackOptions(), verify: ((String) throws -> Void)? = nil
    ) throws -> RepackSummary {
        try repack(archive, to: output, edits: edits, options: options, verifying: verify.map { verify in { path, _ in try verify(path) } })
    }

    /// Repacks `archive` into `output`, verified by `verifying` (see `Verification`).
    ///
    /// - Parameter early: a copy of this archive into this output started earlier (`EarlyCopy`);
    ///   what of it agrees with the repack is kept, the rest is written as usual.
    @discardableResult
    public static func repack(
        _ archive: ZipArchive, to output: String, edits: ArchiveEdits = ArchiveEdits(),
        options: RepackOptions = RepackOptions(), verifying: Verification?, continuing early: EarlyCopy? = nil
    ) throws -> RepackSummary {
        try refuseOverwritingInput(archive, output: output)
        let continued = early?.take(for: archive, destination: output)
        let out = try continued ?? AtomicOutputFile(destination: output)
        let summary = try write(
            archive, into: out, edits: edits, options: options, verifying: verifying, early: continued == nil ? nil : early)
        try out.commit(length: summary.outputSize, synchronize: options.synchronize)
        return summary
    }

    /// Like `repack`, but into an output the caller publishes (`commit`) or abandons; the result
    /// can be read back meanwhile through `out.readablePath`.
    public static func write(
        _ archive: ZipArchive, into out: AtomicOutputFile, edits: ArchiveEdits = ArchiveEdits(),
        options: RepackOptions = RepackOptions(), verify: ((String) throws -> Void)? = nil
    ) throws -> RepackSummary {
        try write(archive, into: out, edits: edits, options: options, verifying: verify.map { verify in { path, _ in try verify(path) } })
    }

    /// Like `repack`, verified by `verifying` (see `Verification`).
    public static func write(
        _ archive: ZipArchive, into out: AtomicOutputFile, edits: ArchiveEdits = ArchiveEdits(),
        options: RepackOptions = RepackOptions(), verifying: Verification?
    ) throws -> RepackSummary {
        try write(archive, into: out, edits: edits, options: options, verifying: verifying, early: nil)
    }

    private static func write(
        _ archive: ZipArchive, into out: AtomicOutputFile, edits: ArchiveEdits, options: RepackOptions,
        verifying: Verification?, early: EarlyCopy?
    ) throws -> RepackSummary {
        let plan = try RepackPlan(archive: archive, edits: edits)
        let timestamp = options.timestamp.unixTime(in: archive)

        var position: UInt64 = 0
        var newOffsets = [UInt64](repeating: 0, count: archive.store.table.count)

        // 1. Unchanged entries, in file order (usually the directory's), contiguous runs in one copy
        // each; an entry replaced in place is written where the old one was.
        var replacementRecords: [Int: [UInt8]] = [:]
        let ordered = plan.inFileOrder(archive)
        let steps = RepackPlan.steps(ordered, replacedInPlace: plan.replacedInPlace)
        // An early copy wrote runs where this repack puts them: the input's bytes at the same offsets
        // while the first run starts at the input's first byte, or where a forecast placed the runs
        // after a replacement. The copy stops (and its thread is joined) before anything is written.
        early?.finish(firstRunLength: steps.firstRunLength)
        var reused: UInt64 = 0
        // Replacements (re-signed binaries) are compressed ahead of their turn, on every core.
        var replacements = NewEntryEncoder.Lookahead(
            steps.compactMap { step in step.replacement.map { ($0.entry.index, $0.added) } },
            level: options.compressionLevel, destination: out.destination, archive: archive)
        for step in steps {
            switch step {
            case .run(let start, let end, let members):
                for member in members {
                    newOffsets[ordered[member].index] = position + (ordered[member].localHeaderOffset - start)
                }
                let length = end - start
                let done = early?.copied(inputOffset: start, outputOffset: position, length: length) ?? 0
                reused += done
                try copyRange(from: archive, offset: start + done, length: length - done, to: out, at: position + done)
                position += length
            case .replacement(let entry, let replacement):
                let written = try NewEntryEncoder.write(
                    replacement, encoded: try replacements.encoded(entry.index), at: position, to: out, unixTime: timestamp,
                    level: options.compressionLevel, checkLimits: archive.checkLimits)
                replacementRecords[entry.index] = written.centralRecord
                position = written.end
            }
        }
        try archive.checkLimits()

        let limits = archive.limits.admitting(plan.added)
        let length = try finish(
            out, at: position,
            copying: CopiedRecords(
                archive: archive, kept: ordered.sorted { $0.index < $1.index }, newOffsets: newOffsets,
                replacementRecords: replacementRecords),
            added: plan.added, comment: archive.comment, unixTime: timestamp, options: options,
            checkLimits: archive.checkLimits,
            verify: { path in
                if let verifying { try verifying(path, limits) } else { _ = try ZipArchive(path: path, limits: limits) }
            })
        return RepackSummary(
            output: out.destination, copiedEntries: plan.kept.count, addedEntries: plan.added.count + plan.replacedInPlace.count,
            removedEntries: plan.removedCount, outputSize: length, earlyCopiedBytes: reused)
    }

    /// Writes a new archive holding only `additions` (sorted by name, parent folders first).
    /// - Parameter clock: the deadline the writing must meet (`ARCHIVE_TIME_LIMIT`).
    @discardableResult
    public static func create(
        at output: String, additions: [ArchiveEdits.Addition], options: RepackOptions = RepackOptions(),
        clock: WorkClock = .unlimited, verify: ((String) throws -> Void)? = nil
    ) throws -> RepackSummary {
        let added = try RepackPlan.entries(for: additions).values.sorted { $0.name < $1.name }
        let timestamp = options.timestamp.unixTime(in: nil)
        let out = try AtomicOutputFile(destination: output)
        let length = try finish(
            out, at: 0, copying: nil, added: added, comment: [], unixTime: timestamp, options: options,
            checkLimits: {
                if clock.isPastDeadline { throw ArchiveError.timeLimit(archive: clock.file, seconds: clock.seconds) }
            },
            verify: verify ?? { path in _ = try ZipArchive(path: path) })
        try out.commit(length: length, synchronize: options.synchronize)
        return RepackSummary(output: output, copiedEntries: 0, addedEntries: added.count, removedEntries: 0, outputSize: length)
    }

    /// The records a repack copies: each kept entry's, in central-directory order, moved to its
    /// new offset.
    private struct CopiedRecords {
        var archive: ZipArchive
        /// In central-directory order.
        var kept: [ArchiveEntry]
        /// By entry index.
        var newOffsets: [UInt64]
        /// The central records of entries rewritten in place, by entry index.
        var replacementRecords: [Int: [UInt8]] = [:]
    }

    /// Writes the added entries after `start`, then the central directory (copied records first,
    /// streamed from the input's directory) and the end records, and verifies the result.
    /// Returns the length.
    private static func finish(
        _ out: AtomicOutputFile, at start: UInt64, copying copied: CopiedRecords?, added: [RepackPlan.Added],
        comment: [UInt8], unixTime: Int64, options: RepackOptions, checkLimits: () throws -> Void,
        verify: (String) throws -> Void
    ) throws -> UInt64 {
        let (addedRecords, directoryOffset) = try NewEntryEncoder.write(
            added, from: start, to: out, unixTime: unixTime, level: options.compressionLevel, checkLimits: checkLimits)
        var directory = BufferedOutput(out, at: directoryOffset)
        var kept: ArraySlice<ArchiveEntry> = []
        if let copied {
            var reader = copied.archive.centralDirectoryReader()
            kept = copied.kept[...]
            while let next = kept.first, let (record, _) = try reader.next() {
                guard reader.index - 1 == UInt64(next.index) else { continue }
                kept = kept.dropFirst()
                if let replacement = copied.replacementRecords[next.index] {
                    try directory.append(replacement)
                    continue
                }
                // The records are read again from the input: they must still be the ones checked.
                guard copied.archive.describes(next, as: record) else {
                    throw ArchiveError.unreadable(archive: copied.archive.path, reason: "the file changed while being copied")
                }
                do {
                    try directory.append(try ZipRecordWriter.relocated(record, to: copied.newOffsets[next.index]))
                } catch is ZipRecordWriter.RelocationError {
                    throw OutputError(path: out.destination, reason: "entry '\(next.name)' cannot be moved beyond 4 GiB")
                }
            }
        }
        if let copied, !kept.isEmpty {
            throw ArchiveError.unreadable(archive: copied.archive.path, reason: "the file changed while being copied")
        }
        for record in addedRecords { try directory.append(record) }
        let directorySize = directory.position - directoryOffset
        try directory.append(ZipRecordWriter.endRecords(
            entryCount: UInt64((copied?.kept.count ?? 0) + added.count), directoryOffset: directoryOffset,
            directorySize: directorySize, comment: comment))
        try directory.flush()
        let length = directory.position
        try out.setLength(length)
        try verify(out.readablePath)
        return length
    }

    /// Sequential writes gathered into large ones.
    private struct BufferedOutput {
        let out: AtomicOutputFile
        /// Output offset just past what was appended.
        private(set) var position: UInt64
        private var buffer: [UInt8] = []
        private var bufferStart: UInt64

        init(_ out: AtomicOutputFile, at offset: UInt64) {
            self.out = out
            self.position = offset
            self.bufferStart = offset
            buffer.reserveCapacity(Self.flushSize)
        }

        static let flushSize = 1 << 20

        mutating func append(_ bytes: [UInt8]) throws(OutputError) {
            buffer += bytes
            position += UInt64(bytes.count)
            if buffer.count >= Self.flushSize { try flush() }
        }

        mutating func flush() throws(OutputError) {
            try out.write(buffer, at: bufferStart)
            bufferStart = position
            buffer.removeAll(keepingCapacity: true)
        }
    }

    private static func refuseOverwritingInput(_ archive: ZipArchive, output: String) throws {
        if isInput(archive, output: output) { throw RepackRequestError(.outputIsInput(output)) }
    }

    /// Whether `output` names the file `archive` was opened from (through any link).
    static func isInput(_ archive: ZipArchive, output: String) -> Bool {
        var outputInfo = stat()
        var inputInfo = stat()
        guard FileSystem.stat(output, &outputInfo) == 0, fstat(archive.file.descriptor, &inputInfo) == 0 else { return false }
        return outputInfo.st_dev == inputInfo.st_dev && outputInfo.st_ino == inputInfo.st_ino
    }

    /// Bytes copied between two checks of the input's limits.
    static let copySlice: UInt64 = 256 << 20

    /// Copies `length` bytes of the input at `offset` to the output at `target`, in the kernel
    /// when possible (`copy_file_range`: a reflink or a page-cache copy), else through a buffer.
    private static func copyRange(
        from archive: ZipArchive, offset: UInt64, length: UInt64, to out: AtomicOutputFile, at target: UInt64
    ) throws {
        var inputOffset = Int64(offset)
        var outputOffset = Int64(target)
        var left = length
        while left > 0 {
            try archive.checkLimits()
            // In slices, so a copy of gigabytes still meets the time limit between them.
            let slice = min(left, copySlice)
            let copied = ipawrap_copy_file_range(archive.file.descriptor, &inputOffset, out.descriptor, &outputOffset, slice)
            if copied > 0 {
                left -= UInt64(copied)
                continue
            }
            if copied == 0 {
                throw ArchiveError.unreadable(archive: archive.path, reason: "the file shrank while being copied")
            }
            switch errno {
            case EINTR:
                continue
            case ENOSYS, EXDEV, EINVAL, EOPNOTSUPP, EBADF, EPERM:
                try bufferedCopy(from: archive, offset: UInt64(inputOffset), length: left, to: out, at: UInt64(outputOffset))
                return
            default:
                throw OutputError(path: out.destination, errno: errno)
            }
        }
    }

    private static func bufferedCopy(
        from archive: ZipArchive, offset: UInt64, length: UInt64, to out: AtomicOutputFile, at target: UInt64
    ) throws {
        var done: UInt64 = 0
        while done < length {
            try archive.checkLimits()
            let chunk = Int(min(length - done, 4 << 20))
            let bytes = try archive.file.read(offset: offset + done, count: chunk)
            try out.write(bytes, at: target + done)
            done += UInt64(chunk)
        }
    }
}

/// Which entries a repack keeps, and the entries it adds (sorted by name, parents first).
struct RepackPlan {
    struct Added {
        var name: EntryName
        var kind: ArchiveEntry.Kind
        /// Full `st_mode`.
        var mode: UInt16
        var source: Source
        /// Written without compression.
        var stored = false
        /// Whether the name is flagged UTF-8 (general purpose bit 11); nil: flagged when not ASCII.
        var flagsUTF8: Bool?
        /// `ArchiveEdits.Addition.revisesReplacedEntry`.
        var revises = false
        /// The deflated entry this one revises in place, whose stream its encoding may reuse.
        var basis: ArchiveEntry?
        /// `ArchiveEdits.Addition.deflatedPrefix`.
        var deflatedPrefix: ArchiveEdits.DeflatedPrefix?

        /// The general purpose flags the entry is written with.
        var nameFlags: UInt16 { (flagsUTF8 ?? !name.isASCII) ? 0x0800 : 0 }

        /// The path without a trailing slash: the key that files and folders share.
        var pathKey: String {
            let path = name.string
            return name.isDirectoryName ? String(path.dropLast()) : path
        }

        enum Source {
            case none
            case bytes([UInt8])
            /// `walked`: a file of an app folder, read only if it is still the file the walk saw.
            case file(path: String, size: UInt64, walked: WalkedFile? = nil)
        }
    }

    /// In central-directory order.
    var kept: [ArchiveEntry]
    var added: [Added]
    /// Additions written in place of the entry they replace (`ArchiveEdits.replacesInPlace`), by
    /// that entry's index.
    var replacedInPlace: [Int: Added] = [:]
    var removedCount: Int

    init(archive: ZipArchive, edits: ArchiveEdits) throws {
        var removed = Set<Int>()
        for removal in edits.removals {
            let matches = Self.entries(at: removal, in: archive)
            guard !matches.isEmpty else { throw RepackRequestError(.noSuchEntry(removal)) }
            removed.formUnion(matches)
        }

        var replaced = Set<Int>()
        var replacedInPlace: [Int: Added] = [:]
        var added = try Self.entries(for: edits.additions)
        // An addition replaces an existing entry of the same kind at the same path.
        for (key, item) in added {
            guard let existing = archive.entry(named: key), !removed.contains(existing.index) else { continue }
            guard existing.kind == item.kind || (existing.kind != .directory && item.kind != .directory) else {
                throw RepackRequestError(.nameConflict(key, reason: "'\(existing.name)' exists as a \(existing.kind)"))
            }
            if item.kind != .directory || existing.kind != .directory {
                removed.insert(existing.index)
                replaced.insert(existing.index)
                if edits.replacesInPlace && item.kind == .file && existing.kind == .file {
                    var item = item
                    // Only a deflated entry large enough to reuse is read again for its stream.
                    if item.revises && !item.stored && existing.method == 8
                        && existing.uncompressedSize >= UInt64(DeflateSplice.minimumReuse)
                    {
                        item.basis = existing
                    }
                    replacedInPlace[existing.index] = item
                    added[key] = nil
                }
            } else {
                added[key] = nil  // the folder is already there
            }
        }
        // Parents must be folders; missing ones are added as Apple's tools write them.
        let usesFolderEntries = archive.entries.contains { $0.kind == .directory }
        for key in Array(added.keys) {
            var parent = key
            while let slash = parent.lastIndex(of: "/") {
                parent = String(parent[..<slash])
                if let existing = archive.entry(named: parent), !removed.contains(existing.index) {
                    guard existing.kind == .directory else {
                        throw RepackRequestError(.nameConflict(key, reason: "its parent '\(parent)' is a \(existing.kind)"))
                    }
                    continue
                }
                if let item = added[parent] {
                    guard item.kind == .directory else {
                        throw RepackRequestError(.nameConflict(key, reason: "its parent '\(parent)' is added as a \(item.kind)"))
                    }
                    continue
                }
                if usesFolderEntries {
                    added[parent] = Added(name: EntryName(parent + "/"), kind: .directory, mode: 0o040755, source: .none)
                }
            }
        }
        // Added names follow the UTF-8 flag convention of the entries they sit beside, so that no
        // extractor splits one folder into two (Finder zips store UTF-8 names without the flag).
        var conventions = NameConventions(archive: archive)
        for (key, item) in added where !item.name.isASCII {
            added[key]?.flagsUTF8 = conventions.flagsUTF8(beside: key)
        }
        for (index, item) in replacedInPlace where !item.name.isASCII {
            replacedInPlace[index]?.flagsUTF8 = archive.entries[index].flags & 0x0800 != 0
        }
        self.kept = archive.entries.filter { !removed.contains($0.index) }
        self.added = added.values.sorted { $0.name < $1.name }
        self.replacedInPlace = replacedInPlace
        self.removedCount = removed.subtracting(replaced).count
    }

    /// The kept entries and those replaced in place, in the order of their local headers (usually
    /// the directory's): the order a repack writes them in.
    func inFileOrder(_ archive: ZipArchive) -> [ArchiveEntry] {
        let inPlace = kept + replacedInPlace.keys.map { archive.entries[$0] }
        return inPlace.sorted { ($0.localHeaderOffset, $0.index) < ($1.localHeaderOffset, $1.index) }
    }

    /// What a repack writes, in order.
    enum Step {
        /// Kept entries one after another in the input, `[start, end)`, copied in one go;
        /// `members`: their positions in the order the steps were made from.
        case run(start: UInt64, end: UInt64, members: Range<Int>)
        /// An entry replaced in place.
        case replacement(entry: ArchiveEntry, added: Added)

        var replacement: (entry: ArchiveEntry, added: Added)? {
            if case .replacement(let entry, let added) = self { (entry, added) } else { nil }
        }
    }

    /// The steps of a repack of `ordered` (`inFileOrder`): runs of contiguous kept entries, and
    /// the replacements between them.
    static func steps(_ ordered: [ArchiveEntry], replacedInPlace: [Int: Added]) -> [Step] {
        var steps: [Step] = []
        var run: (start: UInt64, end: UInt64, first: Int)?
        for (position, entry) in ordered.enumerated() {
            if let current = run, replacedInPlace[entry.index] != nil || current.end != entry.localHeaderOffset {
                steps.append(.run(start: current.start, end: current.end, members: current.first..<position))
                run = nil
            }
            if let replacement = replacedInPlace[entry.index] {
                steps.append(.replacement(entry: entry, added: replacement))
            } else if let current = run {
                run = (current.start, entry.endOffset, current.first)
            } else {
                run = (entry.localHeaderOffset, entry.endOffset, position)
            }
        }
        if let current = run { steps.append(.run(start: current.start, end: current.end, members: current.first..<ordered.count)) }
        return steps
    }

    /// The UTF-8 flag convention of an archive's non-ASCII folders, decided once per folder.
    struct NameConventions {
        let archive: ZipArchive
        private var byFolder: [String: Bool] = [:]

        init(archive: ZipArchive) {
            self.archive = archive
        }

        /// Whether a new entry at `path` is flagged UTF-8: as the deepest existing non-ASCII folder
        /// holding it is stored (its own entry, else the first entry inside it), so that both land
        /// in one folder whatever an extractor does with the flag; nil when no such folder exists
        /// (then a non-ASCII name is flagged, as the zip specification says).
        mutating func flagsUTF8(beside path: String) -> Bool? {
            var folder = path
            while let slash = folder.lastIndex(of: "/") {
                folder = String(folder[..<slash])
                // Every shorter prefix of an ASCII folder is ASCII too.
                guard !folder.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
                if let known = byFolder[folder] { return known }
                let tree = archive.store.tree
                guard let node = tree.node(atPath: folder.utf8) else { continue }
                let entry = archive.entry(named: folder) ?? tree.entries(within: node).first.map { archive.entries[$0] }
                guard let flags = entry?.flags else { continue }
                byFolder[folder] = flags & 0x0800 != 0
                return byFolder[folder]
            }
            return nil
        }
    }

    /// The entries for a list of additions (folders expanded), keyed by path; names are checked
    /// for safety and must not repeat.
    static func entries(for additions: [ArchiveEdits.Addition]) throws -> [String: Added] {
        var added: [String: Added] = [:]
        for addition in additions {
            for item in try expand(addition) {
                let length = item.name.bytes.count
                guard length <= Int(UInt16.max) else {
                    throw RepackRequestError(.nameTooLong("\(item.name)", length: length))
                }
                if let reason = item.name.unsafeReason {
                    throw RepackRequestError(.invalidName("\(item.name)", reason: reason))
                }
                // A name from the command line or a folder on disk that is not UTF-8 (its bytes
                // carried by `PathEncoding`): an IPA's names are UTF-8.
                guard PathEncoding.isUTF8(item.name.string) else {
                    throw RepackRequestError(.invalidName("\(item.name)", reason: "it is not UTF-8, which every name in an IPA must be"))
                }
                let key = item.pathKey
                guard added[key] == nil else { throw RepackRequestError(.duplicateAddition(key)) }
                added[key] = item
            }
        }
        return added
    }

    /// The entry at `path` and, for a folder, everything inside it.
    private static func entries(at path: String, in archive: ZipArchive) -> [Int] {
        var key = path
        while key.hasSuffix("/") { key.removeLast() }
        let tree = archive.store.tree
        guard !key.isEmpty, let node = tree.node(atPath: key.utf8) else { return [] }
        return tree.entries(within: node)
    }

    /// An addition as entries: a folder on disk becomes its whole tree.
    private static func expand(_ addition: ArchiveEdits.Addition) throws -> [Added] {
        var name = addition.name
        while name.hasSuffix("/") { name.removeLast() }
        var items = try expandContent(addition, as: name)
        for index in items.indices {
            if addition.stored { items[index].stored = true }
            items[index].revises = addition.revisesReplacedEntry
            items[index].deflatedPrefix = addition.deflatedPrefix
        }
        return items
    }

    private static func expandContent(_ addition: ArchiveEdits.Addition, as name: String) throws -> [Added] {
        switch addition.content {
        case .bytes(let bytes):
            guard bytes.count < 0xFFFF_FFFF else { throw RepackRequestError(.entryTooLarge(name)) }
            let executable = MachOMagic.matches(bytes.prefix(4))
            return [Added(name: EntryName(name), kind: .file,
                          mode: 0o100000 | (addition.permissions ?? (executable ? 0o755 : 0o644)), source: .bytes(bytes))]
        case .directory:
            return [Added(name: EntryName(name + "/"), kind: .directory,
                          mode: 0o040000 | (addition.permissions ?? 0o755), source: .none)]
        case .symlink(let target):
            return [Added(name: EntryName(name), kind: .symlink,
                          mode: 0o120000 | (addition.permissions ?? 0o755), source: .bytes(PathEncoding.bytes(target)))]
        case .file(let path):
            if let walked = addition.walked {
                // Already looked at (with lstat) by the walk; opened, never followed, when written.
                // Named by the file on disk, as `expandFile` names it: the user can find that.
                guard walked.size < 0xFFFF_FFFF else { throw RepackRequestError(.entryTooLarge(path)) }
                return [Added(name: EntryName(name), kind: .file, mode: 0o100000 | (addition.permissions ?? 0o644),
                              source: .file(path: path, size: walked.size, walked: walked))]
            }
            return try expandFile(path, as: name, permissions: addition.permissions, followingLinks: true)
        }
    }

    /// A file or folder on disk as entries. The path itself is followed if it is a symlink (as
    /// `cp -H` does); symlinks inside a folder stay symlinks.
    private static func expandFile(_ path: String, as name: String, permissions: UInt16?, followingLinks: Bool) throws -> [Added] {
        var info = stat()
        guard (followingLinks ? FileSystem.stat(path, &info) : FileSystem.lstat(path, &info)) == 0 else {
            throw RepackRequestError(.unreadableSource(path, reason: String(cString: strerror(errno))))
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let target: String
            do {
                target = try FileSystem.symlinkTarget(path)
            } catch {
                throw RepackRequestError(.unreadableSource(path, reason: error.description))
            }
            return [Added(name: EntryName(name), kind: .symlink, mode: 0o120755, source: .bytes(PathEncoding.bytes(target)))]
        case S_IFDIR:
            var result = [Added(name: EntryName(name + "/"), kind: .directory,
                                mode: 0o040000 | (permissions ?? 0o755), source: .none)]
            let children = try FileSystem.names(
                inFolder: path, unreadable: { RepackRequestError(.unreadableSource(path, reason: $0.description)) }
            ).sorted()
            for child in children {
                result += try expandFile(path + "/" + child, as: name + "/" + child, permissions: nil, followingLinks: false)
            }
            return result
        case S_IFREG:
            let size = UInt64(info.st_size)
            guard size < 0xFFFF_FFFF else { throw RepackRequestError(.entryTooLarge(path)) }
            let executable = MachOMagic.matches((try? FileByteSource(path: path).read(offset: 0, count: Int(min(size, 4)))) ?? [])
            return [Added(name: EntryName(name), kind: .file,
                          mode: 0o100000 | (permissions ?? (executable ? 0o755 : 0o644)), source: .file(path: path, size: size))]
        default:
            throw RepackRequestError(.unreadableSource(path, reason: "it is not a regular file, folder or symlink"))
        }
    }
}

extension [RepackPlan.Step] {
    /// The length of the run that starts the output when it also starts the input (offset 0);
    /// 0 when the output starts otherwise.
    var firstRunLength: UInt64 {
        if case .run(start: 0, let end, _)? = first { end } else { 0 }
    }
}

extension ArchiveLimits {
    /// These limits widened by what a repack adds, for reading its output back.
    func admitting(_ added: [RepackPlan.Added]) -> ArchiveLimits {
        var limits = self
        limits.maximumEntries += added.count
        let bytes = added.reduce(UInt64(0)) { total, item in total + item.source.size }
        let (sum, overflow) = limits.maximumTotalUncompressedSize.addingReportingOverflow(bytes)
        limits.maximumTotalUncompressedSize = overflow ? .max : sum
        return limits
    }
}

/// Recognises Mach-O files (thin or fat, either byte order), which get mode 0755 when added.
enum MachOMagic {
    static func matches<C: Collection<UInt8>>(_ prefix: C) -> Bool {
        guard prefix.count >= 4 else { return false }
        let bytes = Array(prefix.prefix(4))
        let big = UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
        return [0xFEED_FACE, 0xFEED_FACF, 0xCEFA_EDFE, 0xCFFA_EDFE, 0xCAFE_BABE, 0xCAFE_BABF].contains(big)
    }
}
