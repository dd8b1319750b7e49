import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import Zip

/// What one worker computes from one archive entry while it inflates it, once.
public enum HashJob: Sendable {
    /// A sealed resource: its digests of these types.
    case digest(path: String, types: [HashType])
    /// A signed Mach-O: its headers, each slice's signature and page hashes.
    case machO(path: String)

    public var path: String {
        switch self {
        case .digest(let path, _), .machO(let path): path
        }
    }
}

/// One slice of a Mach-O as read while streaming it.
package struct SliceResult: Sendable {
    package let architecture: String
    /// Nil when the slice has no `LC_CODE_SIGNATURE`.
    package let signature: EmbeddedSignature?
    /// Why the signature could not be read (hostile or broken), with its code.
    package let problem: String?
    /// For each CodeDirectory of `signature`, in order: the code pages whose hash differs (an
    /// empty list when every page holds), plus a message when the page count itself differs.
    package let pageMismatches: [[Int]]
    package let pageCountProblems: [String?]
    /// Where the signature begins in the slice (`LC_CODE_SIGNATURE`'s `dataoff`): the code limit
    /// every CodeDirectory must have.
    package var signatureOffset: UInt64?
    /// Its architecture and platform, for the install rules.
    package var executableSlice: ExecutableSlice?
}

/// What was learned from one entry.
enum HashResult: Sendable {
    case digests([HashType: [UInt8]])
    /// Headers read; `problem` when the file is not a readable Mach-O.
    case machO(slices: [SliceResult], problem: String?)
}

/// Runs hash jobs on both cores through `ParallelEntryWork` (largest entries first), so inflating
/// and hashing overlap on two entries at once. Nothing is written to disk; a Mach-O is inflated
/// once, its pages hashed on the fly (4 KiB pages; SHA-1 and SHA-256, or only the types its
/// CodeDirectories use when it is stored and they can be read first; any other layout or type is
/// hashed again from the entry).
/// `Signing` hashes the resources it seals with the same jobs.
public enum EntryHashing {
    /// The page layout hashed while streaming.
    static let streamedPageSizeLog2: UInt8 = 12

    /// What the jobs computed, by archive path.
    public struct Computed: Sendable {
        public var digests: [String: [HashType: [UInt8]]] = [:]
        package var machOs: [String: (slices: [SliceResult], problem: String?)] = [:]
    }

    public static func run(_ jobs: [HashJob], archive: ZipArchive, workers: Int) throws -> Computed {
        let results = try ParallelEntryWork.run(jobs, archive: archive, workers: workers) { job, zip in
            try perform(job, in: zip)
        }
        var computed = Computed()
        for (job, result) in Swift.zip(jobs, results) {
            switch result {
            case .digests(let digests): computed.digests[job.path] = digests
            case .machO(let slices, let problem): computed.machOs[job.path] = (slices, problem)
            }
        }
        return computed
    }

    static func perform(_ job: HashJob, in zip: ZipArchive) throws -> HashResult {
        let entry = try zip.requiredEntry(named: job.path)
        switch job {
        case .digest(_, let types):
            var hashers = types.compactMap { HashType.Hasher($0) }
            try zip.stream(entry, chunkSize: 1 << 18) { chunk in
                for index in hashers.indices { hashers[index].update(bufferPointer: chunk) }
            }
            var digests: [HashType: [UInt8]] = [:]
            for (type, hasher) in Swift.zip(types, hashers) { digests[type] = hasher.finalize() }
            return .digests(digests)
        case .machO:
            return try hashMachO(entry, in: zip)
        }
    }

    /// Where one slice's code and signature lie in the file, and what streaming gathered.
    private struct SlicePlan {
        let slice: MachOSlice
        let code: Range<UInt64>
        let signatureRange: Range<UInt64>
        /// Hashed while streaming, in `hasher`'s order.
        let hashTypes: [HashType]
        var hasher: CodePageHasher
        var signatureBytes: [UInt8] = []
    }

    /// The hash types to compute while a slice streams: those of its CodeDirectories when the
    /// entry is stored (its signature is read first, in place); else SHA-1 and SHA-256, what iOS
    /// signers write (Apple's SHA-256 alone from iOS 11, others both whatever the target): reading
    /// a deflated entry's signature first would inflate it twice.
    static func streamedHashTypes(_ slice: MachOSlice, of entry: ArchiveEntry, in zip: ZipArchive) -> [HashType] {
        var source = zip.byteSource(for: entry)
        if entry.method == 0, let signature = try? slice.readCodeSignature(from: &source) {
            let types = signature.codeDirectories.map(\.hashType).filter(\.isSupported)
            if !types.isEmpty { return Array(Set(types)).sorted() }
        }
        return [.sha1, .sha256]
    }

