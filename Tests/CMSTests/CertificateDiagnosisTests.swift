@testable import CMS
import Foundation
import Testing
import TestSupport
import X509

/// Issue 27, class 10: a well-formed certificate swift-certificates refuses because of its key
/// (an RSA key under 2048 bits, an EC key on another curve) says so, rather than calling it
/// unreadable. Certificates are made by `openssl req`, whose own reading of the key is the oracle.
@Suite(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
struct CertificateDiagnosisTests {
    /// A fresh self-signed certificate's DER, and what `openssl x509 -text` says of its key.
    static func certificate(_ keyArguments: [String]) throws -> (der: [UInt8], text: String) {
        let scratch = try ScratchDirectory("certificate-diagnosis")
        let (pem, _) = try SigningFixtures.writeSelfSigned(in: scratch, named: "leaf", keyArguments: keyArguments)
        let der = scratch.path("leaf.cer")
        try SigningFixtures.openssl(["x509", "-in", pem, "-outform", "DER", "-out", der])
        let text = try SigningFixtures.openssl(["x509", "-in", pem, "-noout", "-text"])
        return (try Fixtures.bytesAt(der), text)
    }

    @Test(arguments: [1024, 1536])
    func anRSAKeyUnder2048BitsIsNamedWithItsSize(_ bits: Int) throws {
        let made = try Self.certificate(["-newkey", "rsa:\(bits)"])
        #expect(made.text.contains("Public-Key: (\(bits) bit)"), "openssl reads another size")
        // The reason for this type: swift-certificates refuses the certificate outright.
        #expect(throws: (any Error).self) { try Certificate(derEncoded: made.der) }
        #expect(CertificateDiagnosis.unreadable(made.der)
                    == "has a \(bits)-bit RSA key: too small; code signing needs 2048 bits or more (Apple issues 2048-bit keys)")
    }

    @Test func anRSAKeyOf2048BitsIsNoProblem() throws {
        let made = try Self.certificate(["-newkey", "rsa:2048"])
        _ = try Certificate(derEncoded: made.der)
        #expect(CertificateDiagnosis.keyProblem(made.der) == nil)
    }

    @Test func anECKeyOnAnotherCurveIsNamedWithTheCurve() throws {
        let made = try Self.certificate(["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:secp256k1"])
        #expect(made.text.contains("secp256k1"))
        #expect(throws: (any Error).self) { try Certificate(derEncoded: made.der) }
        #expect(CertificateDiagnosis.unreadable(made.der) == "has an EC key on the curve 1.3.132.0.10, not P-256, P-384 or P-521")
    }

    @Test func damagedBytesAreNotReadable() throws {
        let made = try Self.certificate(["-newkey", "rsa:1024"])
        for damaged in [Array(made.der.prefix(made.der.count / 2)), [0x30, 0x03, 0x02, 0x01, 0x00], [], [0xFF]] {
            #expect(CertificateDiagnosis.unreadable(damaged) == "is not a readable X.509 certificate")
        }
    }
}
