import Foundation
import Testing
import TestSupport
@testable import PNG

/// Damaged and malicious files. Each file in `Tests/Fixtures/png/hostile` is named for the code
/// it must give: `PNG_DATA_SIZE-zlib-bomb.png` must throw `PNG_DATA_SIZE`.
@Suite("Hostile PNGs")
struct HostilePNGTests {
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.path("png/hostile"))) ?? []
        return names.filter { $0.hasSuffix(".png") }.sorted()
    }()

    @Test func everyErrorCodeHasAFixture() {
        let codes = Set(Self.files.compactMap { $0.split(separator: "-").first.map(String.init) })
        // The time limit is the input's, not a file's: DeadlineTests covers it.
        #expect(codes == Set(PNGError.Reason.allCases.filter { $0 != .timeLimit }.map(\.rawValue)))
    }

    @Test(arguments: files)
    func givesTheCodeItIsNamedFor(_ name: String) throws {
        let expected = String(name.prefix { $0 != "-" })
        let bytes = try Fixtures.bytes("png/hostile/\(name)")
        let error = pngError { _ = try PNGDecoder.decode(bytes) }
        #expect(error?.code == expected, "\(name): \(error.map { "\($0.code): \($0)" } ?? "no error")")
        #expect(error?.category == .invalidInput)
        #expect(error?.description.isEmpty == false)
        // The conversion path reports the same problem.
        #expect(pngError { _ = try CgBIConverter.standardPNG(from: bytes) }?.code == expected)
    }

    @Test func headerOnlyReadingReportsHeaderProblems() throws {
        for (name, code) in [("PNG_SIGNATURE-jpeg.png", "PNG_SIGNATURE"), ("PNG_TRUNCATED-partial-signature.png", "PNG_TRUNCATED"),
                             ("PNG_CRC_MISMATCH-ihdr.png", "PNG_CRC_MISMATCH"), ("PNG_CHUNK-ihdr-not-first.png", "PNG_CHUNK"),
                             ("PNG_DIMENSIONS-zero-width.png", "PNG_DIMENSIONS"), ("PNG_HEADER-interlace-2.png", "PNG_HEADER")] {
            let bytes = try Fixtures.bytes("png/hostile/\(name)")
            #expect(pngError { _ = try PNGHeader(prefix: Array(bytes.prefix(64))) }?.code == code, "\(name)")
        }
        // Limits are the decoder's business: the header of a huge image reads fine.
        let huge = try PNGHeader(prefix: try Fixtures.bytes("png/hostile/PNG_DIMENSIONS-7fffffff-square.png"))
        #expect(huge.width == 0x7FFF_FFFF && huge.pixelCount == 0x7FFF_FFFF * 0x7FFF_FFFF)
    }

    @Test func sizeArithmeticCannotOverflowEvenWithoutLimits() throws {
        let bytes = try Fixtures.bytes("png/hostile/PNG_DIMENSIONS-7fffffff-square.png")
        let unlimited = PNGLimits(maxWidth: .max, maxHeight: .max, maxPixelCount: .max)
        #expect(pngError { _ = try PNGDecoder.decode(bytes, limits: unlimited) }?.reason == .dimensions)
        #expect(pngError { _ = try ScanlineLayout(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitsPerPixel: 64, interlaced: true) }?.reason == .dimensions)
    }

    @Test func limitsAreConfigurable() throws {
        let file = PNGEncoder.encode(try #require(RGBAImage(width: 40, height: 30, pixels: [UInt8](repeating: 9, count: 40 * 30 * 4))))
        #expect(pngError { _ = try PNGDecoder.decode(file, limits: PNGLimits(maxWidth: 39)) }?.reason == .dimensions)
        #expect(pngError { _ = try PNGDecoder.decode(file, limits: PNGLimits(maxHeight: 29)) }?.reason == .dimensions)
        #expect(pngError { _ = try PNGDecoder.decode(file, limits: PNGLimits(maxPixelCount: 1199)) }?.reason == .dimensions)
        #expect(try PNGDecoder.decode(file, limits: PNGLimits(maxWidth: 40, maxHeight: 30, maxPixelCount: 1200)).image.width == 40)
    }

    @Test func checksumPolicies() throws {
        let text = try Fixtures.bytes("png/hostile/PNG_CRC_MISMATCH-text.png")
        // libpng's policy drops the damaged text chunk and decodes.
        let lenient = try PNGDecoder.decode(text, checksums: .discardBadAncillary)
        #expect(!lenient.datastream.chunks.contains { $0.type == .tEXt })
        #expect(lenient.checksumMismatches.map(\.kind) == [.chunkCRC(.tEXt)])
        let ignored = try PNGDecoder.decode(text, checksums: .ignore)
        #expect(ignored.datastream.chunks.contains { $0.type == .tEXt })
        #expect(ignored.image == lenient.image)

        let adler = try Fixtures.bytes("png/hostile/PNG_CRC_MISMATCH-adler32.png")
        #expect(pngError { _ = try PNGDecoder.decode(adler, checksums: .discardBadAncillary) }?.reason == .crcMismatch)
        let salvaged = try PNGDecoder.decode(adler, checksums: .ignore)
        #expect(salvaged.checksumMismatches.map(\.kind) == [.adler32])

        let critical = try Fixtures.bytes("png/hostile/PNG_CRC_MISMATCH-idat.png")
        #expect(try PNGDecoder.decode(critical, checksums: .ignore).checksumMismatches.map(\.kind) == [.chunkCRC(.IDAT)])
    }

    @Test func missingIENDIsTolerated() throws {
        var file = PNGEncoder.encode(try #require(RGBAImage(width: 3, height: 3, pixels: [UInt8](repeating: 200, count: 36))))
        file.removeLast(12)
        let decoded = try PNGDecoder.decode(file)
        #expect(!decoded.datastream.hasEnd)
        // Bytes after IEND are ignored.
        let padded = PNGEncoder.encode(decoded.image) + Array("trailing junk".utf8)
        #expect(try PNGDecoder.decode(padded).image == decoded.image)
    }

    @Test func flippedBytesNeverCrash() throws {
        // Every single-byte corruption of a small CgBI and a small interlaced PNG, with checksums
        // ignored so the damage reaches inflate, unfilter and conversion.
        var cgbi = CgBIEncoder(.cgbi)
        cgbi.appleIDOT = true
        var adam7 = CgBIEncoder(.standard)
        adam7.interlaced = true
        for encoder in [cgbi, adam7] {
            let file = encoder.encode(rgba: SyntheticImage.rgba(width: 9, height: 7), width: 9, height: 7)
            for index in 8..<file.count {
                for mask: UInt8 in [0x01, 0x80, 0xFF] {
                    var damaged = file
                    damaged[index] ^= mask
                    do {
                        let decoded = try PNGDecoder.decode(damaged, checksums: .ignore)
                        #expect(decoded.image.pixels.count == decoded.image.width * decoded.image.height * 4)
                    } catch {
                        #expect(!error.code.isEmpty)
                    }
                }
            }
        }
    }

    @Test func cgbiWithAnExtraZlibStreamPerIDATDecodes() throws {
        // Some writers compress each IDAT separately; each piece ends its stream early.
        let pixels = SyntheticImage.rgba(width: 16, height: 8)
        var encoder = CgBIEncoder(.cgbi)
        encoder.filters = [0]
        let whole = try PNGDecoder.decode(encoder.encode(rgba: pixels, width: 16, height: 8)).image
        let rows = (0..<8).map { row in [UInt8(0)] + (0..<16).flatMap { encoder.storedPixel(pixels, row * 16 + $0) } }
        var file = Array(PNGHeader.signature)
        CgBIEncoder.appendChunk("CgBI", CgBIEncoder.be32(0x5000_2002), to: &file)
        CgBIEncoder.appendChunk("IHDR", CgBIEncoder.be32(16) + CgBIEncoder.be32(8) + [8, 6, 0, 0, 0], to: &file)
        for half in [rows[0..<4], rows[4..<8]] {
            CgBIEncoder.appendChunk("IDAT", CgBIEncoder.deflate(half.flatMap { $0 }, zlib: false, flushAt: nil)[0], to: &file)
        }
        CgBIEncoder.appendChunk("IEND", [], to: &file)
        #expect(try PNGDecoder.decode(file).image == whole)
    }
}
