@testable import PNG
import Testing
import TestSupport

/// Image data is inflated in one call (libdeflate) when it is one clean stream of the size IHDR
/// implies; anything else goes through zlib, which decides what it means. Where the one-call path
/// answers, it must answer as zlib does.
@Suite struct WholeInflateTests {
    static let data = (0..<300_000).map { UInt8(truncatingIfNeeded: ($0 &* 7) ^ ($0 >> 9)) }

    /// One stream, split at `cuts` into IDAT payloads laid one after another in a file.
    static func payloads(_ stream: [UInt8], cuts: [Int] = []) -> (file: [UInt8], ranges: [Range<Int>]) {
        var ranges: [Range<Int>] = []
        var start = 0
        for cut in cuts + [stream.count] {
            ranges.append(start..<cut)
            start = cut
        }
        return (stream, ranges)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let framing: DeflateFraming
        let expectedSize: Int
        /// Whether the one-call path takes it.
        let whole: Bool
        let make: @Sendable () -> (file: [UInt8], ranges: [Range<Int>])
        var testDescription: String { name }
    }

    static func zlibStream(_ bytes: [UInt8] = data) -> [UInt8] {
        CgBIEncoder.deflate(bytes, zlib: true, flushAt: nil)[0]
    }

    static let cases: [Case] = [
        Case(name: "one zlib stream", framing: .zlib, expectedSize: data.count, whole: true) { payloads(zlibStream()) },
        Case(name: "one zlib stream in three IDATs", framing: .zlib, expectedSize: data.count, whole: true) {
            payloads(zlibStream(), cuts: [1, 5_000])
        },
        Case(name: "a raw stream (CgBI)", framing: .raw, expectedSize: data.count, whole: true) {
            payloads(CgBIEncoder.deflate(data, zlib: false, flushAt: nil)[0])
        },
        Case(name: "a wrong Adler-32", framing: .zlib, expectedSize: data.count, whole: true) {
            var stream = zlibStream()
            stream[stream.count - 1] ^= 1
            return payloads(stream)
        },
        Case(name: "no Adler-32", framing: .zlib, expectedSize: data.count, whole: true) { payloads(Array(zlibStream().dropLast(4))) },
        Case(name: "half an Adler-32", framing: .zlib, expectedSize: data.count, whole: true) { payloads(Array(zlibStream().dropLast(2))) },
        Case(name: "data after the stream", framing: .zlib, expectedSize: data.count, whole: true) { payloads(zlibStream() + [1, 2, 3, 4, 5]) },
        Case(name: "each IDAT its own stream", framing: .zlib, expectedSize: data.count, whole: false) {
            let first = zlibStream(Array(data.prefix(100_000)))
            return payloads(first + zlibStream(Array(data.dropFirst(100_000))), cuts: [first.count])
        },
        Case(name: "more data than IHDR implies", framing: .zlib, expectedSize: data.count - 1, whole: false) { payloads(zlibStream()) },
        Case(name: "less data than IHDR implies", framing: .zlib, expectedSize: data.count + 1, whole: false) { payloads(zlibStream()) },
        Case(name: "a corrupt stream", framing: .zlib, expectedSize: data.count, whole: false) {
            var stream = zlibStream()
            for index in stride(from: 40, to: stream.count - 4, by: 53) { stream[index] ^= 0x3C }
            return payloads(stream)
        },
        Case(name: "a stream cut short", framing: .zlib, expectedSize: data.count, whole: false) {
            let stream = zlibStream()
            return payloads(Array(stream.prefix(stream.count / 2)))
        },
        Case(name: "not a zlib header", framing: .zlib, expectedSize: data.count, whole: false) {
            payloads([0x00, 0x00] + CgBIEncoder.deflate(data, zlib: false, flushAt: nil)[0])
        },
    ]

    @Test(arguments: cases)
    func theOneCallPathAnswersAsZlibDoes(_ test: Case) throws {
        let (file, ranges) = test.make()
        let whole = ImageDataInflater.inflateWhole(file: file, ranges: ranges, framing: test.framing, expectedSize: test.expectedSize)
        #expect((whole != nil) == test.whole, "\(test.name)")
        let streamed = Result { () throws(PNGError) in
            try ImageDataInflater.inflateStreaming(
                file: file, ranges: ranges, framing: test.framing, expectedSize: test.expectedSize, firstChunkOffset: 0)
        }
        let chosen = Result { () throws(PNGError) in
            try ImageDataInflater.inflate(file: file, ranges: ranges, framing: test.framing, expectedSize: test.expectedSize, firstChunkOffset: 0)
        }
        switch (streamed, chosen) {
        case (.success(let zlib), .success(let answer)):
            #expect(answer.bytes == zlib.bytes, "\(test.name)")
            #expect(answer.adlerMismatch == zlib.adlerMismatch, "\(test.name)")
            if test.whole { #expect(answer.bytes == Array(Self.data.prefix(test.expectedSize))) }
        case (.failure(let zlib), .failure(let answer)):
            #expect(answer.reason == zlib.reason, "\(test.name): \(answer)")
        default:
            Issue.record("\(test.name): zlib gives \(streamed), the chosen path \(chosen)")
        }
    }
}
