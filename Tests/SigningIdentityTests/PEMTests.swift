import Foundation
import SigningIdentity
import Testing
import TestSupport
import X509

/// Identities from a certificate file and a PEM key: every key encoding libcrypto reads,
/// encrypted ones with their password.
@Suite(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed: key variants are written with it"))
struct PEMTests {
    static let leaf = SigningFixtures.path("distribution.pem")
    static let key = SigningFixtures.path("distribution.key.pem")
    static let ecKey = SigningFixtures.path("distribution-ec.key.pem")
    static let secret = Array("key secret".utf8)

    @Test func pkcs8WithTheChainInTheCertificateFile() throws {
        let scratch = try ScratchDirectory("pem")
        // The chain before the leaf: the leaf is the certificate of the key, wherever it is.
        let bundle = try scratch.write(
            "bundle.pem", try Fixtures.bytes("signing/chain.pem") + Fixtures.bytes("signing/distribution.pem"))
        let identity = try SigningIdentity(certificateFile: bundle, keyFile: Self.key)
        #expect(identity.commonName == "Apple Distribution: Example Corp (ABCDE12345)")
        #expect(identity.chain.count == 2)
        #expect(identity.keyType == .rsa(bits: 2048))
    }

    @Test func aDERCertificateFromThePortal() throws {
        let identity = try SigningIdentity(certificateFile: SigningFixtures.path("distribution.cer"), keyFile: Self.key)
        #expect(identity.chain.isEmpty)
        #expect(identity.certificateDER == (try SigningFixtures.certificateDER("distribution")))
    }

    /// (file name, openssl arguments that write it from the PKCS #8 key, whether it needs `secret`).
    static let encodings: [(String, [String], Bool)] = [
        ("pkcs1.pem", ["pkey", "-in", key, "-traditional"], false),
        ("sec1.pem", ["pkey", "-in", ecKey, "-traditional"], false),
        ("encrypted-pkcs8.pem", ["pkcs8", "-topk8", "-in", key, "-v2", "aes-256-cbc", "-passout", "pass:key secret"], true),
        ("encrypted-pkcs1.pem", ["rsa", "-in", key, "-aes256", "-traditional", "-passout", "pass:key secret"], true),
    ]

    @Test(arguments: encodings)
    func keyEncodings(_ name: String, _ arguments: [String], _ encrypted: Bool) throws {
        let scratch = try ScratchDirectory("pem-key")
        let path = scratch.path(name)
        try SigningFixtures.openssl(arguments + ["-out", path])
        let text = String(decoding: try Fixtures.bytesAt(path), as: UTF8.self)
        let certificate = arguments.contains(Self.ecKey) ? SigningFixtures.path("distribution-ec.pem") : Self.leaf
        if encrypted {
            #expect(text.contains("ENCRYPTED"))
            let identity = try SigningIdentity(certificateFile: certificate, keyFile: path, password: Self.secret)
            #expect(identity.teamIdentifier == "ABCDE12345")
            #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(certificateFile: certificate, keyFile: path) }
                == "IDENTITY_WRONG_PASSWORD")
            #expect(identityErrorCode { () throws(SigningIdentityError) in
                try SigningIdentity(certificateFile: certificate, keyFile: path, password: Array("nope".utf8))
            } == "IDENTITY_WRONG_PASSWORD")
        } else {
            #expect(text.contains(name == "pkcs1.pem" ? "BEGIN RSA PRIVATE KEY" : "BEGIN EC PRIVATE KEY"))
            let identity = try SigningIdentity(certificateFile: certificate, keyFile: path)
            #expect(identity.keyType == (name == "sec1.pem" ? .p256 : .rsa(bits: 2048)))
        }
    }

    @Test func aKeyOfAnotherCertificateIsAMismatch() throws {
        do {
            _ = try SigningIdentity(certificateFile: SigningFixtures.path("other-team.pem"), keyFile: Self.key)
            Issue.record("a key and another leaf made an identity")
        } catch {
            #expect(error.code == "IDENTITY_KEY_MISMATCH")
            #expect(error.message.contains("Apple Distribution: Other Company (ZYXWV98765)"))
        }
    }

    @Test func unreadableFilesAreNamed() throws {
        let scratch = try ScratchDirectory("pem-bad")
        let garbage = try scratch.write("garbage", Array("hello".utf8))
        let keyOnly = try scratch.write("key-as-cert.pem", try Fixtures.bytesAt(Self.key))
        do {
            _ = try SigningIdentity(certificateFile: garbage, keyFile: Self.key)
            Issue.record("garbage read as a certificate")
        } catch {
            #expect(error.code == "IDENTITY_CERTIFICATE_INVALID")
            #expect(error.file == garbage)
        }
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(certificateFile: keyOnly, keyFile: Self.key) }
            == "IDENTITY_NO_CERTIFICATE")
        do {
            _ = try SigningIdentity(certificateFile: Self.leaf, keyFile: Self.leaf)
            Issue.record("a certificate read as a key")
        } catch {
            #expect(error.code == "IDENTITY_KEY_INVALID")
            #expect(error.file == Self.leaf)
        }
    }
}
