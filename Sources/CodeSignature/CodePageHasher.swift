import Dispatch
import FormatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hashes code pages as a CodeDirectory's code slots hold them: one digest per `pageSize` bytes,
/// the last page short, for one or several hash types in a single pass over the bytes.
///
/// Bytes arrive in any chunks (`update`), so a slice can be hashed while it is inflated from a
/// zip entry; `hashPages(of:…)` reads a `ByteSource` in 1 MiB chunks. With `allowsConcurrency`,
/// large chunks are split across the processor's cores (`DispatchQueue.concurrentPerform`); the
/// result is the same whichever way the work is divided. It is off by default: one core hashes
/// SHA-256 pages at about 1 GB/s, faster than a zip entry inflates, so callers that already work
/// on several entries at once gain nothing from it (`ipawrap-bench pagehash` measures both).
public struct CodePageHasher {
    /// Chunks of at least this many whole pages are hashed on several threads.
    public static let parallelThresholdPages = 64

    public let hashTypes: [HashType]
    /// Bytes per page; nil hashes everything as one page (`pageSizeLog2` 0).
    public let pageSize: Int?
    /// Whether big chunks may use several threads (for one large binary hashed on its own).
    public var allowsConcurrency: Bool

    private var pending: [UInt8] = []
    private var storages: [[UInt8]]
    private var whole: [HashType.Hasher]
    private var totalBytes: UInt64 = 0

    /// Throws for a hash type this reader cannot compute or a page size over 2^30.
    public init(pageSizeLog2: UInt8, hashTypes: [HashType], allowsConcurrency: Bool = false) throws(CodeSignatureError) {
        var hashers: [HashType.Hasher] = []
        for type in hashTypes {
            guard let hasher = HashType.Hasher(type) else {
                throw CodeSignatureError(.codeDirectory, "the hash type \(type) is not one this signer can compute")
            }
            hashers.append(hasher)
        }
        guard pageSizeLog2 <= 30 else {
            throw CodeSignatureError(.codeDirectory, "the page size 2^\(pageSizeLog2) is too large")
        }
        self.hashTypes = hashTypes
        pageSize = pageSizeLog2 == 0 ? nil : 1 << Int(pageSizeLog2)
        self.allowsConcurrency = allowsConcurrency
        storages = Array(repeating: [], count: hashTypes.count)
        whole = hashers
    }

    /// Adds the next bytes of the code.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalBytes += UInt64(bytes.count)
        guard let pageSize else {
            for index in whole.indices { whole[index].update(bufferPointer: bytes) }
            return
        }
        var rest = bytes[...]
        if !pending.isEmpty {
            let take = min(pageSize - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            guard pending.count == pageSize else { return }
            let page = pending
            pending.removeAll(keepingCapacity: true)
            page.withUnsafeBytes { hashWholePages(UnsafeRawBufferPointer($0)) }
        }
        let wholeBytes = rest.count / pageSize * pageSize
        if wholeBytes > 0 {
            hashWholePages(UnsafeRawBufferPointer(rebasing: rest.prefix(wholeBytes)))
        }
        pending.append(contentsOf: rest.dropFirst(wholeBytes))
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The hashes for each type, in `hashTypes` order; the last, short page is hashed here.
    public mutating func finalize() -> [HashArray] {
        guard pageSize != nil else {
            return zip(hashTypes, whole).map { type, hasher in
                HashArray(hashSize: type.digestSize ?? 1, storage: totalBytes == 0 ? [] : hasher.finalize())
            }
        }
        if !pending.isEmpty {
            let page = pending
            pending.removeAll()
            page.withUnsafeBytes { hashWholePages($0, lastPageSize: page.count) }
        }
        return zip(hashTypes, storages).map { HashArray(hashSize: $0.digestSize ?? 1, storage: $1) }
    }

    /// Hashes `bytes`, a whole number of pages (or one short last page of `lastPageSize`).
    private mutating func hashWholePages(_ bytes: UnsafeRawBufferPointer, lastPageSize: Int? = nil) {
        let pageSize = lastPageSize ?? (self.pageSize ?? bytes.count)
        let pages = bytes.count / pageSize
        let workers =
            allowsConcurrency && pages >= Self.parallelThresholdPages
            ? min(System.activeProcessorCount, pages / (Self.parallelThresholdPages / 2)) : 1
        // One buffer holds every type's hashes, type after type.
        let sizes = hashTypes.map { $0.digestSize ?? 1 }
        var output = [UInt8](repeating: 0, count: pages * sizes.reduce(0, +))
        let hashTypes = self.hashTypes
        output.withUnsafeMutableBytes { buffer in
            var targets: [UnsafeMutableRawBufferPointer] = []
            var at = 0
            for size in sizes {
                targets.append(UnsafeMutableRawBufferPointer(rebasing: buffer[at..<(at + pages * size)]))
                at += pages * size
            }
            let job = PageJob(
                input: bytes, outputs: targets, hashTypes: hashTypes, pageSize: pageSize, pages: pages,
                pagesPerWorker: (pages + workers - 1) / workers)
            if workers > 1 {
                DispatchQueue.concurrentPerform(iterations: workers) { job.run(worker: $0) }
            } else {
                job.run(worker: 0)
            }
        }
        var at = 0
        for (index, size) in sizes.enumerated() {
            storages[index].append(contentsOf: output[at..<(at + pages * size)])
            at += pages * size
        }
    }
}

/// One call's pages, split into runs that worker threads hash into disjoint ranges of the
/// outputs. The pointers stay valid for the whole `concurrentPerform`, which is why the job may
/// cross threads.
private struct PageJob: @unchecked Sendable {
    let input: UnsafeRawBufferPointer
    let outputs: [UnsafeMutableRawBufferPointer]
    let hashTypes: [HashType]
    let pageSize: Int
    let pages: Int
    let pagesPerWorker: Int

    func run(worker: Int) {
        let first = worker * pagesPerWorker
        let last = min(pages, first + pagesPerWorker)
        guard first < last else { return }
        for page in first..<last {
            let start = page * pageSize
            let pageBytes = UnsafeRawBufferPointer(rebasing: input[start..<(start + pageSize)])
            for (index, type) in hashTypes.enumerated() {
                guard var hasher = HashType.Hasher(type) else { continue }
                hasher.update(bufferPointer: pageBytes)
                let digest = hasher.finalize()
                let at = page * digest.count
                UnsafeMutableRawBufferPointer(rebasing: outputs[index][at..<(at + digest.count)]).copyBytes(from: digest)
            }
        }
    }
}

enum System {
    static var activeProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

extension CodePageHasher {
    /// Hashes `length` bytes of `source` from `offset` in 1 MiB chunks. Errors reading the source
    /// pass through.
    public static func hashPages<Source: ByteSource>(
        of source: inout Source, offset: UInt64, length: UInt64, pageSizeLog2: UInt8, hashTypes: [HashType],
        allowsConcurrency: Bool = false
    ) throws -> [HashArray] {
        guard offset <= source.size, length <= source.size - offset else {
            throw CodeSignatureError(
                .codeDirectory, "the code range (offset \(offset), \(length) bytes) lies outside the \(source.size)-byte input")
        }
        var hasher = try CodePageHasher(
            pageSizeLog2: pageSizeLog2, hashTypes: hashTypes, allowsConcurrency: allowsConcurrency)
        let chunk = UInt64(max(1 << 20, hasher.pageSize ?? 0))
        var done: UInt64 = 0
        while done < length {
            let count = Int(min(chunk, length - done))
            hasher.update(try source.read(offset: offset + done, count: count))
            done += UInt64(count)
        }
        return hasher.finalize()
    }
}
