import FormatSupport
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import CodeSignature

/// CodeDirectories of every version, built, read and written; page hashing however the bytes
/// arrive.
@Suite struct CodeDirectoryTests {
    static let code: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }

    static func builder(_ type: HashType = .sha256) throws -> CodeDirectory.Builder {
        var builder = CodeDirectory.Builder(identifier: "com.example.app", teamIdentifier: "ABCDE12345", hashType: type)
        builder.codeLimit = UInt64(code.count)
        var source = InMemoryByteSource(code)
        try builder.hashCode(of: &source)
        try builder.setSpecialSlot(.infoPlist, hashing: Array("<plist/>".utf8))
        return builder
    }

    /// Each version has its header size and exactly its fields; each writes back byte for byte.
    @Test(arguments: [
        (UInt32(0x20001), 44), (0x20100, 48), (0x20200, 52), (0x20300, 64), (0x20400, 88), (0x20500, 96), (0x20600, 108),
    ])
    func everyVersionRoundTrips(version: UInt32, headerSize: Int) throws {
        var builder = try Self.builder()
        builder.minimumVersion = version
        if version < 0x20200 { builder.teamIdentifier = nil }
        if version >= 0x20400 { builder.executableSegment = .init(base: 0, limit: 4096, flags: 1) }
        if version >= 0x20500 { builder.runtime = 0x000E_0000 }
        let directory = try builder.build()
        #expect(directory.version == version)
        #expect(CodeDirectory.Version.headerSize(version) == headerSize)
        #expect(try directory.serialized() == directory.bytes)
        #expect(directory.identifier == "com.example.app")
        #expect(directory.teamIdentifier == (version >= 0x20200 ? "ABCDE12345" : nil))
        #expect((directory.executableSegment != nil) == (version >= 0x20400))
        #expect(directory.runtimeVersion?.description == (version >= 0x20500 ? "14.0" : nil))
        #expect(directory.codeSlotCount == 3)
        #expect(directory.specialSlotCount == 1)
        // The identifier directly follows the fixed header, as codesign lays it out.
        #expect(Array(directory.bytes[headerSize..<(headerSize + 15)]) == Array("com.example.app".utf8))
    }

    /// Scatter vectors, pre-encryption hashes and linkage data, which no iOS signer writes, still
    /// read and write back.
    @Test func rareFieldsRoundTrip() throws {
        let pages = try Self.builder().build().codeSlots
        let bytes = try CodeDirectory.encode(
            version: 0x20600, flags: [.adHoc, .runtime], identifier: Array("x".utf8), teamIdentifier: nil, hashType: .sha256,
            platform: 2, pageSizeLog2: 12, spare2: 0, spare3: 0, codeLimit32: UInt32(Self.code.count), codeLimit64: 0,
            scatter: [.init(count: 2, base: 0, targetOffset: 0), .init(count: 1, base: 2, targetOffset: 8192)],
            executableSegment: nil, runtime: 7, preEncryptHashes: pages,
            linkage: .init(hashType: 2, applicationType: 1, applicationSubtype: 3, data: [9, 9, 9]),
            specialSlots: HashArray(hashSize: 32, storage: []), codeSlots: pages)
        let directory = try CodeDirectory(bytes: bytes)
        #expect(directory.scatter?.count == 2)
        #expect(directory.preEncryptHashes == pages)
        #expect(directory.linkage?.data == [9, 9, 9])
        #expect(directory.platform == 2)
        #expect(directory.isAdHoc)
        #expect(try directory.serialized() == bytes)
    }

    /// Past 4 GiB the limit moves to the 64-bit field (and the version to 0x20300); the 32-bit
    /// field holds `UInt32.max`, as Apple's builder writes it.
    @Test func codeLimitsPast4GiB() throws {
        var builder = CodeDirectory.Builder(identifier: "big", teamIdentifier: nil, hashType: .sha256)
        builder.pageSizeLog2 = 24
        builder.codeLimit = 5 << 30
        builder.codeHashes = HashArray(hashSize: 32, storage: [UInt8](repeating: 1, count: 320 * 32))
        let directory = try builder.build()
        #expect(directory.version == 0x20300)
        #expect(directory.codeLimit == 5 << 30)
        #expect(directory.codeLimit32 == UInt32.max)
        #expect(directory.codeLimit64 == 5 << 30)
        builder.minimumVersion = 0x20001
        builder.codeLimit = 1 << 32 + 1
        builder.codeHashes = HashArray(hashSize: 32, storage: [UInt8](repeating: 1, count: 257 * 32))
        #expect(try builder.build().version == 0x20300)
    }

    @Test func builderRefusesInconsistentInput() throws {
        var builder = try Self.builder()
        builder.codeLimit += 5000
        // Three hashes cannot cover five pages.
        #expect(throws: CodeSignatureError.self) { try builder.build() }
        var unknown = try Self.builder()
        unknown.hashType = HashType(rawValue: 9)
        #expect(throws: CodeSignatureError.self) { try unknown.build() }
        var misnamed = try Self.builder()
        misnamed.identifier = "a\u{0}b"
        #expect(throws: CodeSignatureError.self) { try misnamed.build() }
        var slot = try Self.builder()
        slot.setSpecialSlot(3, hash: [1, 2, 3])
        #expect(throws: CodeSignatureError.self) { try slot.build() }
    }

    @Test(arguments: [HashType.sha1, .sha256, .sha256Truncated, .sha384])
    func hashTypesMatchPython(_ type: HashType) throws {
        let digest = try #require(type.digest(Self.code))
        let name = ["", "sha1", "sha256", "sha256", "sha384"][Int(type.rawValue)]
        let result = try Command.run(
            "python3", ["-c", "import hashlib,sys; print(hashlib.\(name)(sys.stdin.buffer.read()).hexdigest())"], input: Self.code)
        let expected = String(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).prefix((type.digestSize ?? 0) * 2))
        #expect(hex(digest) == expected)
        #expect(try Self.builder(type).build().cdhash?.count == 20)
    }

    /// However the bytes are chunked, on one thread or several, the page hashes are the same.
    @Test func pageHashesDoNotDependOnChunking() throws {
        let big = (0..<(3 << 20) + 1234).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var reference = try CodePageHasher(pageSizeLog2: 12, hashTypes: [.sha1, .sha256], allowsConcurrency: false)
        reference.update(big)
        let expected = reference.finalize()
        #expect(expected.map(\.count) == [769, 769])
        for chunk in [1, 4095, 4096, 65_537, 1 << 20] {
            var hasher = try CodePageHasher(pageSizeLog2: 12, hashTypes: [.sha1, .sha256], allowsConcurrency: true)
            var offset = 0
            while offset < big.count {
                hasher.update(Array(big[offset..<min(big.count, offset + chunk)]))
                offset += chunk
            }
            #expect(hasher.finalize() == expected, "chunks of \(chunk)")
        }
        // The last, short page hashes on its own.
        #expect(expected[1][768] == HashType.sha256.digest(Array(big[(768 * 4096)...])))
    }

    @Test func unpagedCodeHasOneHash() throws {
        var hasher = try CodePageHasher(pageSizeLog2: 0, hashTypes: [.sha256])
        hasher.update(Self.code)
        #expect(hasher.finalize() == [HashArray(hashSize: 32, storage: HashType.sha256.digest(Self.code) ?? [])])
        var empty = try CodePageHasher(pageSizeLog2: 12, hashTypes: [.sha256])
        #expect(empty.finalize().first?.isEmpty == true)
        #expect(throws: CodeSignatureError.self) { try CodePageHasher(pageSizeLog2: 12, hashTypes: [HashType(rawValue: 77)]) }
        var source = InMemoryByteSource(Self.code)
        #expect(throws: CodeSignatureError.self) {
            try CodePageHasher.hashPages(of: &source, offset: 10, length: UInt64(Self.code.count), pageSizeLog2: 12, hashTypes: [.sha1])
        }
    }

    /// Entitlements imply exec-segment flags as Apple's signer sets them.
    @Test func entitlementsImplyExecSegmentFlags() {
        let entitlements: PropertyListDictionary = ["get-task-allow": true, "dynamic-codesigning": true, "com.apple.private.cs.debugger": false]
        #expect(CodeDirectory.ExecutableSegment.flags(forEntitlements: entitlements) == 0x10 | 0x40)
        #expect(CodeDirectory.ExecutableSegment.flags(forEntitlements: ["get-task-allow": "YES"]) == 0)
    }
}
