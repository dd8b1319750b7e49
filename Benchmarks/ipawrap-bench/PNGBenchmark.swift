import Foundation
import PNG

/// Decoding Apple CgBI icons and converting them to standard PNG.
///
///     swift run -c release ipawrap-bench png [ITERATIONS] [FILE.png ...]
///
/// Measures the real 180×180 CgBI fixture, generated 1024×1024 CgBI files (filter None on every
/// row as Apple writes them, and adaptive filters, which exercise Paeth), the CgBI → PNG
/// conversion, and the header-only read the icon resolver uses. Extra files are decoded too.
enum PNGBenchmark: Benchmark {
    static let name = "png"
    static let summary = "CgBI and PNG decoding"

    static func run(_ arguments: [String]) throws {
        let iterations = arguments.first.flatMap(Int.init) ?? 50
        let extraFiles = arguments.drop { Int($0) != nil }
        let fixture = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/cgbi/cgbi-image.png")
        let small = [UInt8](try Data(contentsOf: fixture))
        let appleStyle = try makeCgBI(side: 1024, filter: .fixed(.none))
        let adaptive = try makeCgBI(side: 1024, filter: .adaptive)

        print("png: \(iterations) iterations each")
        try report("decode 180×180 CgBI fixture (\(small.count) B)", iterations) { _ = try PNGDecoder.decode(small) }
        try report("decode 1024×1024 CgBI, filter None (\(appleStyle.count) B)", iterations) { _ = try PNGDecoder.decode(appleStyle) }
        try report("decode 1024×1024 CgBI, adaptive filters (\(adaptive.count) B)", iterations) { _ = try PNGDecoder.decode(adaptive) }
        try report("convert 1024×1024 CgBI to standard PNG", max(1, iterations / 5)) { _ = try CgBIConverter.standardPNG(from: appleStyle) }
        try report("header only, first 64 bytes", iterations * 100) { _ = try PNGHeader(prefix: Array(appleStyle.prefix(64))) }
        for path in extraFiles {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            try report("decode \(path) (\(bytes.count) B)", iterations) { _ = try PNGDecoder.decode(bytes) }
        }
    }

    private static func report(_ label: String, _ iterations: Int, _ body: () throws -> Void) throws {
        let timing = try Timing.measure(iterations: iterations, warmup: 2, body)
        print("  \(label): \(timing)")
    }

    /// An icon-like picture (gradients, a soft-edged disc, transparent corners) stored the way
    /// Apple's tools store it: premultiplied BGRA, raw deflate, a CgBI chunk before IHDR.
    static func makeCgBI(side: Int, filter: PNGEncoder.Options.FilterStrategy) throws -> [UInt8] {
        var stored = [UInt8](repeating: 0, count: side * side * 4)
        let centre = Double(side) / 2
        for y in 0..<side {
            for x in 0..<side {
                let distance = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                let alpha = UInt32(max(0, min(255, (centre - distance) * 4)))
                let red = UInt32(x * 255 / side), green = UInt32(y * 255 / side), blue = UInt32((x ^ y) & 0xFF)
                let index = (y * side + x) * 4
                stored[index] = UInt8((blue * alpha + 127) / 255)
                stored[index + 1] = UInt8((green * alpha + 127) / 255)
                stored[index + 2] = UInt8((red * alpha + 127) / 255)
                stored[index + 3] = UInt8(alpha)
            }
        }
        guard let image = RGBAImage(width: side, height: side, pixels: stored) else {
            throw PNGError(.dimensions, "cannot build a \(side)×\(side) benchmark image")
        }
        // Encode the stored bytes as if they were RGBA, then rewrap: CgBI first, raw deflate.
        let standard = try PNGDatastream(bytes: PNGEncoder.encode(image, options: .init(filter: filter)))
        let zlibStream = standard.imageDataChunks.flatMap { Array($0.data) }
        let rawDeflate = Array(zlibStream.dropFirst(2).dropLast(4))
        var file = PNGHeader.signature
        PNGChunk(type: .CgBI, data: [0x50, 0x00, 0x20, 0x02]).write(to: &file)
        for chunk in standard.chunks where chunk.type == .IHDR {
            chunk.write(to: &file)
        }
        PNGChunk(type: .IDAT, data: rawDeflate).write(to: &file)
        PNGChunk(type: .IEND, data: []).write(to: &file)
        return file
    }
}
