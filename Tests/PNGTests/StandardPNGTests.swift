import Foundation
import Testing
import TestSupport
@testable import PNG

/// Standard PNGs of every colour type and bit depth, written by `Tests/Fixtures/png/make_fixtures.py`
/// with the expected RGBA computed from the source samples.
@Suite("Standard PNG decoding and encoding")
struct StandardPNGTests {
    static let fixtureNames: [String] = {
        let directory = Fixtures.path("png/standard")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
    }()

    @Test func everyColourTypeAndBitDepthIsCovered() {
        #expect(Self.fixtureNames.count == 55)
        for (type, depths) in [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])] {
            for depth in depths {
                for suffix in ["", "-adam7"] {
                    #expect(Self.fixtureNames.contains("type\(type)-\(depth)bit\(suffix)"))
                }
            }
        }
    }

    @Test(arguments: fixtureNames)
    func decodesToTheExpectedPixels(_ name: String) throws {
        let file = try Fixtures.bytes("png/standard/\(name).png")
        let expected = try Fixtures.bytes("png/standard/\(name).rgba")
        let decoded = try PNGDecoder.decode(file)
        #expect(!decoded.isCgBI)
        #expect(decoded.header.isInterlaced == name.contains("adam7"))
        #expect(name.hasPrefix("type\(decoded.colorType.rawValue)-\(decoded.header.bitDepth)bit"))
        #expect(decoded.image.pixels.count == expected.count)
        if decoded.image.pixels != expected {
            let first = zip(decoded.image.pixels, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
            Issue.record("\(name): first difference at byte \(first) (pixel \(first / 4))")
        }
        let header = try PNGHeader(prefix: Array(file.prefix(33)))
        #expect(header == decoded.header)
    }

    // MARK: Encoder

    static let sample = RGBAImage(width: 41, height: 29, pixels: SyntheticImage.rgba(width: 41, height: 29, seed: 3))

    @Test func encoderRoundTripsAndIsDeterministic() throws {
        let image = try #require(Self.sample)
        let first = PNGEncoder.encode(image)
        #expect(first == PNGEncoder.encode(image))
        let decoded = try PNGDecoder.decode(first)
        #expect(decoded.image == image)
        #expect(decoded.colorType == .rgba)
        #expect(decoded.datastream.chunks.map(\.type) == [.IHDR, .IDAT, .IEND])
    }

    @Test(arguments: PNGFilterType.allCases)
    func encoderWithAFixedFilter(_ filter: PNGFilterType) throws {
        let image = try #require(Self.sample)
        let file = PNGEncoder.encode(image, options: .init(filter: .fixed(filter)))
        #expect(try PNGDecoder.decode(file).image == image)
    }

    @Test func adaptiveFilteringBeatsNoFiltering() throws {
        // A smooth gradient is where filters pay off.
        var pixels: [UInt8] = []
        for y in 0..<64 {
            for x in 0..<64 {
                pixels += [UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255]
            }
        }
        let image = try #require(RGBAImage(width: 64, height: 64, pixels: pixels))
        let adaptive = PNGEncoder.encode(image)
        let unfiltered = PNGEncoder.encode(image, options: .init(filter: .fixed(.none)))
        #expect(adaptive.count < unfiltered.count)
        // Automatic colour type drops the alpha channel of an opaque image.
        let automatic = PNGEncoder.encode(image, options: .init(colorType: .automatic))
        let decoded = try PNGDecoder.decode(automatic)
        #expect(decoded.colorType == .rgb)
        #expect(decoded.image == image)
        #expect(try PNGDecoder.decode(PNGEncoder.encode(try #require(Self.sample), options: .init(colorType: .automatic))).colorType == .rgba)
    }

    @Test func encoderWritesAncillaryChunksAndSkipsCriticalOnes() throws {
        let image = try #require(Self.sample)
        let gamma = PNGChunk(type: .gAMA, data: [0, 0, 0xB1, 0x8F])
        let text = PNGChunk(type: .tEXt, data: Array("Software\0ipawrap".utf8))
        let sneaky = PNGChunk(type: .IEND, data: [])
        let file = PNGEncoder.encode(image, options: .init(chunksBeforeImageData: [gamma, sneaky], chunksAfterImageData: [text]))
        let stream = try PNGDatastream(bytes: file)
        #expect(stream.chunks.map(\.type) == [.IHDR, .gAMA, .IDAT, .tEXt, .IEND])
    }

    @Test func largeImagesSplitIDAT() throws {
        // Noise does not compress, so the stream exceeds one IDAT's 1 MiB.
        let side = 600
        let pixels = SyntheticImage.rgba(width: side, height: side, seed: 5).enumerated().map { UInt8(truncatingIfNeeded: $0.offset &* 2_654_435_761 >> 7) ^ $0.element }
        let image = try #require(RGBAImage(width: side, height: side, pixels: pixels))
        let file = PNGEncoder.encode(image, options: .init(compressionLevel: 1))
        let stream = try PNGDatastream(bytes: file)
        #expect(stream.imageDataChunkIndices.count >= 2)
        #expect(try PNGDecoder.decode(file).image == image)
    }

    @Test func storedFallbackIsAValidZlibStream() throws {
        let data = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let stored = ImageDataDeflater.stored(data)
        let inflated = try ImageDataInflater.inflate(file: stored, ranges: [0..<stored.count], framing: .zlib,
                                                     expectedSize: data.count, firstChunkOffset: 0)
        #expect(inflated.bytes == data)
        #expect(!inflated.adlerMismatch)
    }

    @Test(.enabled(if: PNGOracle.available, "python3 is not installed"))
    func encoderOutputPassesTheIndependentOracle() throws {
        let image = try #require(Self.sample)
        let oracle = try PNGOracle.check(PNGEncoder.encode(image))
        #expect(oracle.chunks == ["IHDR", "IDAT", "IEND"])
        #expect(oracle.rgba == image.pixels)
    }

    @Test func standardConversionReencodesAsRGBA() throws {
        // A 16-bit grey image with tRNS becomes 8-bit RGBA; colour-specific chunks go.
        let file = try Fixtures.bytes("png/standard/type0-16bit-trns.png")
        let decoded = try PNGDecoder.decode(file)
        let converted = decoded.standardPNG()
        let stream = try PNGDatastream(bytes: converted)
        #expect(stream.header.colorType == .rgba && stream.header.bitDepth == 8)
        #expect(stream.transparency == nil)
        #expect(try PNGDecoder.decode(converted).image == decoded.image)
        // The converter returns a standard file untouched.
        #expect(try CgBIConverter.standardPNG(from: file) == file)
    }
}
