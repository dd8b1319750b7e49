import CMS
import Foundation
import SigningIdentity
import SwiftASN1
import Testing
import TestSupport
import X509

/// PKCS #12 identities in the forms Keychain Access and openssl write, read through libcrypto.
struct PKCS12Tests {
    static let password = Array(SigningFixtures.password.utf8)
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01

    static func certificate(_ leaf: String) throws -> Certificate {
        try Certificate(derEncoded: SigningFixtures.certificateDER(leaf))
    }

    @Test(arguments: [SigningFixtures.PKCS12.keychain, .openssl, .opensslLegacy, .ec])
    func everyFormReads(_ form: SigningFixtures.PKCS12) throws {
        let identity = try SigningIdentity(pkcs12File: form.path, password: Self.password)
        let leaf = form == .ec ? "distribution-ec" : "distribution"
        #expect(identity.certificate == (try Self.certificate(leaf)))
        #expect(identity.certificateDER == (try SigningFixtures.certificateDER(leaf)))
        #expect(identity.privateKey.publicKey == identity.certificate.publicKey)
        #expect(identity.commonName == "Apple Distribution: Example Corp (ABCDE12345)")
        #expect(identity.teamIdentifier == "ABCDE12345")
        #expect(identity.keyType == (form == .ec ? .p256 : .rsa(bits: 2048)))
        // Keychain Access exports the identity alone; openssl was given the chain.
        if form == .keychain {
            #expect(identity.chain.isEmpty)
        } else {
            #expect(identity.chain == [try Self.certificate("wwdr"), try Self.certificate("root")])
        }
        #expect(identity.validityProblem(at: Self.now) == nil)
    }

