import LZFSE
import TestSupport
import Testing

@Suite("LZFSE streams built by hand, limits and hostile input")
struct LZFSEStreamTests {
    let end: [UInt8] = Array("bvx$".utf8)
    let endOfStream: [UInt8] = [0x06, 0, 0, 0, 0, 0, 0, 0]

    func le32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    func raw(_ bytes: [UInt8]) -> [UInt8] {
        Array("bvx-".utf8) + le32(bytes.count) + bytes
    }

    func lzvn(decoded: Int, payload: [UInt8]) -> [UInt8] {
        Array("bvxn".utf8) + le32(decoded) + le32(payload.count) + payload
    }

    @Test func emptyInputIsTruncated() {
        #expect(lzfseCode { _ = try LZFSE.decompress([UInt8](), maximumOutput: 10) } == "LZFSE_TRUNCATED")
    }

    @Test func endBlockAloneIsEmpty() throws {
        #expect(try LZFSE.decompress(end, maximumOutput: 0) == [])
        #expect(try LZFSE.blocks(in: end) == [])
    }

    @Test func bytesAfterTheEndBlockAreIgnored() throws {
        #expect(try LZFSE.decompress(raw([1, 2, 3]) + end + [9, 9, 9], maximumOutput: 3) == [1, 2, 3])
    }

    @Test func matchesMayReachIntoEarlierBlocks() throws {
        // sml_d with L = 0, M = 8, D = 8: copies the raw block's eight bytes.
        let stream = raw(Array("abcdefgh".utf8)) + lzvn(decoded: 8, payload: [0x28, 0x08] + endOfStream) + end
        #expect(try LZFSE.decompress(stream, maximumOutput: 16) == Array("abcdefghabcdefgh".utf8))
    }

    @Test func overlappingMatchesRepeatThePattern() throws {
        // A one-byte literal "x", then sml_d with L = 0, MMM = 110 (M = 9), D = 1: ten "x".
        let operation: [UInt8] = [0xE1, UInt8(ascii: "x"), 0b00_110_000, 0x01]
        let stream = lzvn(decoded: 10, payload: operation + endOfStream) + end
        #expect(try LZFSE.decompress(stream, maximumOutput: 10) == Array(repeating: UInt8(ascii: "x"), count: 10))
    }

    @Test func outputLimitIsCheckedBeforeDecoding() {
        let stream = raw(Array(repeating: 7, count: 100)) + end
        #expect(lzfseCode { _ = try LZFSE.decompress(stream, maximumOutput: 99) } == "LZFSE_OUTPUT_LIMIT")
        // A raw block claiming 4 GiB with three bytes of payload is truncated, never allocated.
        let huge = Array("bvx-".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [1, 2, 3] + end
        #expect(lzfseCode { _ = try LZFSE.decompress(huge, maximumOutput: Int.max) } == "LZFSE_TRUNCATED")
    }

    @Test func lzvnBlockClaimingHugeOutputIsRejected() {
        let stream = lzvn(decoded: 0x7FFF_FFFF, payload: [0xE1, 0x41] + endOfStream) + end
        #expect(lzfseCode { _ = try LZFSE.decompress(stream, maximumOutput: Int.max) } == "LZFSE_CORRUPT_DATA")
    }

    @Test func lzvnMatchWithoutDistanceIsCorrupt() {
        // A small-match opcode first: there is no previous distance to repeat.
        #expect(lzfseCode { _ = try LZVN.decompress([0xF3] + endOfStream, maximumOutput: 100) } == "LZFSE_CORRUPT_DATA")
    }

    @Test func sliceAndNonContiguousInputsDecodeLikeArrays() throws {
        let stream = try Fixtures.bytes("lzfse/text-1k.lzfse")
        let expected = try Fixtures.bytes("lzfse/text-1k.bin")
        let padded = [0xAA, 0xBB] + stream + [0xCC]
        #expect(try LZFSE.decompress(padded[2..<(2 + stream.count)], maximumOutput: 1000) == expected)
        #expect(try LZFSE.decompress(stream.lazy.map { $0 }, maximumOutput: 1000) == expected)
    }

    /// Random byte changes to valid streams: each decode either succeeds or throws LZFSEError. Debug
    /// builds check every buffer subscript, so an out-of-range access would stop the test.
    @Test(arguments: ["text-1k", "pixels-3k", "text-20k", "text-20k-v1", "pixels-64k", "mixed-blocks"])
    func mutatedStreamsNeverTrap(name: String) throws {
        let stream = try Fixtures.bytes("lzfse/\(name).lzfse")
        var generator = SplitMix64(seed: 0x5EED_0000 &+ UInt64(stream.count))
        var failures = 0
        let rounds = stream.count > 30_000 ? 150 : 400
        for _ in 0..<rounds {
            var mutated = stream
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(mutated.count))
                mutated[index] ^= UInt8(truncatingIfNeeded: 1 &+ generator.next() % 255)
            }
            if lzfseCode({ _ = try LZFSE.decompress(mutated, maximumOutput: 1 << 22) }) != nil { failures += 1 }
        }
        // Changes to headers and bit streams are mostly detected.
        #expect(failures > 0)
    }

    @Test func mutatedLZVNPayloadsNeverTrap() throws {
        let payload = try Fixtures.bytes("lzfse/pixels-3k.lzvn")
        var generator = SplitMix64(seed: 42)
        for _ in 0..<1000 {
            var mutated = payload
            let index = Int(generator.next() % UInt64(mutated.count))
            mutated[index] = UInt8(truncatingIfNeeded: generator.next())
            _ = lzfseCode { _ = try LZVN.decompress(mutated, maximumOutput: 1 << 16) }
            _ = lzfseCode { _ = try LZVN.decompress(mutated, decodedSize: 3072) }
        }
    }
}
