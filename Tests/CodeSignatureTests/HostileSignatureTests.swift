import CodeSignature
import FormatSupport
import MachO
import TestSupport
import Testing

/// Malformed and hostile signatures: every count, offset and length is checked, each failure
/// is a `CodeSignatureError` with its code, nothing traps.
@Suite struct HostileSignatureTests {
    /// A complete signature: SHA-1 and SHA-256 directories, requirements, both entitlements,
    /// a CMS placeholder. Slots 0, 2, 5, 7, 0x1000, 0x10000.
    static func base() throws -> [UInt8] {
        let code: [UInt8] = (0..<9000).map { UInt8(truncatingIfNeeded: $0) }
        var directories: [CodeDirectory] = []
        for type in [HashType.sha1, .sha256] {
            var builder = CodeDirectory.Builder(identifier: "com.example.app", teamIdentifier: "ABCDE12345", hashType: type)
            builder.codeLimit = UInt64(code.count)
            var source = InMemoryByteSource(code)
            try builder.hashCode(of: &source)
            try builder.setSpecialSlot(.infoPlist, hashing: [1, 2, 3])
            directories.append(try builder.build())
        }
        return try EmbeddedSignature(
            codeDirectories: directories,
            requirements: RequirementSet(designated: .iOSDesignated(identifier: "com.example.app", leafCommonName: "Dev")),
            entitlements: try EntitlementsBlob(dictionary: ["get-task-allow": true]),
            derEntitlements: DEREntitlements(dictionary: ["get-task-allow": true]), cmsSignature: [0x30, 0x00]
        ).serialized()
    }

    static func u32(_ bytes: [UInt8], _ offset: Int) -> Int {
        (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    static func patch(_ bytes: inout [UInt8], _ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(24 - 8 * index)) }
    }

    /// Offset of the blob in index position `index`.
    static func blob(_ bytes: [UInt8], _ index: Int) -> Int { u32(bytes, 16 + index * 8) }

