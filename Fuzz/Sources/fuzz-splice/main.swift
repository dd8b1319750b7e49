// Fuzzes `DeflateSplice.deflate` (a re-signed binary's entry reusing its original deflate blocks)
// with hostile originals. The first byte picks the shape:
// - even: the rest is the "original" stream as it is (any bytes), its declared size taken from
//   bytes 1–3 (at most 1 MiB), and the revision a pattern of that size with its start changed;
// - odd: the rest, repeated to 200 KB, is the content, deflated by libdeflate into a valid
//   original, and the revision is that content with bytes near the start changed and the end
//   replaced, as signing changes a Mach-O.
// Checks that a stream it returns inflates to exactly the revision, and that it returns the same
// bytes when asked again; anything else is nil, never a crash. Then the same for a prefix
// (`DeflateSplice.deflatePrefix`, the revision's start before the rest exists, the rest then in
// stored blocks), made with the original's content known (its block boundaries found through a
// small buffer used over and over) and not: for a valid original both give the same stream, and it
// inflates with the stored rest to the revision; for a hostile one, whatever it gives is never a crash.
import Deflate
import FuzzDriver
import Zip

/// Text-like bytes from a fixed generator (make-seeds.py writes the same), which deflate to many
/// blocks, so a valid original reaches the copying.
func letters(_ count: Int) -> [UInt8] {
    var state: UInt32 = 12345
    return (0..<count).map { _ in
        state = state &* 1_103_515_245 &+ 12345
        return UInt8(ascii: "a") + UInt8(truncatingIfNeeded: (state >> 16) % 16)
    }
}

func fuzzOne(_ bytes: [UInt8]) {
    guard let shape = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    let original: [UInt8]
    let content: [UInt8]
    if shape % 2 == 0 {
        guard rest.count >= 3 else { return }
        let size = (Int(rest[0]) << 16 | Int(rest[1]) << 8 | Int(rest[2])) % (1 << 20) + 1
        original = Array(rest.dropFirst(3))
        content = letters(size)
    } else {
        guard !rest.isEmpty, let compressor = DeflateCompressor(level: 6) else { return }
        var repeated: [UInt8] = []
        repeated.reserveCapacity(200_000 + rest.count)
        while repeated.count < 200_000 { repeated += rest }
        content = Array(repeated.prefix(200_000))
        guard let deflated = content.withUnsafeBytes({ compressor.compressIfSmaller($0) }) else { return }
        original = deflated
    }
    var revision = content
    for offset in stride(from: 200, to: min(240, revision.count), by: 7) { revision[offset] ^= shape | 1 }
    if shape % 2 == 1, revision.count > 30_000 {
        revision.removeLast(Int(shape) * 97 % 30_000)
        revision += rest.prefix(Int(shape) * 31)
    }

    fuzzPrefix(revision: revision, original: original, content: content, valid: shape % 2 == 1, cutFrom: shape)
    let spliced = DeflateSplice.deflate(revision: revision, original: original, originalSize: content.count, level: 6)
    guard let spliced else { return }
    var inflated = [UInt8](repeating: 0, count: revision.count)
    let outcome = spliced.withUnsafeBytes { input in
        inflated.withUnsafeMutableBytes { DeflateEngine.inflate(input, into: $0) }
    }
    precondition(outcome == .complete(consumed: spliced.count), "a spliced stream does not inflate whole: \(outcome)")
    precondition(inflated == revision, "a spliced stream inflates to other bytes than the revision")
    precondition(
        DeflateSplice.deflate(revision: revision, original: original, originalSize: content.count, level: 6) == spliced,
        "the same inputs give another stream")
}

func fuzzPrefix(revision: [UInt8], original: [UInt8], content: [UInt8], valid: Bool, cutFrom shape: UInt8) {
    guard revision.count > 1 else { return }
    let cut = revision.count - Int(shape) * 61 % (revision.count / 2 + 1)
    let start = Array(revision[..<cut])
    let known = DeflateSplice.deflatePrefix(start, original: original, originalSize: content.count, level: 6, knownContent: content)
    guard valid else { return }
    let inflatedAgain = DeflateSplice.deflatePrefix(start, original: original, originalSize: content.count, level: 6)
    precondition(known == inflatedAgain, "a known content gives another prefix than the inflated one")
    guard let known else { return }
    let stream = known + DeflateSplice.storedBlocks(of: revision[cut...])
    var inflated = [UInt8](repeating: 0, count: revision.count)
    let outcome = stream.withUnsafeBytes { input in
        inflated.withUnsafeMutableBytes { DeflateEngine.inflate(input, into: $0) }
    }
    precondition(outcome == .complete(consumed: stream.count), "a prefix and its stored rest do not inflate whole: \(outcome)")
    precondition(inflated == revision, "a prefix and its stored rest inflate to other bytes than the revision")
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
