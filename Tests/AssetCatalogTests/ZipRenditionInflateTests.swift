@testable import AssetCatalog
import FormatSupport
import Testing
import TestSupport

/// "zip" renditions (zlib or gzip) are inflated in one call into the size the rendition declares,
/// their check values verified, as zlib did.
@Suite struct ZipRenditionInflateTests {
    static let pixels = (0..<120_000).map { UInt8(truncatingIfNeeded: $0 / 7 &* 13) }

    /// A gzip member written by hand (RFC 1952: header, raw deflate, CRC-32, size), with zlib's deflate.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        var member: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + ZipBuilder.deflate(bytes)
        for value in [ZipBuilder.crc32(bytes), UInt32(bytes.count)] {
            member += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        return member
    }

    static func decompress(_ input: [UInt8], size: Int = pixels.count) -> Result<[UInt8], AssetCatalogError> {
        var clock = WorkClock.unlimited
        return Result { () throws(AssetCatalogError) in try Inflate.decompress(input[...], size: size, label: "rendition 'x'", clock: &clock) }
    }

    @Test func zlibAndGzipDataInflateToTheirPixels() {
        #expect(Self.decompress(CgBIEncoder.deflate(Self.pixels, zlib: true, flushAt: nil)[0]) == .success(Self.pixels))
        #expect(Self.decompress(Self.gzip(Self.pixels)) == .success(Self.pixels))
    }

    @Test func wrongSizesChecksAndStreamsAreInvalidPixelData() {
        let zlib = CgBIEncoder.deflate(Self.pixels, zlib: true, flushAt: nil)[0]
        var badAdler = zlib
        badAdler[badAdler.count - 1] ^= 1
        var badCRC = Self.gzip(Self.pixels)
        badCRC[badCRC.count - 8] ^= 1
        let cases: [([UInt8], Int, String)] = [
            (zlib, Self.pixels.count + 1, "decodes to 120000 bytes instead of 120001"),
            (zlib, Self.pixels.count - 1, "decodes to more than 119999 bytes"),
            (badAdler, Self.pixels.count, "is corrupt or truncated"),
            (badCRC, Self.pixels.count, "is corrupt or truncated"),
            (Array(zlib.prefix(zlib.count / 2)), Self.pixels.count, "is corrupt or truncated"),
            (ZipBuilder.deflate(Self.pixels), Self.pixels.count, "is corrupt or truncated"),  // no header
        ]
        for (input, size, words) in cases {
            guard case .failure(let error) = Self.decompress(input, size: size) else {
                Issue.record("\(words): inflated")
                continue
            }
            #expect(error.reason == .invalidPixelData, "\(error)")
            #expect("\(error)".contains(words), "\(error)")
        }
    }
}
