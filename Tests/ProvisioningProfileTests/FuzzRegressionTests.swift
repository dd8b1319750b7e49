import CMS
import Foundation
import PropertyList
import ProvisioningProfile
import TestSupport
import Testing

/// Inputs the profile fuzzer (Fuzz/, `Scripts/fuzz fuzz-profile`) once crashed on, kept in
/// Tests/Fixtures/profiles/fuzz-regressions, and the bugs they exposed rebuilt by hand.
@Suite struct FuzzRegressionTests {
    static var files: [String] {
        let directory = Fixtures.url("profiles/fuzz-regressions").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// The harness's own checks: reading never crashes, every DeveloperCertificates entry is a
    /// certificate or a problem, and every certificate the CMS carries reads or is refused.
    @Test(arguments: files)
    func readersSurviveWhatTheFuzzerFound(name: String) throws {
        let bytes = try Fixtures.bytes("profiles/fuzz-regressions/\(name)")
        if let signedData = try? CMSSignedData(berEncoded: bytes) {
            for der in signedData.certificates {
                if let certificate = try? ProfileCertificate(derEncoded: der) {
                    #expect(certificate.derBytes == der)
                }
            }
        }
        if let profile = try? ProvisioningProfile(bytes: bytes) {
            let declared = profile.plist["DeveloperCertificates"]?.array?.count ?? 0
            #expect(profile.developerCertificates.count + profile.certificateProblems.count == declared)
        }
    }

    /// A certificate whose RSA public exponent is even (65538), which swift-certificates reads and
    /// BoringSSL refuses, is refused with a ProfileError. With swift-crypto 3.x the key was freed
    /// twice on the way: silent heap corruption in a plain build, an abort under
    /// AddressSanitizer, which is how `Scripts/fuzz-smoke` (replaying the regression seeds)
    /// catches it if it comes back.
    @Test func certificateWithAnUnusableRSAKeyIsRefused() throws {
        var der = try Fixtures.bytes("profiles/developer.cer")
        let exponent: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x01]
        let at = try #require(der.indices.first { der[$0...].starts(with: exponent) })
        der[at + 4] = 0x02
        #expect(throws: ProfileError.self) { try ProfileCertificate(derEncoded: der) }
        #expect(try ProfileCertificate(derEncoded: Fixtures.bytes("profiles/developer.cer")).teamIdentifier == "ABCDE12345")
    }
}
