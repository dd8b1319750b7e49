import AppBundle
import Crypto
import Foundation
import Reporting
import Testing
import TestSupport
import Verification

/// Apple's own code keeps Apple's signature and no team of the app's: `verify` knows it by its
/// anchor (a chain ending at Apple Root CA, a leaf with Apple's software-signing marker), not by
/// where it sits. A stand-in CA made here plays Apple's root.
@Suite struct ApplePlatformCodeTests {
    /// A stand-in "Apple" root and a software-signing leaf (`OU=Apple Software`, marker
    /// 1.2.840.113635.100.6.22), as a .p12; the root's SHA-256.
    static func standIn(_ scratch: ScratchDirectory, marker: Bool = true) throws -> (p12: String, leafDER: [UInt8], root: [UInt8]) {
        let config = try scratch.write("leaf.cnf", Array("""
            [ext]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = codeSigning
            \(marker ? "1.2.840.113635.100.6.22 = ASN1:NULL" : "")
            [ca]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            """.utf8))
        let path = { (name: String) in scratch.path(name) }
        _ = try SigningFixtures.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("root.key"), "-out", path("root.pem"),
            "-subj", "/CN=Stand-in Apple Root CA/OU=Apple Certification Authority/O=Apple Inc./C=US", "-days", "7300",
            "-config", config, "-extensions", "ca", "-set_serial", "1",
        ])
        _ = try SigningFixtures.openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("leaf.key"), "-out", path("leaf.csr"),
            "-subj", "/CN=Software Signing/OU=Apple Software/O=Apple Inc./C=US",
        ])
        _ = try SigningFixtures.openssl([
            "x509", "-req", "-in", path("leaf.csr"), "-CA", path("root.pem"), "-CAkey", path("root.key"), "-set_serial", "2",
            "-days", "3650", "-extfile", config, "-extensions", "ext", "-out", path("leaf.pem"),
        ])
        _ = try SigningFixtures.openssl([
            "pkcs12", "-export", "-inkey", path("leaf.key"), "-in", path("leaf.pem"), "-certfile", path("root.pem"),
            "-passout", "pass:" + SigningFixtures.password, "-out", path("apple.p12"),
        ])
        _ = try SigningFixtures.openssl(["x509", "-in", path("leaf.pem"), "-outform", "DER", "-out", path("leaf.der")])
        _ = try SigningFixtures.openssl(["x509", "-in", path("root.pem"), "-outform", "DER", "-out", path("root.der")])
        let root = Array(SHA256.hash(data: try Fixtures.bytesAt(path("root.der"))))
        return (path("apple.p12"), try Fixtures.bytesAt(path("leaf.der")), root)
    }

    /// The signing test app with `Frameworks/Kit.framework` signed by the stand-in "Apple", the
    /// rest by the test team.
    static func mixedApp(_ scratch: ScratchDirectory, marker: Bool = true) throws -> (path: String, root: [UInt8]) {
        let apple = try standIn(scratch, marker: marker)
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let ours = scratch.path("ours.ipa")
        let theirs = scratch.path("apple.ipa")
        try #require(try SignCommandTests.sign(input, ours, scratch).status == 0)
        let profiles = scratch.path("apple-profiles")
        try FileManager.default.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        for id in ["com.example.sample", "com.example.sample.share"] {
            var builder = ProfileBuilder(bundlePattern: id, team: "Apple Software", teamName: "Apple")
            builder.developerCertificates = [apple.leafDER]
            try Data(try builder.signed()).write(to: URL(fileURLWithPath: profiles + "/\(id).mobileprovision"))
        }
        let password = try scratch.write("apple-password.txt", Array(SigningFixtures.password.utf8))
        let signed = try Command.ipawrap([
            // Signed now: the stand-in's certificates were made a moment ago.
            "sign", input, "-o", theirs, "--identity", apple.p12, "--password-file", password, "--profiles-dir", profiles,
        ])
        try #require(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
        let mixed = scratch.path("mixed.ipa")
        try ZipOracle.swapEntries(under: "Payload/Sample.app/Frameworks/Kit.framework/", of: ours, from: theirs, to: mixed)
        return (mixed, apple.root)
    }

    static func teamMismatches(_ path: String, roots: Set<[UInt8]>? = nil) throws -> [String] {
        let app = try AppArchive(path: path)
        let date = Date().addingTimeInterval(3600)
        let report = try roots.map { try Verifier.verify(app, at: date, applePlatformRoots: $0) } ?? Verifier.verify(app, at: date)
        return report.findings.filter { $0.code == "SIGNATURE_TEAM_MISMATCH" }.compactMap(\.path)
    }

    @Test func applesOwnCodeIsKnownByItsAnchor() throws {
        let scratch = try ScratchDirectory("apple-anchor")
        let (mixed, root) = try Self.mixedApp(scratch)
        let framework = "Payload/Sample.app/Frameworks/Kit.framework"
        // Under the real Apple Root CA the stand-in is just another team.
        #expect(try Self.teamMismatches(mixed) == [framework])
        // Anchored at the root Apple's code chains to, it is Apple's, whatever team the app has.
        #expect(try Self.teamMismatches(mixed, roots: [root]) == [])
    }

    @Test func theMarkerIsNeededToo() throws {
        let scratch = try ScratchDirectory("apple-anchor-marker")
        let (mixed, root) = try Self.mixedApp(scratch, marker: false)
        #expect(try Self.teamMismatches(mixed, roots: [root]) == ["Payload/Sample.app/Frameworks/Kit.framework"])
    }

    @Test func theFingerprintIsTheShippedAppleRootCA() throws {
        let shipped = try Fixtures.bytesAt(Fixtures.packageRoot.appendingPathComponent("Templates/certificates/AppleRootCA.cer").path)
        #expect(Array(SHA256.hash(data: shipped)) == Verifier.appleRootCAFingerprint)
    }
}
