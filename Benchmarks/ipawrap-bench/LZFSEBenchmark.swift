import AssetCatalog
import Foundation
import LZFSE

/// Decoding a 1024×1024 ARGB rendition compressed with LZFSE, the largest bitmap an app icon set
/// holds. The target is a median under 50 ms.
///
/// Measures the LZFSE stream alone (`Tests/Fixtures/lzfse/argb-1024x1024.lzfse`, written by the
/// reference encoder) and the whole rendition path of `AssetCatalog.image(for:)` on the same stream
/// inside `Tests/Fixtures/assets/AppIcon-lzfse.car` (decompression plus conversion to straight RGBA).
enum LZFSEBenchmark: Benchmark {
    static let name = "lzfse"
    static let summary = "LZFSE decoding of a 1024x1024 rendition (target: median < 50 ms)"

    static let targetMilliseconds = 50.0

    static func run(_ arguments: [String]) throws {
        let iterations = arguments.first.flatMap(Int.init) ?? 30
        let fixtures = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures")

        let stream = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("lzfse/argb-1024x1024.lzfse")))
        let decodedCount = try decodeStream(stream)
        guard decodedCount == 1024 * 1024 * 4 else {
            throw LZFSEBenchmarkFailure("the stream decoded to \(decodedCount) bytes, not 4 MiB")
        }
        let streamTiming = try Timing.measure(iterations: iterations, warmup: 3) { _ = try decodeStream(stream) }
        report("LZFSE stream, \(stream.count) -> \(decodedCount) bytes", streamTiming)

        let catalogBytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("assets/AppIcon-lzfse.car")))
        let catalog = try AssetCatalog(bytes: catalogBytes)
        guard let rendition = catalog.renditions.first(where: { $0.width == 1024 && $0.height == 1024 }) else {
            throw LZFSEBenchmarkFailure("AppIcon-lzfse.car has no 1024x1024 rendition")
        }
        guard try decodeRendition(rendition, in: catalog) == 1024 else {
            throw LZFSEBenchmarkFailure("the rendition did not decode to 1024 pixels wide")
        }
        let renditionTiming = try Timing.measure(iterations: iterations, warmup: 3) {
            _ = try decodeRendition(rendition, in: catalog)
        }
        let compression = rendition.compression.map { "\($0)" } ?? "-"
        report("AssetCatalog.image(for:) \(rendition.name) (\(compression), to straight RGBA)", renditionTiming)
    }

    private static func decodeStream(_ stream: [UInt8]) throws -> Int {
        try LZFSE.decompress(stream, maximumOutput: 1024 * 1024 * 4).count
    }

    private static func decodeRendition(_ rendition: Rendition, in catalog: AssetCatalog) throws -> Int {
        try catalog.image(for: rendition).width
    }

    private static func report(_ label: String, _ timing: Timing) {
        let verdict = timing.median * 1000 < targetMilliseconds ? "within" : "OVER"
        print("\(name): \(label): \(timing) — \(verdict) the \(Int(targetMilliseconds)) ms target")
    }
}

struct LZFSEBenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
