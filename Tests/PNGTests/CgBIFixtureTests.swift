import Testing
import TestSupport
@testable import PNG

/// `cgbi-image.png` (jakubknejzlik/cgbi-to-png's tests, in `../shared/fixtures/cgbi`) is a real
/// Apple CgBI file (CgBI, IHDR, gAMA, sRGB, cHRM, iTXt, pHYs, iDOT, two IDATs). `png-image.png` is
/// what cgbi-to-png made of it: the same bytes swapped to RGBA but *not* un-premultiplied, and
/// written with a wrong IDAT CRC. So its colours are the premultiplied values, and decoding it
/// needs `.ignore`. `GeneratedCgBITests` checks files of the same shapes `CgBIEncoder` writes.
@Suite("CgBI fixture from cgbi-to-png", .enabled(if: SharedFolder.has("fixtures/cgbi/cgbi-image.png"), SharedFolder.skipNote("fixtures/cgbi")))
struct CgBIFixtureTests {
    let cgbi: [UInt8]
    let reference: [UInt8]

    init() throws {
        cgbi = try SharedFolder.bytes("fixtures/cgbi/cgbi-image.png")
        reference = try SharedFolder.bytes("fixtures/cgbi/png-image.png")
    }

    @Test func headerFromTheFirst64Bytes() throws {
        let header = try PNGHeader(prefix: Array(cgbi.prefix(64)))
        #expect(header.width == 180)
        #expect(header.height == 180)
        #expect(header.bitDepth == 8)
        #expect(header.colorType == .rgba)
        #expect(header.interlaceMethod == .none)
        #expect(header.isCgBI)
        #expect(header.cgbiFlags?.rawValue == 0x5000_2002)
        #expect(header.cgbiFlags?.declaresRawDeflate == true)
        #expect(header.cgbiFlags?.description == "0x50002002")
    }

    @Test func chunkLayout() throws {
        let stream = try PNGDatastream(bytes: cgbi)
        #expect(stream.chunks.map(\.type.description) == ["CgBI", "IHDR", "gAMA", "sRGB", "cHRM", "iTXt", "pHYs", "iDOT", "IDAT", "IDAT", "IEND"])
        #expect(stream.imageDataChunkIndices == [8, 9])
        #expect(stream.hasEnd)
        #expect(stream.checksumMismatches.isEmpty)
    }

    @Test func pixelsMatchTheReferenceWithinPremultiplicationRounding() throws {
        let decoded = try PNGDecoder.decode(cgbi)
        #expect(decoded.isCgBI)
        #expect(decoded.colorType == .rgba)
        #expect(decoded.checksumMismatches.isEmpty)
        let ours = decoded.image.pixels
        let theirs = try PNGDecoder.decode(reference, checksums: .ignore).image.pixels
        #expect(ours.count == 180 * 180 * 4)
        #expect(theirs.count == ours.count)

        var opaque = 0, translucent = 0, transparent = 0
        for pixel in 0..<(180 * 180) {
            let alpha = ours[pixel * 4 + 3]
            try #require(alpha == theirs[pixel * 4 + 3], "alpha differs at pixel \(pixel)")
            for channel in 0..<3 {
                let mine = ours[pixel * 4 + channel], stored = theirs[pixel * 4 + channel]
                // Premultiplying what we decoded gives back exactly what Apple stored.
                try #require(CgBIEncoder.premultiply(mine, alpha: alpha) == stored, "pixel \(pixel) channel \(channel): \(mine) at alpha \(alpha) vs stored \(stored)")
            }
            switch alpha {
            case 255: opaque += 1
            case 0: transparent += 1
            default: translucent += 1
            }
        }
        // The fixture exercises every case of un-premultiplication.
        #expect(opaque > 20_000)
        #expect(transparent > 5_000)
        #expect(translucent > 3_000)
        // Transparent pixels come out as transparent black, opaque ones unchanged.
        for pixel in 0..<(180 * 180) where ours[pixel * 4 + 3] == 0 {
            #expect(ours[(pixel * 4)..<(pixel * 4 + 3)].allSatisfy { $0 == 0 })
        }
    }

    @Test func theReferenceHasABadIDATCRC() throws {
        let error = pngError { _ = try PNGDecoder.decode(reference) }
        #expect(error?.reason == .crcMismatch)
        #expect(error?.offset == 484)
        #expect(error?.description.contains("IDAT") == true)
        // libpng's policy also refuses it: IDAT is critical.
        #expect(pngError { _ = try PNGDecoder.decode(reference, checksums: .discardBadAncillary) }?.reason == .crcMismatch)
        let salvaged = try PNGDecoder.decode(reference, checksums: .ignore)
        #expect(salvaged.checksumMismatches == [PNGChecksumMismatch(kind: .chunkCRC(.IDAT), offset: 484)])
    }

    @Test func convertsToAStandardPNGKeepingTheSafeChunks() throws {
        let converted = try CgBIConverter.standardPNG(from: cgbi)
        let stream = try PNGDatastream(bytes: converted)
        #expect(stream.chunks.map(\.type.description) == ["IHDR", "gAMA", "sRGB", "cHRM", "iTXt", "pHYs", "IDAT", "IEND"])
        #expect(!stream.header.isCgBI)
        #expect(stream.header.colorType == .rgba)
        // Ancillary payloads are copied byte for byte.
        let source = try PNGDatastream(bytes: cgbi)
        for type in [PNGChunkType.gAMA, .sRGB, .cHRM, .iTXt, .pHYs] {
            #expect(stream.chunks.first { $0.type == type }?.data.elementsEqual(source.chunks.first { $0.type == type }?.data ?? []) == true)
        }
        let again = try PNGDecoder.decode(converted)
        #expect(again.image == (try PNGDecoder.decode(cgbi)).image)
        // Converting is idempotent on the result: a standard PNG comes back unchanged.
        #expect(try CgBIConverter.standardPNG(from: converted) == converted)
    }

    @Test(.enabled(if: PNGOracle.available, "python3 is not installed"))
    func conversionPassesTheIndependentOracle() throws {
        let converted = try CgBIConverter.standardPNG(from: cgbi)
        let oracle = try PNGOracle.check(converted)
        #expect(oracle.chunks == ["IHDR", "gAMA", "sRGB", "cHRM", "iTXt", "pHYs", "IDAT", "IEND"])
        #expect(oracle.rgba == (try PNGDecoder.decode(cgbi)).image.pixels)
    }

    @Test func truncatedAnywhereGivesACodedError() throws {
        // Every prefix of the real file either fails with a coded error or (when only IEND is
        // lost) still decodes to the same image.
        let full = try PNGDecoder.decode(cgbi).image
        for length in stride(from: 0, to: cgbi.count, by: 97) + [cgbi.count - 12, cgbi.count - 1] {
            do {
                let image = try PNGDecoder.decode(Array(cgbi.prefix(length))).image
                #expect(length == cgbi.count - 12 && image == full, "prefix of \(length) bytes decoded")
            } catch {
                #expect([.truncated, .dataSize, .signature, .noImageData].contains(error.reason), "prefix \(length): \(error)")
            }
        }
    }
}
