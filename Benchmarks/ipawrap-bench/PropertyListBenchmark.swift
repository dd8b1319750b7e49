import Foundation
import PropertyList

/// Parses a large binary and a large XML property list with our readers and with Foundation's
/// `PropertyListSerialization` on the same bytes, and prints the ratios.
///
/// The document imitates a big app's CodeResources: `files` (path → SHA-1 data), `files2`
/// (path → {hash, hash2, optional}), `rules`, plus arrays of numbers, reals, dates and nested
/// dictionaries. Arguments: `[FILES] [ITERATIONS]` (defaults 40000 and 5); `--ours-only` skips
/// Foundation and writing, for profiling our readers.
enum PropertyListBenchmark: Benchmark {
    static let name = "plist"
    static let summary = "property list parsing against Foundation's PropertyListSerialization"

    static func run(_ arguments: [String]) throws {
        let oursOnly = arguments.contains("--ours-only")
        let numbers = arguments.filter { !$0.hasPrefix("--") }
        let fileCount = numbers.first.flatMap(Int.init) ?? 40_000
        let iterations = numbers.dropFirst().first.flatMap(Int.init) ?? 5
        let document = makeDocument(files: fileCount)
        let binary = try BinaryPropertyList.encode(document)
        let xml = try XMLPropertyList.encode(document)
        print("plist: CodeResources-like document with \(fileCount) files, \(iterations) runs each\n")
        if oursOnly {
            for (label, bytes) in [("binary", binary), ("XML", xml)] {
                print("\(label): \(try Timing.measure(iterations: iterations) { _ = try PropertyList(bytes: bytes) })")
            }
            return
        }

        for (label, bytes) in [("binary", binary), ("XML", xml)] {
            let data = Data(bytes)
            // Both readers must agree before their speed means anything.
            let ours = try PropertyList(bytes: bytes).root
            guard case .dictionary(let root) = ours, root.count == 5,
                let theirs = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
                theirs.count == 5
            else {
                throw BenchmarkFailure(message: "readers disagree on the \(label) document")
            }
            let oursTiming = try Timing.measure(iterations: iterations) {
                _ = try PropertyList(bytes: bytes)
            }
            let foundationTiming = try Timing.measure(iterations: iterations) {
                _ = try PropertyListSerialization.propertyList(from: data, format: nil)
            }
            let megabytes = Double(bytes.count) / 1_048_576
            print(String(format: "%@ (%.1f MB)", label, megabytes))
            print("  ipawrap     \(oursTiming)")
            print("  Foundation  \(foundationTiming)")
            print(String(format: "  ratio       %.1fx faster (median), %.0f MB/s\n",
                         foundationTiming.median / max(oursTiming.median, 1e-9), megabytes / max(oursTiming.median, 1e-9)))
        }

        let writeBinary = try Timing.measure(iterations: iterations) { _ = try BinaryPropertyList.encode(document) }
        let writeXML = try Timing.measure(iterations: iterations) { _ = try XMLPropertyList.encode(document) }
        print("writing (ours)")
        print("  binary      \(writeBinary)")
        print("  XML         \(writeXML)")
    }

    struct BenchmarkFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A deterministic document (SplitMix64), so every run parses the same bytes.
    static func makeDocument(files count: Int) -> PropertyListValue {
        var state: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
        func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
        }
        let folders = ["Frameworks/Core.framework", "PlugIns/Widget.appex", "Base.lproj", "en.lproj", "Assets", "Sounds"]
        var files = PropertyListDictionary()
        var files2 = PropertyListDictionary()
        for index in 0..<count {
            let folder = folders[Int(next() % UInt64(folders.count))]
            let path = "\(folder)/resource_\(index)_\(next() % 1000).\(["png", "nib", "plist", "car", "strings"][index % 5])"
            let sha1 = bytes(20)
            files.append(.data(sha1), forKey: path)
            var entry: PropertyListDictionary = ["hash": .data(sha1), "hash2": .data(bytes(32))]
            if index % 7 == 0 { entry["optional"] = true }
            files2.append(.dictionary(entry), forKey: path)
        }
        let rules: PropertyListValue = [
            "^.*": true,
            "^.*\\.lproj/": ["optional": true, "weight": 1000.0],
            "^.*\\.lproj/locversion.plist$": ["omit": true, "weight": 1100.0],
            "^version.plist$": true,
        ]
        var metrics: [PropertyListValue] = []
        for index in 0..<(count / 2) {
            metrics.append([
                "id": .integer(PropertyListInteger(Int64(bitPattern: next() >> 20))),
                "score": .real(Double(next() % 1_000_000) / 7),
                "seen": .date(PropertyListDate(secondsSinceReferenceDate: Double(next() % 700_000_000))),
                "tags": ["alpha", "beta", .string("t\(index % 50)")],
                "enabled": .bool(index % 2 == 0),
            ])
        }
        return [
            "files": .dictionary(files.sortedByKey()),
            "files2": .dictionary(files2.sortedByKey()),
            "rules": rules,
            "rules2": rules,
            "metrics": .array(metrics),
        ]
    }
}
