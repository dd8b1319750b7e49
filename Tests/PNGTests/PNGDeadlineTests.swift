import FormatSupport
import Testing
import TestSupport
@testable import PNG

/// `--time-limit` inside the row loop (issue 19): a decode handed a deadline already passed stops
/// with `ARCHIVE_TIME_LIMIT` instead of unfiltering every row of a large image.
@Suite struct PNGDeadlineTests {
    @Test func aPassedDeadlineStopsTheDecode() throws {
        let png = PNGEncoder.encode(try #require(RGBAImage(width: 2048, height: 64, pixels: [UInt8](repeating: 7, count: 2048 * 64 * 4))))
        let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")
        #expect(throws: PNGError(.timeLimit, passed.timeLimitMessage)) {
            _ = try PNGDecoder.decode(png, limits: PNGLimits(clock: passed))
        }
        // The same image decodes with time to spare: the loop, not the image, stopped.
        #expect(try PNGDecoder.decode(png).image.width == 2048)
    }
}
