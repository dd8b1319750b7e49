import Foundation
import PNG
import Testing
import TestSupport

/// Inputs the PNG fuzzer (Fuzz/, `Scripts/fuzz fuzz-png`) once failed on, kept in
/// Tests/Fixtures/png/fuzz-regressions and checked with the harness's invariants, and the bugs
/// they exposed rebuilt from the standard fixtures.
@Suite struct FuzzRegressionTests {
    static var files: [String] {
        let directory = Fixtures.url("png/fuzz-regressions").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Whatever decodes converts to a standard PNG that decodes, every checksum verified, to the
    /// same pixels.
    @Test(arguments: files)
    func conversionKeepsThePixels(name: String) throws {
        let bytes = try Fixtures.bytes("png/fuzz-regressions/\(name)")
        guard let decoded = try? PNGDecoder.decode(bytes, checksums: .ignore) else { return }
        let again = try PNGDecoder.decode(decoded.standardPNG(), checksums: .verifyAll)
        #expect(again.image == decoded.image)
    }

    /// Chunks of a PNG file, in order (the fixtures are well formed).
    static func chunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
        var result: [(String, [UInt8])] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, Array(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return result
    }

    static func file(_ chunks: [(type: String, data: [UInt8])]) throws -> [UInt8] {
        try chunks.reduce(PNGHeader.signature) { file, chunk in
            file + PNGChunk(type: try #require(PNGChunkType(chunk.type)), data: chunk.data).encoded
        }
    }

    /// tRNS after the image data is out of place (PNG §5.6): it is ignored, as libpng ignores it,
    /// so that the RGB image stays opaque and converts to a PNG with the same pixels. The decoder
    /// used to honour it while the conversion dropped it.
    @Test func transparencyAfterTheImageDataIsIgnored() throws {
        let source = try Fixtures.bytes("png/standard/type2-8bit-trns.png")
        let original = Self.chunks(source)
        let transparency = try #require(original.first { $0.type == "tRNS" })
        let moved = original.filter { $0.type != "tRNS" && $0.type != "IEND" } + [transparency, (type: "IEND", data: [])]
        #expect(moved.map(\.type) == ["IHDR", "IDAT", "tRNS", "IEND"])

        let withTransparency = try PNGDecoder.decode(source).image
        #expect(stride(from: 3, to: withTransparency.pixels.count, by: 4).contains { withTransparency.pixels[$0] == 0 })
        var opaque = withTransparency.pixels
        for alpha in stride(from: 3, to: opaque.count, by: 4) { opaque[alpha] = 255 }

        let decoded = try PNGDecoder.decode(Self.file(moved))
        #expect(decoded.datastream.transparency == nil)
        #expect(decoded.image.pixels == opaque)
        #expect(try PNGDecoder.decode(decoded.standardPNG()).image == decoded.image)
    }
}