    struct Case: CustomTestStringConvertible, Sendable {
        let code: String
        let name: String
        let mutate: @Sendable (inout [UInt8]) -> Void
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // The SuperBlob and its index.
        Case(code: "SIGNATURE_BLOB_INVALID", name: "bad magic") { patch(&$0, 0xFADE_0C02, at: 0) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "length past the data") { patch(&$0, 0x7FFF_FFFF, at: 4) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "length under a header") { patch(&$0, 8, at: 4) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "count past the blob") { patch(&$0, 1000, at: 8) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "count 2^32 - 1") { patch(&$0, 0xFFFF_FFFF, at: 8) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "offset past the end") { patch(&$0, 0xFFFF_FFF0, at: 16) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "offset into the index") { patch(&$0, 20, at: 16) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "offset zero (a loop to the header)") { patch(&$0, 0, at: 24) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "blob length past the SuperBlob") { bytes in
            patch(&bytes, 0x0100_0000, at: blob(bytes, 0) + 4)
        },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "blob length under its header") { bytes in
            patch(&bytes, 4, at: blob(bytes, 1) + 4)
        },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "duplicate slot") { patch(&$0, 0, at: 20) },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "overlapping blobs") { bytes in
            patch(&bytes, UInt32(blob(bytes, 0) + 8), at: 24)
        },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "slot holds the wrong blob") { bytes in
            // Slot 2 now points at the CodeDirectory (slot 0 moved to the requirements: both
            // remain whole blobs, without overlap).
            let directory = blob(bytes, 0)
            let requirements = blob(bytes, 1)
            patch(&bytes, UInt32(requirements), at: 16)
            patch(&bytes, UInt32(directory), at: 24)
        },
        Case(code: "SIGNATURE_BLOB_INVALID", name: "alternate directory without a primary") { patch(&$0, 0x1001, at: 12) },

        // The primary CodeDirectory (offsets from its start).
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "version too old") { patch(&$0, 0x20000, at: blob($0, 0) + 8) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "version from the future") { patch(&$0, 0x30000, at: blob($0, 0) + 8) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "hash offset into the header") { patch(&$0, 40, at: blob($0, 0) + 16) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "hash offset past the blob") { patch(&$0, 0x7FFF_FFFF, at: blob($0, 0) + 16) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "identifier offset into the header") { patch(&$0, 8, at: blob($0, 0) + 20) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "identifier offset past the blob") { patch(&$0, 0x00FF_FFFF, at: blob($0, 0) + 20) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "2^32 - 1 special slots") { patch(&$0, 0xFFFF_FFFF, at: blob($0, 0) + 24) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "2^32 - 1 code slots") { patch(&$0, 0xFFFF_FFFF, at: blob($0, 0) + 28) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "code limit needing more pages than slots") {
            patch(&$0, 0x7FFF_FFFF, at: blob($0, 0) + 32)
        },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "hash size zero") { $0[blob($0, 0) + 36] = 0 },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "hash size not its type's") { $0[blob($0, 0) + 36] = 32 },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "page size 2^40") { $0[blob($0, 0) + 39] = 40 },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "scatter vector in the header") { patch(&$0, 12, at: blob($0, 0) + 44) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "scatter vector without an end") { bytes in
            // Point the scatter vector at the hashes, which hold no zero count before the end.
            patch(&bytes, UInt32(u32(bytes, blob(bytes, 0) + 16)), at: blob(bytes, 0) + 44)
        },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "team offset past the blob") { patch(&$0, 0xFFFF, at: blob($0, 0) + 48) },
        Case(code: "SIGNATURE_CODE_DIRECTORY_INVALID", name: "identifier without its NUL") { bytes in
            let directory = blob(bytes, 0)
            let identifier = directory + u32(bytes, directory + 20)
            let hashes = directory + u32(bytes, directory + 16)
            for index in identifier..<hashes { bytes[index] = 0x41 }
        },

        // The requirement set and the entitlements.
        Case(code: "SIGNATURE_REQUIREMENT_INVALID", name: "requirement count past the set") { patch(&$0, 1000, at: blob($0, 1) + 8) },
        Case(code: "SIGNATURE_REQUIREMENT_INVALID", name: "requirement pointing at its set") { patch(&$0, 0, at: blob($0, 1) + 16) },
        Case(code: "SIGNATURE_REQUIREMENT_INVALID", name: "requirement opcode unknown") { patch(&$0, 0x77, at: blob($0, 1) + 32) },
    ]

    @Test(arguments: cases)
    func givesItsCode(_ hostile: Case) throws {
        var bytes = try Self.base()
        hostile.mutate(&bytes)
        do {
            _ = try EmbeddedSignature(bytes: bytes)
            Issue.record("\(hostile.name) was read without an error")
        } catch {
            #expect(error.code == hostile.code, "\(hostile.name): \(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    /// Entitlements are kept as bytes and decoded on request: a damaged XML or DER blob does not
    /// hide the rest of the signature.
    @Test func damagedEntitlementsFailWhenDecoded() throws {
        var bytes = try Self.base()
        bytes[Self.blob(bytes, 2) + 8] = 0x7B
        bytes[Self.blob(bytes, 3) + 8] = 0x31
        let signature = try EmbeddedSignature(bytes: bytes)
        #expect(signature.codeDirectories.count == 2)
        do {
            _ = try signature.entitlements?.dictionary()
            Issue.record("damaged XML entitlements were decoded")
        } catch {
            #expect(error.code == "ENTITLEMENTS_XML_INVALID")
        }
        do {
            _ = try signature.derEntitlements()
            Issue.record("damaged DER entitlements were decoded")
        } catch {
            #expect(error.code == "ENTITLEMENTS_DER_INVALID")
        }
    }

    @Test func theBaseIsValidAndCanonical() throws {
        let bytes = try Self.base()
        let signature = try EmbeddedSignature(bytes: bytes)
        #expect(signature.blobs.map(\.slot) == [0, 2, 5, 7, 0x1000, 0x10000])
        #expect(signature.codeDirectorySlots == [0, 0x1000])
        #expect(try signature.serialized() == bytes)
        #expect(try signature.derEntitlements()?.dictionary == ["get-task-allow": true])
        // Padding after the SuperBlob (as LC_CODE_SIGNATURE ranges have) is ignored.
        #expect(try EmbeddedSignature(bytes: bytes + [UInt8](repeating: 0, count: 100)) == signature)
    }

    /// Every strict prefix fails with a code; random corruption either reads or fails with one.
    @Test func truncationAndCorruptionNeverTrap() throws {
        let bytes = try Self.base()
        for length in 0..<bytes.count {
            #expect(throws: CodeSignatureError.self) { try EmbeddedSignature(bytes: Array(bytes.prefix(length))) }
        }
        var random = SplitMix64(seed: 0x5349_474E)
        var refused = 0
        for _ in 0..<3000 {
            var mutated = bytes
            for _ in 0..<(1 + random.next() % 3) {
                let at = Int(random.next() % UInt64(mutated.count - 4))
                if random.next() % 2 == 0 {
                    mutated[at] = UInt8(truncatingIfNeeded: random.next())
                } else {
                    Self.patch(&mutated, [0, 1, 0xFF, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(bytes.count)][Int(random.next() % 6)], at: at)
                }
            }
            do {
                let signature = try EmbeddedSignature(bytes: mutated)
                // What reads writes back and reads the same.
                #expect(try EmbeddedSignature(bytes: try signature.serialized()) == signature)
            } catch {
                refused += 1
            }
        }
        #expect(refused > 500)
    }

    /// Through a Mach-O, a CodeDirectory may not cover bytes past the end of the slice (it is
    /// otherwise consistent: one 64 KiB page hash for a code limit of 64 KiB), and malformed
    /// signatures keep the `MACHO_SIGNATURE` code and name the slice.
    @Test func throughAMachOTheCodeIsMachOSignature() throws {
        var builder = MachOBuilder()
        builder.codeSignature = MachOBuilder.CodeSignature(identifier: "com.example.app")
        let (file, layout) = builder.buildWithLayout()
        var directory = CodeDirectory.Builder(identifier: "x", teamIdentifier: nil, hashType: .sha1)
        directory.pageSizeLog2 = 16
        directory.codeLimit = 1 << 16
        directory.codeHashes = HashArray(hashSize: 20, storage: [UInt8](repeating: 1, count: 20))
        let signature = try EmbeddedSignature(
            codeDirectories: [try directory.build()], requirements: nil, entitlements: nil, derEntitlements: nil, cmsSignature: nil
        ).serialized()
        #expect(file.count < 1 << 16 && signature.count <= layout.codeSignatureSize)
        var patched = file
        patched.replaceSubrange(layout.codeSignatureOffset..<(layout.codeSignatureOffset + signature.count), with: signature)
        var source = InMemoryByteSource(patched)
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        do {
            _ = try slice.readCodeSignature(from: &source)
            Issue.record("a code limit past the slice was accepted")
        } catch let error as MachOError {
            #expect(error.code == "MACHO_SIGNATURE")
            #expect(error.slice == "arm64")
            #expect(error.message.contains("past the end of the \(file.count)-byte slice"))
        }
        // A SuperBlob error read through the slice is MACHO_SIGNATURE too.
        var broken = file
        Self.patch(&broken, 1000, at: layout.codeSignatureOffset + 8)
        var brokenSource = InMemoryByteSource(broken)
        #expect(throws: MachOError.self) {
            try MachOFile(reading: &brokenSource).slices.first?.readCodeSignature(from: &brokenSource)
        }
    }
}
