import Batch
import FormatSupport
import PNG
import Testing
import TestSupport

@Suite struct IconThumbnailTests {
    @Test func largeIconsAreReducedToStandardPNGsOfTheDefaultSide() throws {
        let source = IPABuilder.iconPNG(size: 180, seed: 9, cgbi: false)
        let thumbnail = try IconThumbnail.png(from: source)
        let decoded = try PNGDecoder.decode(thumbnail)
        #expect(decoded.image.width == 96 && decoded.image.height == 96)
        #expect(!decoded.isCgBI)
        #expect(thumbnail.count < source.count)
    }

    @Test func smallIconsAreKeptAsTheyAre() throws {
        let source = IPABuilder.iconPNG(size: 60, cgbi: false)
        #expect(try IconThumbnail.png(from: source) == source)
    }

    @Test func averagingKeepsUniformColourAndAspectRatio() throws {
        let pixels = [[UInt8]](repeating: [200, 100, 50, 255], count: 300 * 150).flatMap { $0 }
        let image = try #require(RGBAImage(width: 300, height: 150, pixels: pixels))
        let small = try #require(IconThumbnail.reduce(image, side: 96))
        #expect(small.width == 96 && small.height == 48)
        #expect(Set(stride(from: 0, to: small.pixels.count, by: 4).map { Array(small.pixels[$0..<$0 + 4]) }) == [[200, 100, 50, 255]])
    }

    @Test func transparentPixelsDoNotDarkenTheirNeighbours() throws {
        // Columns alternate opaque white and fully transparent black: straight averaging would give
        // grey, premultiplied averaging gives white at half opacity.
        var pixels: [UInt8] = []
        for _ in 0..<200 {
            for x in 0..<200 { pixels += x % 2 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 0] }
        }
        let image = try #require(RGBAImage(width: 200, height: 200, pixels: pixels))
        let small = try #require(IconThumbnail.reduce(image, side: 100))
        #expect(Array(small.pixels[0..<4]) == [255, 255, 255, 128])
    }

    @Test func aDamagedOrHugeIconIsAnErrorNotACrash() throws {
        #expect(throws: PNGError.self) { try IconThumbnail.png(from: [0x89, 0x50, 0x4E, 0x47]) }
        // 5000 × 5000 is above the thumbnail's decode limit.
        var header = IPABuilder.iconPNG(size: 8, cgbi: false)
        header.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])
        #expect(throws: PNGError.self) { try IconThumbnail.png(from: header) }
    }

    /// The thumbnail's decode and encode run under the input's time limit (issue 19).
    @Test func aPassedDeadlineStopsTheThumbnail() throws {
        let source = IPABuilder.iconPNG(size: 1024, seed: 3, cgbi: false)
        let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")
        #expect(throws: PNGError(.timeLimit, passed.timeLimitMessage)) { try IconThumbnail.png(from: source, clock: passed) }
        let thumbnail = try IconThumbnail.png(from: source, clock: WorkClock(seconds: 600, file: "App.ipa"))
        #expect(thumbnail == (try IconThumbnail.png(from: source)))
    }
}
