import Foundation
import Reporting
import TestSupport
import Testing
import Verification

/// `verify` hashes an executable's pages while it streams: with the hash types its CodeDirectories
/// use when the entry is stored (the signature is read first), else SHA-1 and SHA-256. A changed
/// page is found whichever way the entry is stored and whichever CodeDirectory it breaks, here on
/// iOS 15 code with a SHA-1 CodeDirectory besides the SHA-256 one (as some signers write).
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
