import Testing
import TestSupport
import FormatSupport
@testable import PNG

@Suite("PNG header and chunks")
struct PNGHeaderTests {
    @Test func readsAStandardHeaderFrom33Bytes() throws {
        let file = IPABuilder.iconPNG(size: 180, cgbi: false)
        let header = try PNGHeader(prefix: Array(file.prefix(33)))
        #expect(header.width == 180 && header.height == 180)
        #expect(!header.isCgBI)
        #expect(header.cgbiFlags == nil)
        #expect(header.pixelCount == 32_400)
        #expect(header.bitsPerPixel == 32)
        #expect(pngError { _ = try PNGHeader(prefix: Array(file.prefix(32))) }?.reason == .truncated)
    }

    @Test func readsFromAByteSource() throws {
        var source = InMemoryByteSource(IPABuilder.iconPNG(size: 180, cgbi: true))
        let header = try PNGHeader(from: &source)
        #expect(header.isCgBI && header.width == 180)
        var file = try FileByteSource(path: Fixtures.path("png/standard/type3-4bit-adam7.png"))
        let fromFile = try PNGHeader(from: &file)
        #expect(fromFile.colorType == .indexed && fromFile.bitDepth == 4 && fromFile.isInterlaced)
        #expect(fromFile.width == 13 && fromFile.height == 11)
    }

    @Test func garbageGivesSignatureErrors() {
        for garbage: [UInt8] in [[], [0x00], Array("GIF89a\0\0\0\0".utf8), [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 60),
                                 [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x0A, 0x1A] + [UInt8](repeating: 0, count: 60)] {
            #expect(pngError { _ = try PNGHeader(prefix: garbage) }?.reason == .signature)
        }
        #expect(pngError { _ = try PNGHeader(prefix: [0x89, 0x50, 0x4E]) }?.reason == .truncated)
    }

    @Test func chunkTypeConstantsAreSpelledRight() throws {
        let all: [(PNGChunkType, String)] = [
            (.IHDR, "IHDR"), (.PLTE, "PLTE"), (.IDAT, "IDAT"), (.IEND, "IEND"), (.tRNS, "tRNS"), (.gAMA, "gAMA"),
            (.cHRM, "cHRM"), (.sRGB, "sRGB"), (.iCCP, "iCCP"), (.cICP, "cICP"), (.mDCV, "mDCV"), (.cLLI, "cLLI"),
            (.sBIT, "sBIT"), (.bKGD, "bKGD"), (.hIST, "hIST"), (.pHYs, "pHYs"), (.sPLT, "sPLT"), (.tIME, "tIME"),
            (.tEXt, "tEXt"), (.zTXt, "zTXt"), (.iTXt, "iTXt"), (.eXIf, "eXIf"), (.CgBI, "CgBI"), (.iDOT, "iDOT"),
        ]
        for (constant, name) in all {
            #expect(constant == PNGChunkType(name))
            #expect(constant.description == name)
        }
        #expect(PNGChunkType.IDAT.isCritical && PNGChunkType.CgBI.isCritical)
        #expect(!PNGChunkType.iDOT.isCritical && !PNGChunkType.iDOT.isSafeToCopy)
        #expect(PNGChunkType.tEXt.isSafeToCopy && !PNGChunkType.gAMA.isSafeToCopy)
        #expect(PNGChunkType("ID4T") == nil && PNGChunkType("IDATA") == nil)
    }

    @Test func chunkCRCMatchesZlib() {
        // CRC of "IEND" with no data, as every PNG ends with.
        #expect(PNGChunk(type: .IEND, data: []).encoded == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        let chunk = PNGChunk(type: .tEXt, data: Array("a\0b".utf8))
        #expect(chunk.computedCRC == CgBIEncoder.crc(Array("tEXta\0b".utf8)))
    }

    @Test func errorsAreCodedAndSayWhere() {
        let error = PNGError(.crcMismatch, at: 33, "chunk gAMA is damaged")
        #expect(error.code == "PNG_CRC_MISMATCH")
        #expect(error.category == .invalidInput)
        #expect(error.description == "chunk gAMA is damaged (at byte 33)")
        // Every format code is the format's own, but the time limit, the input's, is one code everywhere.
        for reason in PNGError.Reason.allCases {
            let prefix = reason == .timeLimit ? "ARCHIVE_" : "PNG_"
            #expect(reason.rawValue.hasPrefix(prefix) && reason.rawValue == reason.rawValue.uppercased())
        }
    }
}