    @Test(arguments: SigningFixtures.PKCS12.allCases)
    func aWrongPasswordIsNamedAsSuch(_ form: SigningFixtures.PKCS12) throws {
        let bytes = try form.bytes()
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12: bytes, password: Array("wrong".utf8)) }
            == "IDENTITY_WRONG_PASSWORD")
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12: bytes, password: []) }
            == "IDENTITY_WRONG_PASSWORD")
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12: bytes, password: Self.password + [0]) }
            == "IDENTITY_WRONG_PASSWORD")
    }

    @Test func theExpiredAndOtherTeamIdentitiesRead() throws {
        let expired = try SigningIdentity(pkcs12File: SigningFixtures.PKCS12.expired.path, password: Self.password)
        #expect(expired.validityProblem(at: Self.now)?.code == "IDENTITY_CERTIFICATE_EXPIRED")
        #expect(expired.validityProblem(at: Date(timeIntervalSince1970: 1_590_000_000)) == nil)
        let current = try SigningIdentity(pkcs12File: SigningFixtures.PKCS12.openssl.path, password: Self.password)
        #expect(current.validityProblem(at: Date(timeIntervalSince1970: 1_700_000_000))?.code
            == "IDENTITY_CERTIFICATE_NOT_YET_VALID")
        let other = try SigningIdentity(pkcs12File: SigningFixtures.PKCS12.otherTeam.path, password: Self.password)
        #expect(other.teamIdentifier == "ZYXWV98765")
    }

    @Test func whatIsNotAPKCS12IsNamedAsSuch() throws {
        for bytes in [[], Array("not a p12 at all".utf8), try Fixtures.bytes("signing/distribution.pem"),
                      try Fixtures.bytes("signing/distribution.cer"), [UInt8](repeating: 0x30, count: 64)] {
            #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12: bytes, password: Self.password) }
                == "IDENTITY_NOT_PKCS12")
        }
        // Every truncation of a real file is refused with a code, never read.
        let real = try SigningFixtures.PKCS12.keychain.bytes()
        for length in stride(from: 0, to: real.count, by: 7) {
            let code = identityErrorCode { () throws(SigningIdentityError) in
                try SigningIdentity(pkcs12: Array(real[0..<length]), password: Self.password)
            }
            #expect(code != nil && code?.hasPrefix("IDENTITY_") == true)
        }
    }

    @Test func anUnreadableFileIsAnIOError() throws {
        do {
            _ = try SigningIdentity(pkcs12File: "/nonexistent/identity.p12", password: Self.password)
            Issue.record("a missing file was read")
        } catch {
            #expect(error.code == "IDENTITY_FILE_UNREADABLE")
            #expect(error.category == .io)
            #expect(error.description.hasPrefix("/nonexistent/identity.p12: cannot be read"))
        }
    }

    // MARK: Files written here with openssl

    static let opensslAvailable = ProfileBuilder.opensslMissing == nil

    @Test(.enabled(if: opensslAvailable, "openssl is not installed"), arguments: [[], ["-legacy"]])
    func anEmptyPasswordOpensFilesExportedWithout(_ options: [String]) throws {
        let scratch = try ScratchDirectory("p12-empty")
        let path = try SigningFixtures.writePKCS12(
            in: scratch, key: SigningFixtures.path("distribution.key.pem"),
            certificate: SigningFixtures.path("distribution.pem"), chain: SigningFixtures.chainPEM, password: "", options: options)
        let identity = try SigningIdentity(pkcs12File: path, password: [])
        #expect(identity.chain.count == 2)
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12File: path, password: Self.password) }
            == "IDENTITY_WRONG_PASSWORD")
    }

    /// `openssl pkcs12 -export -nomac`: libcrypto 3.0's PKCS12_parse reads such a file only
    /// without a password, which is said, not guessed at.
    @Test(.enabled(if: opensslAvailable, "openssl is not installed"))
    func aFileWithoutMAC() throws {
        let scratch = try ScratchDirectory("p12-nomac")
        let key = SigningFixtures.path("distribution.key.pem")
        let certificate = SigningFixtures.path("distribution.pem")
        let protected = try SigningFixtures.writePKCS12(in: scratch, key: key, certificate: certificate, options: ["-nomac"])
        do {
            _ = try SigningIdentity(pkcs12File: protected, password: Self.password)
            Issue.record("libcrypto 3.0 cannot read it; a newer one may, and then this test should expect success")
        } catch {
            #expect(error.code == "IDENTITY_DECRYPTION_FAILED")
            #expect(error.message.contains("no MAC"))
        }
        let open = try SigningFixtures.writePKCS12(
            in: scratch, named: "open.p12", key: key, certificate: certificate, password: "", options: ["-nomac"])
        #expect(try SigningIdentity(pkcs12File: open, password: []).commonName == "Apple Distribution: Example Corp (ABCDE12345)")
    }

    @Test(.enabled(if: opensslAvailable, "openssl is not installed"))
    func aFileWithoutKeyOrWithoutCertificate() throws {
        let scratch = try ScratchDirectory("p12-parts")
        let certificateOnly = try SigningFixtures.writePKCS12(
            in: scratch, named: "certificate.p12", key: SigningFixtures.path("distribution.key.pem"),
            certificate: SigningFixtures.path("distribution.pem"), options: ["-nokeys"])
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12File: certificateOnly, password: Self.password) }
            == "IDENTITY_NO_PRIVATE_KEY")
        let keyOnly = try SigningFixtures.writePKCS12(
            in: scratch, named: "key.p12", key: SigningFixtures.path("distribution.key.pem"),
            certificate: SigningFixtures.path("distribution.pem"), options: ["-nocerts"])
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12File: keyOnly, password: Self.password) }
            == "IDENTITY_NO_CERTIFICATE")
    }

    /// Key types: P-384 reads; RSA under 2048 bits, Ed25519 and P-521 are refused by name.
    @Test(.enabled(if: opensslAvailable, "openssl is not installed"), arguments: [
        ("p384", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384"], nil),
        ("rsa1024", ["-newkey", "rsa:1024"], "IDENTITY_KEY_UNSUPPORTED"),
        ("p521", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-521"], "IDENTITY_KEY_UNSUPPORTED"),
        ("ed25519", ["-newkey", "ed25519"], "IDENTITY_KEY_UNSUPPORTED"),
    ] as [(String, [String], String?)])
    func keyTypes(_ name: String, _ keyArguments: [String], _ expected: String?) throws {
        let scratch = try ScratchDirectory("p12-\(name)")
        let (certificate, key) = try SigningFixtures.writeSelfSigned(in: scratch, named: name, keyArguments: keyArguments)
        let path = try SigningFixtures.writePKCS12(in: scratch, key: key, certificate: certificate)
        let code = identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12File: path, password: Self.password) }
        #expect(code == expected)
        if expected == nil {
            #expect(try SigningIdentity(pkcs12File: path, password: Self.password).keyType == .p384)
        }
    }

    // MARK: Python's cryptography as the oracle

    /// What `cryptography`'s PKCS #12 reader (PyPI; its own OpenSSL build) finds in each file:
    /// the leaf's DER, the public key's SPKI DER, and the extra certificates' DER.
    static let cryptographyScript = """
        import json, sys
        from cryptography.hazmat.primitives.serialization import pkcs12, Encoding, PublicFormat
        key, certificate, others = pkcs12.load_key_and_certificates(open(sys.argv[1], 'rb').read(), sys.argv[2].encode())
        print(json.dumps({
            'certificate': certificate.public_bytes(Encoding.DER).hex(),
            'publicKey': key.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo).hex(),
            'others': sorted(c.public_bytes(Encoding.DER).hex() for c in others),
        }))
        """

    @Test(.enabled(if: PythonOracle.canRun("cryptography"), "needs the Python oracle environment (Scripts/test makes it)"),
          arguments: [SigningFixtures.PKCS12.keychain, .openssl, .opensslLegacy, .ec])
    func cryptographyReadsTheSameIdentity(_ form: SigningFixtures.PKCS12) throws {
        let output = try PythonOracle.run(
            Self.cryptographyScript, arguments: [form.path, SigningFixtures.password], packages: ["cryptography"])
        let oracle = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let identity = try SigningIdentity(pkcs12File: form.path, password: Self.password)
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(oracle["certificate"] as? String == hex(identity.certificateDER))
        #expect(oracle["publicKey"] as? String == hex(try der(identity.privateKey.publicKey)))
        let chain = try identity.chain.map { hex(try der($0)) }
        #expect(oracle["others"] as? [String] == chain.sorted())
    }

    @Test(.enabled(if: PythonOracle.canRun("cryptography"), "needs the Python oracle environment (Scripts/test makes it)"))
    func aKeyBesideAnotherCertificateIsAMismatch() throws {
        // openssl and cryptography refuse to pair them; as key plus an extra certificate they write it.
        let scratch = try ScratchDirectory("p12-mismatch")
        let path = scratch.path("mismatch.p12")
        _ = try PythonOracle.run("""
            import sys
            from cryptography import x509
            from cryptography.hazmat.primitives.serialization import pkcs12, load_pem_private_key, BestAvailableEncryption
            key = load_pem_private_key(open(sys.argv[1], 'rb').read(), None)
            certificate = x509.load_pem_x509_certificate(open(sys.argv[2], 'rb').read())
            open(sys.argv[3], 'wb').write(pkcs12.serialize_key_and_certificates(b'x', key, None, [certificate], BestAvailableEncryption(sys.argv[4].encode())))
            """, arguments: [SigningFixtures.path("distribution.key.pem"), SigningFixtures.path("other-team.pem"), path,
                             SigningFixtures.password], packages: ["cryptography"])
        #expect(identityErrorCode { () throws(SigningIdentityError) in try SigningIdentity(pkcs12File: path, password: Self.password) }
            == "IDENTITY_KEY_MISMATCH")
    }

    // MARK: Signing

    /// A loaded identity signs a code signature's CMS that openssl verifies up to the test root.
    @Test(.enabled(if: opensslAvailable, "openssl is not installed"), arguments: [SigningFixtures.PKCS12.openssl, .ec])
    func aLoadedIdentitySignsWhatOpensslVerifies(_ form: SigningFixtures.PKCS12) throws {
        let identity = try SigningIdentity(pkcs12File: form.path, password: Self.password)
        let content = Array("a CodeDirectory stand-in".utf8)
        let hashes = [CMSCodeDirectoryHash(algorithm: .sha256, digest: CMSDigestAlgorithm.sha256.digest(content))]
        let signature = try CMSBuilder.detachedSignature(
            content: content, identity: identity, signingTime: Self.now, cdHashes: hashes)
        #expect(try CMSSignedData(berEncoded: signature).verify(content: content, at: Self.now).problems.isEmpty)
        let scratch = try ScratchDirectory("p12-sign")
        let result = try Command.run("openssl", [
            "cms", "-verify", "-binary", "-content", try scratch.write("content", content), "-inform", "DER",
            "-in", try scratch.write("signature", signature), "-CAfile", SigningFixtures.rootPEM, "-purpose", "any",
            "-out", "/dev/null",
        ])
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// The code of the error loading an identity throws, or nil when it loads.
func identityErrorCode(_ body: () throws(SigningIdentityError) -> SigningIdentity) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}

/// The DER of a swift-certificates value, for comparing with an oracle's.
func der(_ value: some DERSerializable) throws -> [UInt8] {
    var serializer = DER.Serializer()
    try serializer.serialize(value)
    return serializer.serializedBytes
}
