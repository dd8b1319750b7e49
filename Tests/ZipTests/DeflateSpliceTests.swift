import Testing
import TestSupport

@testable import Zip

/// `DeflateSplice`: a revision's stream reuses the original's blocks where the two agree, and
/// what it writes inflates (with zlib, not the libdeflate it checks itself with) to the revision.
@Suite struct DeflateSpliceTests {
    /// Text-like bytes (words of a small vocabulary), which deflate to blocks of tens of KB, as
    /// code does.
    static func content(_ count: Int, seed: UInt32) -> [UInt8] {
        let words = ["mov", "ldr", "str", "x0", "x1", "bl", "_objc_msgSend", "ret", "add", "sub", "cmp", "b.ne", "\n", " ", ", "]
        var state = seed &* 2_654_435_761 | 1
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            state = state &* 1_103_515_245 &+ 12345
            bytes += Array(words[Int(state >> 16) % words.count].utf8)
            if state & 0x700 == 0 { bytes.append(UInt8(truncatingIfNeeded: state >> 24)) }
        }
        return Array(bytes.prefix(count))
    }

    /// `content` re-signed, as a signer changes a Mach-O: a size field near the start, and the
    /// end replaced by a longer signature.
    static func revision(of original: [UInt8], seed: UInt32) -> [UInt8] {
        var revised = original
        for index in 200..<208 { revised[index] ^= 0x5A }
        revised.removeLast(30_000)
        return revised + Array(content(37_000, seed: seed &+ 99).reversed())
    }

    static func bit(_ bytes: [UInt8], _ index: Int) -> UInt8 { bytes[index / 8] >> UInt8(index % 8) & 1 }

    @Test func theOriginalsMiddleBlocksAreCopiedBitForBit() throws {
        let original = Self.content(1 << 20, seed: 7)
        let compressed = ZipBuilder.deflate(original)
        let revision = Self.revision(of: original, seed: 7)
        let spliced = try #require(DeflateSplice.splice(revision: revision, original: compressed, originalSize: original.count, level: 6))
        #expect(ZipBuilder.inflate(spliced.stream, size: revision.count) == revision)
        // Most of the original's bits are in the new stream as they were.
        #expect(spliced.copiedBits.count > compressed.count * 8 * 7 / 10)
        let differing = (0..<spliced.copiedBits.count).first { offset in
            Self.bit(compressed, spliced.copiedBits.lowerBound + offset) != Self.bit(spliced.stream, spliced.copiedTo + offset)
        }
        #expect(differing == nil)
        // The same inputs give the same bytes.
        #expect(DeflateSplice.deflate(revision: revision, original: compressed, originalSize: original.count, level: 6) == spliced.stream)
        // With the original's content known, only the boundaries are looked for (through a buffer
        // used four times over): the same ones, and the same stream.
        #expect(DeflateSplice.boundaries(of: compressed, size: original.count) == DeflateSplice.inflateWithBoundaries(compressed, size: original.count)?.1)
        #expect(DeflateSplice.splice(
            revision: revision, original: compressed, originalSize: original.count, level: 6, knownContent: original)?.stream == spliced.stream)
        // A stream cut short, or holding more than the size says, has none.
        #expect(DeflateSplice.boundaries(of: Array(compressed.dropLast(100)), size: original.count) == nil)
        #expect(DeflateSplice.boundaries(of: compressed, size: original.count - 1) == nil)
        #expect(DeflateSplice.boundaries(of: compressed, size: original.count + 1) == nil)
    }

    /// A stream made from the revision's first bytes, before the rest existed (a re-signed
    /// executable's code before its signature), then the rest in stored blocks: it inflates (with
    /// zlib) to the revision at every bit alignment of the cut, and its size was known before the
    /// rest was.
    @Test func aPrefixThenStoredBlocksInflatesToTheRevision() throws {
        for seed in UInt32(1)...8 {
            let original = Self.content(400_000 + Int(seed) * 1_013, seed: seed)
            let compressed = ZipBuilder.deflate(original, level: seed % 2 == 0 ? 6 : 9)
            let revision = Self.revision(of: original, seed: seed)
            let cut = revision.count - 37_000 - Int(seed) * 5_000
            let prefix = try #require(DeflateSplice.deflatePrefix(
                Array(revision[..<cut]), original: compressed, originalSize: original.count, level: 6), "seed \(seed)")
            let rest = DeflateSplice.storedBlocks(of: revision[cut...])
            #expect(rest.count == DeflateSplice.storedBlocksSize(revision.count - cut))
            #expect(ZipBuilder.inflate(prefix + rest, size: revision.count) == revision, "seed \(seed)")
            #expect(DeflateSplice.inflatesTo(prefix + rest, revision), "seed \(seed)")
        }
        // The whole original but a header field, then what was not there (an unsigned file signed).
        let original = Self.content(400_000, seed: 11)
        let compressed = ZipBuilder.deflate(original)
        var code = original
        for index in 200..<208 { code[index] ^= 0x5A }
        let signature = Noise.bytes(12_000, seed: 11)
        let prefix = try #require(DeflateSplice.deflatePrefix(code, original: compressed, originalSize: original.count, level: 6))
        let stream = prefix + DeflateSplice.storedBlocks(of: signature[...])
        #expect(ZipBuilder.inflate(stream, size: code.count + signature.count) == code + signature, "the original's final block is not copied")
        // The same holds for a whole revision that keeps all of the original and adds to it.
        let whole = code + signature
        let spliced = try #require(DeflateSplice.deflate(revision: whole, original: compressed, originalSize: original.count, level: 6))
        #expect(ZipBuilder.inflate(spliced, size: whole.count) == whole)
        // Stored blocks alone: empty, one, and several, each at most 65,535 bytes.
        for count in [0, 1, 65_535, 65_536, 200_000] {
            let bytes = Noise.bytes(count, seed: UInt64(count + 1))
            let stream = DeflateSplice.storedBlocks(of: bytes[...])
            #expect(stream.count == DeflateSplice.storedBlocksSize(count))
            #expect(ZipBuilder.inflate(stream, size: count) == bytes, "\(count)")
        }
    }

    @Test func everyBitAlignmentOfTheCutInflates() throws {
        var alignments = Set<Int>()
        for seed in UInt32(1)...16 {
            let original = Self.content(400_000 + Int(seed) * 1_013, seed: seed)
            let compressed = ZipBuilder.deflate(original, level: seed % 2 == 0 ? 6 : 9)
            let revision = Self.revision(of: original, seed: seed)
            let spliced = try #require(
                DeflateSplice.splice(revision: revision, original: compressed, originalSize: original.count, level: 6))
            #expect(ZipBuilder.inflate(spliced.stream, size: revision.count) == revision, "seed \(seed)")
            alignments.insert(spliced.copiedBits.lowerBound % 8)
        }
        // The copies were shifted by several amounts, not only byte-aligned.
        #expect(alignments.count >= 4, "\(alignments)")
    }

    /// Stored blocks (an entry deflate did not shrink) start on byte boundaries, so they are
    /// copied unshifted and keep their padding.
    @Test func storedBlocksAreCopied() throws {
        let original = Self.content(300_000, seed: 3)
        let compressed = ZipBuilder.deflate(original, level: 0)
        let revision = Self.revision(of: original, seed: 3)
        let spliced = try #require(DeflateSplice.splice(revision: revision, original: compressed, originalSize: original.count, level: 6))
        #expect(spliced.copiedBits.lowerBound % 8 == 0)
        #expect(ZipBuilder.inflate(spliced.stream, size: revision.count) == revision)
        #expect(DeflateSplice.isStoredBlock([0b000], at: 0))
        #expect(!DeflateSplice.isStoredBlock([0b010], at: 0))
        #expect(!DeflateSplice.isStoredBlock([], at: 0))
    }

    /// What cannot be reused, or is not what it claims, gives nil (the caller deflates the
    /// revision whole), never a wrong stream or a crash.
    @Test func whatCannotBeReusedGivesNil() {
        let original = Self.content(300_000, seed: 5)
        let compressed = ZipBuilder.deflate(original)
        let revision = Self.revision(of: original, seed: 5)
        func splice(_ stream: [UInt8], size: Int, _ revised: [UInt8] = revision) -> [UInt8]? {
            DeflateSplice.deflate(revision: revised, original: stream, originalSize: size, level: 6)
        }
        #expect(splice(compressed, size: original.count) != nil)
        // Nothing in common.
        #expect(splice(compressed, size: original.count, Self.content(300_000, seed: 6)) == nil)
        // A stream cut short, a size lie either way, garbage, nothing.
        #expect(splice(Array(compressed.dropLast(100)), size: original.count) == nil)
        #expect(splice(compressed, size: original.count + 1) == nil)
        #expect(splice(compressed, size: original.count - 1) == nil)
        #expect(splice(Self.content(100_000, seed: 8), size: original.count) == nil)
        #expect(splice([], size: original.count) == nil)
        // A stream of more blocks than compressors write (here a sync flush every 100 bytes:
        // two blocks each) is not walked block by block.
        var flushed: [UInt8] = []
        for start in stride(from: 0, to: original.count, by: 100) {
            let end = min(start + 100, original.count)
            #expect(RawDeflate.append(original, range: start..<end, dictionary: 0, final: end == original.count, level: 6, to: &flushed))
        }
        #expect(ZipBuilder.inflate(flushed, size: original.count) == original)
        #expect(splice(flushed, size: original.count) == nil)
        // A declared size beyond what is ever inflated whole is not allocated.
        #expect(splice(compressed, size: Int(ZipArchive.wholeReadLimit) + 1) == nil)
        // Too small to be worth it.
        let small = Self.content(50_000, seed: 9)
        var smallRevision = small
        smallRevision[100] ^= 1
        #expect(splice(ZipBuilder.deflate(small), size: small.count, smallRevision) == nil)
    }

    @Test func bitsAreCopiedAcrossByteBoundaries() throws {
        let stream: [UInt8] = [0b1010_1100, 0b0111_0001, 0b1111_0000]
        var output: [UInt8] = [0xEE]
        // Bits 3..<17: 14 bits, one whole byte and 6 left over.
        let pending = try #require(DeflateSplice.appendBits(of: stream, from: 3, to: 17, to: &output))
        #expect(output == [0xEE, 0b0011_0101])
        #expect(pending.count == 6)
        #expect(pending.value == 0b00_1110)
        #expect(DeflateSplice.appendBits(of: stream, from: 3, to: 25, to: &output) == nil)
        #expect(DeflateSplice.appendBits(of: stream, from: 9, to: 8, to: &output) == nil)
    }
}