    private static func hashMachO(_ entry: ArchiveEntry, in zip: ZipArchive) throws -> HashResult {
        var source = zip.byteSource(for: entry)
        let file: MachOFile
        do {
            file = try MachOFile(reading: &source, clock: zip.workClock())
        } catch let error as ArchiveError {
            throw error
        } catch {
            return .machO(slices: [], problem: describe(error))
        }
        var plans: [SlicePlan?] = []
        for slice in file.slices {
            guard let range = slice.codeSignatureRange, Int(range.size) <= MachOSlice.maximumCodeSignatureSize,
                UInt64(range.offset) <= slice.size, UInt64(range.size) <= slice.size - UInt64(range.offset)
            else {
                plans.append(nil)
                continue
            }
            let start = slice.offset + UInt64(range.offset)
            let types = streamedHashTypes(slice, of: entry, in: zip)
            plans.append(SlicePlan(
                slice: slice, code: slice.offset..<start, signatureRange: start..<(start + UInt64(range.size)), hashTypes: types,
                hasher: try CodePageHasher(pageSizeLog2: streamedPageSizeLog2, hashTypes: types)))
        }
        var position: UInt64 = 0
        try zip.stream(entry, chunkSize: 1 << 20) { chunk in
            let chunkRange = position..<(position + UInt64(chunk.count))
            for index in plans.indices {
                guard var plan = plans[index] else { continue }
                let code = plan.code.clamped(to: chunkRange)
                if !code.isEmpty {
                    plan.hasher.update(UnsafeRawBufferPointer(rebasing: chunk[Int(code.lowerBound - position)..<Int(code.upperBound - position)]))
                }
                let signature = plan.signatureRange.clamped(to: chunkRange)
                if !signature.isEmpty {
                    plan.signatureBytes.append(
                        contentsOf: chunk[Int(signature.lowerBound - position)..<Int(signature.upperBound - position)])
                }
                plans[index] = plan
            }
            position = chunkRange.upperBound
        }
        var slices: [SliceResult] = []
        for (slice, plan) in Swift.zip(file.slices, plans) {
            let name = slice.architecture.name
            guard var plan else {
                if slice.codeSignatureRange == nil {
                    slices.append(SliceResult(architecture: name, signature: nil, problem: nil, pageMismatches: [], pageCountProblems: []))
                } else {
                    slices.append(SliceResult(
                        architecture: name, signature: nil,
                        problem: "MACHO_SIGNATURE: the code signature's range lies outside the slice or is too large",
                        pageMismatches: [], pageCountProblems: []))
                }
                continue
            }
            let signature: EmbeddedSignature
            do {
                signature = try EmbeddedSignature(bytes: plan.signatureBytes)
                for directory in signature.codeDirectories where directory.codeLimit > slice.size {
                    throw CodeSignatureError(
                        .codeDirectory, "the CodeDirectory's code limit \(directory.codeLimit) lies past the end of the \(slice.size)-byte slice")
                }
            } catch {
                slices.append(SliceResult(
                    architecture: name, signature: nil, problem: describe(error), pageMismatches: [], pageCountProblems: []))
                continue
            }
            let streamed = plan.hasher.finalize()
            var mismatches: [[Int]] = []
            var countProblems: [String?] = []
            for directory in signature.codeDirectories {
                let computed: HashArray
                if directory.pageSizeLog2 == streamedPageSizeLog2, directory.codeLimit == UInt64(plan.code.count),
                    let index = plan.hashTypes.firstIndex(of: directory.hashType)
                {
                    computed = streamed[index]
                } else if directory.hashType.isSupported, directory.pageSizeLog2 <= 30 {
                    // An unusual layout: hash this slice's code again, as the directory says.
                    var again = zip.byteSource(for: entry)
                    computed = try CodePageHasher.hashPages(
                        of: &again, offset: slice.offset, length: directory.codeLimit, pageSizeLog2: directory.pageSizeLog2,
                        hashTypes: [directory.hashType])[0]
                } else {
                    mismatches.append([])
                    countProblems.append("the hash type \(directory.hashType) cannot be computed")
                    continue
                }
                var differing: [Int] = []
                for page in 0..<min(computed.count, directory.codeSlotCount) where computed[page] != directory.codeSlots[page] {
                    differing.append(page)
                }
                mismatches.append(differing)
                countProblems.append(
                    computed.count == directory.codeSlotCount
                        ? nil : "it lists \(directory.codeSlotCount) code pages, the code has \(computed.count)")
            }
            slices.append(SliceResult(
                architecture: name, signature: signature, problem: nil, pageMismatches: mismatches, pageCountProblems: countProblems,
                signatureOffset: UInt64(plan.code.count)))
        }
        for (index, slice) in file.slices.enumerated() where index < slices.count {
            slices[index].executableSlice = ExecutableSlice(architecture: slice.architecture, platform: slice.buildVersion?.platform)
        }
        return .machO(slices: slices, problem: nil)
    }

    package static func describe(_ error: any Error) -> String {
        if let coded = error as? CodedError { return "\(coded.code): \(coded)" }
        return "\(error)"
    }
}
