import FormatSupport
import Testing
import TestSupport
@testable import PNG

/// `--time-limit` inside every loop of a decode and an encode (issue 19): the inflate windows, the
/// row unfiltering, the row expansion to RGBA, the encoder's row filtering and its compression.
/// Each, handed a deadline already passed, stops with `ARCHIVE_TIME_LIMIT` after one batch of work
/// instead of finishing a large image; with time to spare the same call gives the usual result.
@Suite struct PNGDeadlineTests {
    static let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")
    /// A new clock at each use: a static `let` would start once per suite run, and a whole run
    /// under a sanitizer can outlast any fixed budget.
    static var spare: WorkClock { WorkClock(seconds: 600, file: "App.ipa") }
    static var timeLimit: PNGError { PNGError(.timeLimit, passed.timeLimitMessage) }

    static func image(width: Int, height: Int) throws -> RGBAImage {
        try #require(RGBAImage(width: width, height: height, pixels: SyntheticImage.rgba(width: width, height: height)))
    }

    @Test func aPassedDeadlineStopsTheDecode() throws {
        let png = PNGEncoder.encode(try #require(RGBAImage(width: 2048, height: 64, pixels: [UInt8](repeating: 7, count: 2048 * 64 * 4))))
        #expect(throws: Self.timeLimit) {
            _ = try PNGDecoder.decode(png, limits: PNGLimits(clock: Self.passed))
        }
        // The same image decodes with time to spare: the loop, not the image, stopped.
        #expect(try PNGDecoder.decode(png, limits: PNGLimits(clock: Self.spare)).image.width == 2048)
    }

    @Test func aPassedDeadlineStopsTheInflateLoop() throws {
        let image = try Self.image(width: 1024, height: 1024)
        let datastream = try PNGDatastream(bytes: PNGEncoder.encode(image), checksums: .verifyAll)
        let ranges = datastream.imageDataChunks.map { $0.data.startIndex..<$0.data.endIndex }
        let layout = try ScanlineLayout(width: 1024, height: 1024, bitsPerPixel: 32, interlaced: false)
        func inflate(_ clock: WorkClock) throws(PNGError) -> InflatedImageData {
            try ImageDataInflater.inflate(
                file: datastream.file, ranges: ranges, framing: .zlib, expectedSize: layout.totalBytes, firstChunkOffset: 0,
                clock: clock)
        }
        #expect(throws: Self.timeLimit) { _ = try inflate(Self.passed) }
        #expect(try inflate(Self.spare).bytes.count == layout.totalBytes)
    }

    @Test func aPassedDeadlineStopsTheRowExpansion() throws {
        let image = try Self.image(width: 2048, height: 64)
        let datastream = try PNGDatastream(bytes: PNGEncoder.encode(image), checksums: .verifyAll)
        let ranges = datastream.imageDataChunks.map { $0.data.startIndex..<$0.data.endIndex }
        let layout = try ScanlineLayout(width: 2048, height: 64, bitsPerPixel: 32, interlaced: false)
        var raw = try ImageDataInflater.inflate(
            file: datastream.file, ranges: ranges, framing: .zlib, expectedSize: layout.totalBytes, firstChunkOffset: 0).bytes
        let pixels = try PixelLayout(datastream)
        try raw.withUnsafeMutableBufferPointer { buffer in
            let base = try #require(buffer.baseAddress)
            try layout.unfilter(base, dataOffset: 0)
            func expand(_ clock: WorkClock) throws(PNGError) -> [UInt8] {
                try pixels.expand(UnsafePointer(base), layout: layout, width: 2048, height: 64, outputCount: 2048 * 64 * 4, clock: clock)
            }
            #expect(throws: Self.timeLimit) { _ = try expand(Self.passed) }
            #expect(try expand(Self.spare) == image.pixels)
        }
    }

    @Test func aPassedDeadlineStopsTheEncoder() throws {
        let image = try Self.image(width: 2048, height: 64)
        #expect(throws: Self.timeLimit) { _ = try PNGEncoder.encode(image, clock: Self.passed) }
        // With time to spare, the bytes of the encoder without a clock.
        #expect(try PNGEncoder.encode(image, clock: Self.spare) == PNGEncoder.encode(image))
    }

    @Test func theCompressorIsToldEveryMebibyteAndStopsWhenTold() throws {
        struct Stop: Error, Equatable {}
        let data = (0..<(5 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 7) }
        var pieces: [Int] = []
        let compressed = ImageDataDeflater.deflate(data, level: 6, tick: { (piece: Int) -> Void in pieces.append(piece) })
        #expect(pieces == [1 << 20, 1 << 20, 1 << 19])
        let inflated = try ImageDataInflater.inflate(
            file: compressed, ranges: [0..<compressed.count], framing: .zlib, expectedSize: data.count, firstChunkOffset: 0)
        #expect(inflated.bytes == data)
        #expect(!inflated.adlerMismatch)
        var calls = 0
        #expect(throws: Stop()) {
            _ = try ImageDataDeflater.deflate(data, level: 6, tick: { (_: Int) throws(Stop) -> Void in
                calls += 1
                if calls == 2 { throw Stop() }
            })
        }
        #expect(calls == 2)
    }

    @Test func aPassedDeadlineStopsTheCgBIConversion() throws {
        let rgba = SyntheticImage.rgba(width: 1024, height: 64)
        let cgbi = CgBIEncoder(.cgbi).encode(rgba: rgba, width: 1024, height: 64)
        // Decoding stops, and so does the re-encoding of an image decoded in time.
        #expect(throws: Self.timeLimit) { _ = try CgBIConverter.standardPNG(from: cgbi, limits: PNGLimits(clock: Self.passed)) }
        let decoded = try PNGDecoder.decode(cgbi)
        #expect(throws: Self.timeLimit) { _ = try decoded.standardPNG(clock: Self.passed) }
        #expect(try decoded.standardPNG(clock: Self.spare) == decoded.standardPNG())
        #expect(try CgBIConverter.standardPNG(from: cgbi, limits: PNGLimits(clock: Self.spare)) == decoded.standardPNG())
    }
}
