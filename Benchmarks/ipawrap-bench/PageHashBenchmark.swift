import CodeSignature
import Foundation

/// Hashing a 64 MiB slice into 4 KiB code pages, as signing and verifying do for every binary:
/// SHA-256 alone (current iOS) and SHA-1 with SHA-256 (minimum OS before 11), on one thread and
/// with large chunks split across the cores. Reports MB/s, and whether the cores pay off.
enum PageHashBenchmark: Benchmark {
    static let name = "pagehash"
    static let summary = "code-page hashing of a 64 MiB slice, one thread vs all cores"

    static func run(_ arguments: [String]) throws {
        let iterations = arguments.first.flatMap(Int.init) ?? 7
        let size = 64 << 20
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<size).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for types in [[HashType.sha256], [.sha1, .sha256]] {
            var results: [Bool: Timing] = [:]
            for concurrent in [false, true] {
                results[concurrent] = try Timing.measure(iterations: iterations) {
                    var hasher = try CodePageHasher(pageSizeLog2: 12, hashTypes: types, allowsConcurrency: concurrent)
                    // Fed as a zip entry's inflater or the source reader feeds it: 1 MiB at a time.
                    var offset = 0
                    while offset < size {
                        bytes[offset..<min(size, offset + (1 << 20))].withUnsafeBytes { hasher.update($0) }
                        offset += 1 << 20
                    }
                    _ = hasher.finalize()
                }
            }
            let names = types.map(\.name).joined(separator: "+")
            for (concurrent, label) in [(false, "one thread"), (true, "all cores ")] {
                guard let timing = results[concurrent] else { continue }
                let rate = Double(size) / timing.median / 1e6
                print(String(format: "\(name): %@ %@: %.0f MB/s (%@)", names, label, rate, timing.description))
            }
            if let one = results[false], let all = results[true] {
                print(String(format: "\(name): %@ speed-up on %d cores: %.2fx", names, ProcessInfo.processInfo.activeProcessorCount, one.median / all.median))
            }
        }
    }
}
