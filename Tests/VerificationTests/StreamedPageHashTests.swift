import CodeSignature
import Foundation
import MachO
import Reporting
import TestSupport
import Testing
import Verification
import Zip

@testable import BundleHashing

/// `verify` hashes an executable's pages while it streams: with the hash types its CodeDirectories
/// use when the entry is stored (the signature is read first), else SHA-1 and SHA-256 (what iOS
/// signers write; another type is hashed again). A changed page is found whichever way the entry is
/// stored and whichever CodeDirectory it breaks.
@Suite struct StreamedPageHashTests {
    /// iOS 15 code signed ad hoc with a SHA-1 CodeDirectory in slot 0 and a SHA-256 one after it.
    static func executable() -> [UInt8] {
        var builder = MachOBuilder()
        builder.version = .iOS("15.0", sdk: "17.2")
        builder.headerPadding = 1024
        var signature = MachOBuilder.CodeSignature(identifier: "com.example.sample")
        signature.flags = 0x2
        signature.hashType = 1
        signature.alternateHashTypes = [2]
        signature.hasher = { CodeSigningParts.digest($0, $1) }
        builder.codeSignature = signature
        return builder.build()
    }

    /// The page-hash findings of `verify` on an app with `executable`, stored or deflated.
    static func pageFindings(_ executable: [UInt8], stored: Bool, in scratch: ScratchDirectory) throws -> [String] {
        var app = IPABuilder()
        app.executable = executable
        app.storesExecutable = stored
        app.signed = false
        let path = try scratch.write(stored ? "stored.ipa" : "deflated.ipa", app.bytes())
        let report = try Verifier.verify(archive: path)
        return report.findings.filter { $0.code.hasPrefix("SIGNATURE_PAGE") }.map { "\($0.code) \($0.message)" }
    }

    /// The types hashed while the executable streams: its CodeDirectories' when it is stored (a
    /// SHA-384 one too, not hashed again; no SHA-1 when there is no SHA-1 one), else SHA-1 and
    /// SHA-256; and those two when a stored one's signature lists no type that can be computed.
    @Test func aStoredExecutablesTypesAreReadFirst() throws {
        let scratch = try ScratchDirectory("streamed-page-hashes")
        let cases: [(types: [UInt8], stored: Bool, expected: [HashType])] = [
            ([2], true, [.sha256]), ([2, 4], true, [.sha256, .sha384]), ([1, 2], true, [.sha1, .sha256]),
            ([2], false, [.sha1, .sha256]), ([9], true, [.sha1, .sha256]),
        ]
        for (index, item) in cases.enumerated() {
            var builder = MachOBuilder()
            builder.version = .iOS("15.0", sdk: "17.2")
            var signature = MachOBuilder.CodeSignature(identifier: "com.example.sample")
            signature.hashType = item.types[0]
            signature.alternateHashTypes = Array(item.types.dropFirst())
            builder.codeSignature = signature
            var app = IPABuilder()
            app.executable = builder.build()
            app.storesExecutable = item.stored
            app.signed = false
            let zip = try ZipArchive(path: try scratch.write("case-\(index).ipa", app.bytes()))
            let entry = try #require(zip.entry(named: "Payload/Sample.app/Sample"))
            var source = zip.byteSource(for: entry)
            let slice = try #require(try MachOFile(reading: &source).slices.first)
            #expect(EntryHashing.streamedHashTypes(slice, of: entry, in: zip) == item.expected, "\(item)")
        }
    }

    @Test(arguments: [false, true])
    func everyCodeDirectoryIsChecked(stored: Bool) throws {
        let scratch = try ScratchDirectory("streamed-page-hashes")
        let intact = Self.executable()
        #expect(try Self.pageFindings(intact, stored: stored, in: scratch).isEmpty)
        var changed = intact
        changed[4096 + 17] ^= 0x80
        let findings = try Self.pageFindings(changed, stored: stored, in: scratch)
        // Both CodeDirectories name page 1.
        #expect(findings.count == 2, "\(findings)")
        #expect(findings.allSatisfy { $0.hasPrefix("SIGNATURE_PAGE_HASH_MISMATCH") && $0.contains("page 1") }, "\(findings)")
        #expect(findings.contains { $0.contains("SHA-1") || $0.contains("sha1") }, "\(findings)")
    }
}
