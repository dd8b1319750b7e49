import BundleHashing
import CodeSignature
import FormatSupport
import MachO
import Zip

/// The archive's files as signing sees them: every entry, with a wrap's edits applied and
/// signing's own changes (signed binaries, seals, profiles) laid over it, so a parent bundle
/// seals what its children became.
struct BundleTree {
    enum Node {
        case entry(ArchiveEntry)
        case bytes([UInt8])
        case symlink(String)
        case directory
    }

    enum Kind: Equatable {
        case file
        case symlink(String)
        case directory
    }

    /// Largest file read whole (Info.plist, a Mach-O header range is read through a source).
    static let maximumWholeRead: UInt64 = 64 << 20

    let archive: ZipArchive
    private var nodes: [String: Node] = [:]
    /// Every path, in byte order.
    private var sorted: [String] = []
    /// Paths signing rewrote.
    private var changed: Set<String> = []
    /// Rewritten paths whose new bytes revise the old (signed code), for the writer to reuse
    /// the old entry's compressed stream where they agree.
    private var revised: Set<String> = []
    /// The start of a revised file's stream, made while it was signed.
    private var deflatedPrefixes: [String: ArchiveEdits.DeflatedPrefix] = [:]

    init(archive: ZipArchive, edits: ArchiveEdits) throws {
        self.archive = archive
        var removed: [String] = []
        for removal in edits.removals {
            var key = removal
            while key.hasSuffix("/") { key.removeLast() }
            removed.append(key)
        }
        func isRemoved(_ path: String) -> Bool {
            removed.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        for entry in archive.entries {
            var path = entry.path
            while path.hasSuffix("/") { path.removeLast() }
            guard !path.isEmpty, !isRemoved(path) else { continue }
            switch entry.kind {
            case .file: nodes[path] = .entry(entry)
            case .directory: nodes[path] = .directory
            case .symlink: nodes[path] = .symlink(archive.symlinkTarget(of: entry) ?? "")
            }
        }
        for addition in edits.additions {
            var path = addition.name
            while path.hasSuffix("/") { path.removeLast() }
            switch addition.content {
            case .bytes(let bytes): nodes[path] = .bytes(bytes)
            case .directory: nodes[path] = .directory
            case .symlink(let target): nodes[path] = .symlink(target)
            case .file:
                // A wrap adds bytes only; a folder from disk would have to be read here.
                throw SigningError(
                    .executable, "signing cannot include \(path), which is added from a file on disk",
                    remedy: "sign the archive after it is written")
            }
        }
        sorted = nodes.keys.sorted { $0.precedesInUTF8Order($1) }
    }

    /// Paths that start with `prefix`, in byte order.
    func paths(under prefix: String) -> [String] {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].precedesInUTF8Order(prefix) { low = middle + 1 } else { high = middle }
        }
        var result: [String] = []
        while low < sorted.count, sorted[low].hasPrefix(prefix) {
            result.append(sorted[low])
            low += 1
        }
        return result
    }

    func kind(at path: String) -> Kind? {
        switch nodes[path] {
        case .entry, .bytes: .file
        case .symlink(let target): .symlink(target)
        case .directory: .directory
        case nil: nil
        }
    }

    func isFile(_ path: String) -> Bool { kind(at: path) == .file }

    /// Sets the file at `path` to `bytes`; `revising`: they are the old file re-signed, whose
    /// stream starts with `deflatedPrefix` when one was made (`ArchiveEdits.Addition.deflatedPrefix`).
    mutating func set(_ path: String, bytes: [UInt8], revising: Bool = false, deflatedPrefix: ArchiveEdits.DeflatedPrefix? = nil) {
        deflatedPrefixes[path] = deflatedPrefix
        if nodes[path] == nil {
            let index = sorted.partitioningIndex { !$0.precedesInUTF8Order(path) }
            sorted.insert(path, at: index)
        }
        nodes[path] = .bytes(bytes)
        changed.insert(path)
        if revising { revised.insert(path) } else { revised.remove(path) }
    }

    func source(at path: String) throws -> NodeSource {
        switch nodes[path] {
        case .entry(let entry): .entry(archive.byteSource(for: entry))
        case .bytes(let bytes): .memory(InMemoryByteSource(bytes))
        default: throw SigningError(.executable, "\(path) is not a file", remedy: "check the bundle's layout")
        }
    }

    func bytes(at path: String) throws -> [UInt8]? {
        switch nodes[path] {
        case .entry(let entry): try archive.read(entry, maximumSize: Self.maximumWholeRead)
        case .bytes(let bytes): bytes
        default: nil
        }
    }

    /// The file at `path` for a reader on another thread (nil when it is not a file).
    func detachedFile(at path: String) -> DetachedFile? {
        switch nodes[path] {
        case .entry: .entry(archive.reopening, path: path)
        case .bytes(let bytes): .bytes(bytes)
        default: nil
        }
    }

    /// The uncompressed size of the file at `path` when it is still the archive's entry (not
    /// rewritten by a wrap or by signing).
    func archiveEntrySize(at path: String) -> UInt64? {
        archiveEntry(at: path)?.uncompressedSize
    }

    /// The archive's entry at `path` while the file is still that entry.
    func archiveEntry(at path: String) -> ArchiveEntry? {
        if case .entry(let entry)? = nodes[path] { return entry }
        return nil
    }

    /// The Mach-O headers of the file at `path`, or nil when it is not Mach-O.
    func machO(at path: String) throws -> MachOFile? {
        var source = try source(at: path)
        return try Self.machO(from: &source, clock: archive.workClock())
    }

    /// The Mach-O headers of `source`, or nil when it is not Mach-O.
    static func machO(from source: inout NodeSource, clock: WorkClock) throws -> MachOFile? {
        // Eight bytes tell a fat header from a Java class file.
        guard source.size >= 8, MachOFile.isMachO(prefix: try source.read(offset: 0, count: 8)) else { return nil }
        return try MachOFile(reading: &source, clock: clock)
    }

    /// Computes the digests each request asks for, from the files' current contents.
    func digests(
        of requests: [(path: String, request: ResourceRequest)], workers: Int = 2, _ body: (String, [HashType: [UInt8]]) -> Void
    ) throws {
        func types(_ request: ResourceRequest) -> [HashType] {
            switch request.need {
            case .digests(let types), .nestedCode(let types): types
            }
        }
        // Archive entries are inflated and hashed on both cores, largest first; bytes signing
        // already holds (re-signed dylibs: megabytes) are hashed on both cores too.
        var entryJobs: [(path: String, types: [HashType], size: UInt64)] = []
        var byteJobs: [(path: String, bytes: [UInt8], types: [HashType])] = []
        for (path, request) in requests {
            switch nodes[path] {
            case .entry(let entry):
                entryJobs.append((path, types(request), entry.uncompressedSize))
            case .bytes(let bytes):
                byteJobs.append((path, bytes, types(request)))
            default:
                continue
            }
        }
        let heldJobs = byteJobs
        let held = try ConcurrentJobs.run(count: heldJobs.count, workers: workers, setUp: {}) { _, index in
            heldJobs[index].bytes.withUnsafeBytes { Self.digests(of: $0, types: heldJobs[index].types) }
        }
        for (job, digests) in zip(byteJobs, held) { body(job.path, digests) }
        entryJobs.sort { $0.size > $1.size }
        let computed = try EntryHashing.run(
            entryJobs.map { .digest(path: $0.path, types: $0.types) }, archive: archive, workers: workers)
        for job in entryJobs { body(job.path, computed.digests[job.path] ?? [:]) }
    }

    private static func digests(of bytes: UnsafeRawBufferPointer, types: [HashType]) -> [HashType: [UInt8]] {
        var hashers = types.compactMap { HashType.Hasher($0) }
        for index in hashers.indices { hashers[index].update(bufferPointer: bytes) }
        return Dictionary(uniqueKeysWithValues: zip(types, hashers.map { $0.finalize() }))
    }

    /// `original` with every changed file added (replacing the entry, keeping its permissions
    /// and whether it was stored), and the original additions carrying their new contents.
    func edits(keeping original: ArchiveEdits) -> ArchiveEdits {
        var additions: [ArchiveEdits.Addition] = []
        var added = Set<String>()
        for var addition in original.additions {
            var path = addition.name
            while path.hasSuffix("/") { path.removeLast() }
            if changed.contains(path), case .bytes(let bytes)? = nodes[path] { addition.content = .bytes(bytes) }
            additions.append(addition)
            added.insert(path)
        }
        for path in changed.sorted() where !added.contains(path) {
            guard case .bytes(let bytes)? = nodes[path] else { continue }
            let existing = archive.entry(named: path)
            // An entry deflate did not shrink is stored (the encoder would store it after trying).
            var addition = ArchiveEdits.Addition(
                name: path, content: .bytes(bytes), permissions: existing?.permissions,
                stored: existing?.deflateDidNotShrink ?? false, revisesReplacedEntry: revised.contains(path))
            addition.deflatedPrefix = deflatedPrefixes[path]
            additions.append(addition)
        }
        return ArchiveEdits(additions: additions, removals: original.removals, replacesInPlace: true)
    }
}

