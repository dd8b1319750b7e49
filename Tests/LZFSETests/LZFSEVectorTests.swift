import Foundation
import LZFSE
import TestSupport
import Testing

/// `Tests/Fixtures/lzfse/vectors.json`, written by `Scripts/make-lzfse-vectors`.
struct VectorManifest: Decodable {
    struct Vector: Decodable {
        let name: String
        let size: Int
        let adler32: UInt32
        let blocks: [String]
    }

    struct Payload: Decodable {
        let name: String
        let size: Int
        let adler32: UInt32
    }

    struct Corrupt: Decodable {
        let name: String
        let code: String
    }

    struct Benchmark: Decodable {
        let name: String
        let size: Int
        let adler32: UInt32
        let lzfseV2Blocks: Int
    }

    let vectors: [Vector]
    let lzvn: [Payload]
    let corrupt: [Corrupt]
    let benchmark: Benchmark

    static func load() throws -> VectorManifest {
        try JSONDecoder().decode(VectorManifest.self, from: Data(try Fixtures.bytes("lzfse/vectors.json")))
    }
}

/// Adler-32 as zlib computes it, to check outputs the manifest describes by checksum only.
func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    var index = 0
    while index < bytes.count {
        let end = min(index + 5552, bytes.count)
        while index < end {
            a += UInt32(bytes[index])
            b += a
            index += 1
        }
        a %= 65521
        b %= 65521
    }
    return b << 16 | a
}

/// The code of the `LZFSEError` that `body` throws, or nil when it succeeds.
func lzfseCode(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as LZFSEError {
        return error.code
    } catch {
        return "unexpected \(type(of: error)): \(error)"
    }
}

@Suite("LZFSE against the reference encoder's vectors")
struct LZFSEVectorTests {
    static let manifest: VectorManifest? = try? VectorManifest.load()
    static var vectorNames: [String] { manifest?.vectors.map(\.name) ?? [] }

    @Test func manifestCoversEveryBlockKind() throws {
        let manifest = try #require(Self.manifest)
        let kinds = Set(manifest.vectors.flatMap(\.blocks))
        #expect(kinds == ["raw", "lzvn", "lzfse-v1", "lzfse-v2", "end"])
    }

    @Test(arguments: vectorNames)
    func decodesToTheExpectedBytes(name: String) throws {
        let vector = try #require(Self.manifest?.vectors.first { $0.name == name })
        let stream = try Fixtures.bytes("lzfse/\(name).lzfse")
        let expected = try Fixtures.bytes("lzfse/\(name).bin")
        #expect(expected.count == vector.size)
        #expect(adler32(expected) == vector.adler32)

        let decoded = try LZFSE.decompress(stream, maximumOutput: vector.size)
        #expect(decoded == expected)

        let kindNames: [LZFSEBlock.Kind: String] = [
            .raw: "raw", .lzvn: "lzvn", .compressedV1: "lzfse-v1", .compressedV2: "lzfse-v2",
        ]
        let blocks = try LZFSE.blocks(in: stream)
        #expect(blocks.map { kindNames[$0.kind] ?? "?" } + ["end"] == vector.blocks)
        #expect(blocks.reduce(0) { $0 + $1.decodedSize } == vector.size)
        #expect(blocks.reduce(4) { $0 + $1.encodedSize } == stream.count)
    }

    @Test(arguments: vectorNames)
    func everyTruncationIsReportedAsTruncated(name: String) throws {
        let stream = try Fixtures.bytes("lzfse/\(name).lzfse")
        // Every cut for short streams; about 300 evenly spread cuts for long ones.
        let step = max(1, stream.count / 300)
        for length in stride(from: 0, to: stream.count, by: step) {
            let code = lzfseCode { _ = try LZFSE.decompress(Array(stream[..<length]), maximumOutput: 1 << 24) }
            #expect(code == "LZFSE_TRUNCATED", "cut at \(length) of \(stream.count)")
        }
    }

    @Test func corruptStreamsGiveTheirErrors() throws {
        let manifest = try #require(Self.manifest)
        #expect(manifest.corrupt.count >= 8)
        for corrupt in manifest.corrupt {
            let stream = try Fixtures.bytes("lzfse/corrupt/\(corrupt.name).lzfse")
            let code = lzfseCode { _ = try LZFSE.decompress(stream, maximumOutput: 1 << 24) }
            #expect(code == corrupt.code, "\(corrupt.name)")
        }
    }

    @Test func bareLZVNPayloadsDecode() throws {
        let manifest = try #require(Self.manifest)
        #expect(!manifest.lzvn.isEmpty)
        for payload in manifest.lzvn {
            let bytes = try Fixtures.bytes("lzfse/\(payload.name).lzvn")
            let expected = try Fixtures.bytes("lzfse/\(payload.name).bin")
            #expect(try LZVN.decompress(bytes, decodedSize: payload.size) == expected)
            // Unknown size: the decoder grows its buffer as needed.
            #expect(try LZVN.decompress(bytes, maximumOutput: 1 << 20) == expected)
            #expect(lzfseCode { _ = try LZVN.decompress(bytes, maximumOutput: payload.size - 1) } == "LZFSE_OUTPUT_LIMIT")
            #expect(lzfseCode { _ = try LZVN.decompress(bytes, decodedSize: payload.size - 1) } == "LZFSE_CORRUPT_DATA")
            #expect(lzfseCode { _ = try LZVN.decompress(bytes, decodedSize: payload.size + 1) } == "LZFSE_CORRUPT_DATA")
            for length in 0..<bytes.count {
                let code = lzfseCode { _ = try LZVN.decompress(Array(bytes[..<length]), decodedSize: payload.size) }
                #expect(code == "LZFSE_TRUNCATED", "\(payload.name) cut at \(length)")
            }
        }
    }

    @Test func benchmarkBitmapDecodes() throws {
        let manifest = try #require(Self.manifest)
        let stream = try Fixtures.bytes("lzfse/\(manifest.benchmark.name).lzfse")
        let blocks = try LZFSE.blocks(in: stream)
        #expect(blocks.filter { $0.kind == .compressedV2 }.count == manifest.benchmark.lzfseV2Blocks)
        let decoded = try LZFSE.decompress(stream, maximumOutput: manifest.benchmark.size)
        #expect(decoded.count == manifest.benchmark.size)
        #expect(adler32(decoded) == manifest.benchmark.adler32)
    }
}
