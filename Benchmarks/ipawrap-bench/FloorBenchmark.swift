import CodeSignature
import Foundation
import Zip

/// The work no signer of an archive can skip, timed with ipawrap's own engines on one thread: every
/// entry read and inflated with its CRC checked (`ZipArchive.stream`: libdeflate, or zlib for what
/// streams), then SHA-1 and SHA-256 of every entry's content (`HashType.Hasher`, BoringSSL's SHA-NI
/// code), as `CodeResources` needs both for each file. Divided by the cores, it is the shortest a
/// `sign` or `wrap --sign` of that archive can take before writing a byte: the floor that issue 29's
/// targets are measured against (docs/performance.md).
enum FloorBenchmark: Benchmark {
    static let name = "floor"
    static let summary = "CPU time of inflating, CRC-checking and SHA-1 + SHA-256 hashing every entry of an IPA"

    static func run(_ arguments: [String]) throws {
        guard let path = arguments.first else {
            throw BenchmarkError("usage: ipawrap-bench floor IPA [ROUNDS]")
        }
        let rounds = arguments.dropFirst().first.flatMap(Int.init) ?? 3
        let archive = try ZipArchive(path: path)
        let files = archive.entries.filter { $0.kind == .file }
        var inflating: [Double] = []
        var hashing: [Double] = []
        var bytes: UInt64 = 0
        for _ in 0..<rounds {
            bytes = 0
            var inflateTime = 0.0
            var hashTime = 0.0
            for entry in files {
                // Inflated once on its own, then again with the hashers, so the hashing's share is
                // the difference (the content does not fit in the caches between the two passes).
                let start = cpuSeconds()
                try archive.stream(entry, chunkSize: 1 << 18) { bytes += UInt64($0.count) }
                let inflated = cpuSeconds()
                var hashers = [HashType.sha1, .sha256].compactMap { HashType.Hasher($0) }
                try archive.stream(entry, chunkSize: 1 << 18) { chunk in
                    for index in hashers.indices { hashers[index].update(bufferPointer: chunk) }
                }
                for hasher in hashers { _ = hasher.finalize() }
                let end = cpuSeconds()
                inflateTime += inflated - start
                hashTime += (end - inflated) - (inflated - start)
            }
            inflating.append(inflateTime)
            hashing.append(hashTime)
        }
        let inflate = inflating.sorted()[rounds / 2]
        let hash = hashing.sorted()[rounds / 2]
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print(String(format: "\(name): %@: %d entries, %.0f MB of content (medians of %d rounds, CPU seconds on one thread)",
            path, files.count, Double(bytes) / 1e6, rounds))
        print(String(format: "\(name): read, inflate and CRC-check: %.3f s", inflate))
        print(String(format: "\(name): SHA-1 + SHA-256: %.3f s", hash))
        print(String(format: "\(name): together %.3f s, on %d cores at best %.3f s (before any byte is written)",
            inflate + hash, cores, (inflate + hash) / Double(cores)))
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
