import Deflate
import Foundation
import Testing
import TestSupport

/// The whole-buffer engine against independent implementations: zlib (which wrote every stream
/// inflated here and checks the checksums) and Python's zlib module (which inflates what the
/// engine compresses).
@Suite struct DeflateEngineTests {
    /// Text with repeats, as resources and machine code have, and random bytes, which do not compress.
    static func text(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        let words = (0..<200).map { _ in (0..<Int.random(in: 2...9, using: &generator)).map { _ in UInt8.random(in: 97...122, using: &generator) } }
        var bytes: [UInt8] = []
        while bytes.count < count {
            bytes += words[Int.random(in: 0..<words.count, using: &generator)] + [0x20]
        }
        return Array(bytes.prefix(count))
    }

    static func random(_ count: Int, seed: UInt64 = 2) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func inflate(_ stream: [UInt8], size: Int) -> (DeflateEngine.InflateOutcome, [UInt8]) {
        var output = [UInt8](repeating: 0, count: size)
        let outcome = stream.withUnsafeBytes { input in output.withUnsafeMutableBytes { DeflateEngine.inflate(input, into: $0) } }
        return (outcome, output)
    }

    @Test(arguments: [0, 1, 1000, 300_000])
    func inflatesWhatZlibWrote(size: Int) {
        let original = Self.text(size) + Self.random(size / 3)
        let stream = ZipBuilder.deflate(original)
        let (outcome, output) = Self.inflate(stream + [0xAA, 0xBB], size: original.count)
        // Trailing bytes are not the stream's: `consumed` says where it ended.
        #expect(outcome == .complete(consumed: stream.count))
        #expect(output == original)
    }

    @Test func aStreamShorterThanDeclaredSaysHowMuchItHeld() {
        let original = Self.text(10_000)
        let (outcome, _) = Self.inflate(ZipBuilder.deflate(original), size: 10_001)
        #expect(outcome == .endsEarly(produced: 10_000))
    }

    @Test func aStreamLongerThanDeclaredIsStoppedAtTheDeclaredSize() {
        // A bomb: 64 MiB of zeros in 64 KiB of deflate, declared as 1,000 bytes.
        let stream = ZipBuilder.deflate([UInt8](repeating: 0, count: 64 << 20), level: 9)
        #expect(stream.count < 100_000)
        let (outcome, _) = Self.inflate(stream, size: 1000)
        #expect(outcome == .overruns)
    }

    @Test func corruptAndTruncatedStreamsAreRefused() {
        let stream = ZipBuilder.deflate(Self.text(50_000))
        // Block type 3 is reserved.
        #expect(Self.inflate([0x07] + stream.dropFirst(), size: 50_000).0 == .corrupt)
        #expect(Self.inflate(Array(stream.prefix(stream.count / 2)), size: 50_000).0 == .corrupt)
        #expect(Self.inflate([], size: 10).0 == .corrupt)
        var flipped = stream
        for index in stride(from: 200, to: flipped.count, by: 97) { flipped[index] ^= 0x5A }
        let outcome = Self.inflate(flipped, size: 50_000).0
        #expect(outcome != .complete(consumed: stream.count))
    }

    @Test func checksumsAgreeWithZlib() {
        for bytes in [[], [0x61], Self.text(100_000), Self.random(4097)] as [[UInt8]] {
            let crc = bytes.withUnsafeBytes { DeflateEngine.crc32($0) }
            #expect(crc == ZipBuilder.crc32(bytes))
            // Continued over two halves, as a stream's chunks are.
            let half = bytes.count / 2
            let first = bytes[..<half].withUnsafeBytes { DeflateEngine.crc32($0) }
            #expect(bytes[half...].withUnsafeBytes { DeflateEngine.crc32($0, continuing: first) } == crc)
        }
        // Adler-32 by its definition (RFC 1950, section 8.2).
        let text = Self.text(70_000)
        var (low, high): (UInt32, UInt32) = (1, 0)
        for byte in text {
            low = (low + UInt32(byte)) % 65_521
            high = (high + low) % 65_521
        }
        #expect(text.withUnsafeBytes { DeflateEngine.adler32($0) } == high << 16 | low)
    }

    @Test(.enabled(if: PythonOracle.canRun(), "needs the Python oracle (Scripts/test makes it)"))
    func whatItCompressesPythonInflates() throws {
        let scratch = try ScratchDirectory("deflate")
        let original = Self.text(400_000) + Self.random(20_000) + Self.text(100_000, seed: 7)
        let compressor = try #require(DeflateCompressor(level: DeflateLevel.standard.wholeBuffer))
        let stream = try #require(original.withUnsafeBytes { compressor.compressIfSmaller($0) })
        #expect(stream.count < original.count / 2)
        let path = try scratch.write("stream.deflate", stream)
        let inflated = scratch.path("inflated")
        _ = try PythonOracle.run(
            "import sys, zlib; open(sys.argv[2], 'wb').write(zlib.decompress(open(sys.argv[1], 'rb').read(), -15))",
            arguments: [path, inflated])
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: inflated))) == original)
        #expect(Self.inflate(stream, size: original.count) == (.complete(consumed: stream.count), original))
    }

    @Test func compressionIsDeterministicAndStoresWhatDoesNotShrink() throws {
        let original = Self.text(200_000)
        let first = try #require(DeflateCompressor(level: 5))
        let again = try #require(original.withUnsafeBytes { first.compressIfSmaller($0) })
        // The same compressor after other work, and a new one, write the same bytes.
        _ = Self.random(50_000).withUnsafeBytes { first.compressIfSmaller($0) }
        #expect(original.withUnsafeBytes { first.compressIfSmaller($0) } == again)
        #expect(original.withUnsafeBytes { DeflateCompressor(level: 5)?.compressIfSmaller($0) } == again)
        // Random bytes do not shrink; nor does a single byte or nothing.
        #expect(Self.random(100_000).withUnsafeBytes { first.compressIfSmaller($0) } == nil)
        #expect([0x61].withUnsafeBytes { first.compressIfSmaller($0) } == nil)
        #expect([UInt8]().withUnsafeBytes { first.compressIfSmaller($0) } == nil)
    }

    @Test func levelsAreClampedToWhatEachEngineTakes() {
        #expect(DeflateLevel(wholeBuffer: 40, blocks: -3) == DeflateLevel(wholeBuffer: 12, blocks: 0))
        #expect(DeflateCompressor(level: 99) != nil)
    }
}