/// A file of the tree another thread reads: the archive's entry, which that thread opens again
/// (a `ZipArchive` is one thread's), or the bytes signing or a wrap gave it.
enum DetachedFile: Sendable {
    case entry(ZipArchive.Reopening, path: String)
    case bytes([UInt8])

    /// A source of the file's bytes on the calling thread, and the clock of the work on it.
    func open(clock: WorkClock) throws -> (NodeSource, WorkClock) {
        switch self {
        case .entry(let reopening, let path):
            let zip = try reopening.open()
            return (.entry(zip.byteSource(for: try zip.requiredEntry(named: path))), zip.workClock())
        case .bytes(let bytes):
            return (.memory(InMemoryByteSource(bytes)), clock)
        }
    }
}

/// An entry's or a rewritten file's bytes.
enum NodeSource: ByteSource {
    case entry(ArchiveEntrySource)
    case memory(InMemoryByteSource)

    var size: UInt64 {
        switch self {
        case .entry(let source): source.size
        case .memory(let source): source.size
        }
    }

    mutating func read(offset: UInt64, count: Int) throws -> [UInt8] {
        switch self {
        case .entry(let source): return try source.read(offset: offset, count: count)
        case .memory(let source): return try source.read(offset: offset, count: count)
        }
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for an array partitioned by it.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
