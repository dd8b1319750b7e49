import CMS
import Foundation
import ProvisioningProfile
import Testing
import TestSupport
import X509

/// A code signature's CMS as codesign writes it, with what is known of it.
struct XcodeCMS: Sendable {
    let signature: [UInt8]
    let codeDirectory: [UInt8]
    let signedAt: Date
    /// The leaf's serial number, hex.
    let serial: String
    /// The chain from the leaf, by common name as `CMSSignedData.name` prints it.
    let chain: [String]
    /// Signed attributes beyond contentType, signingTime and messageDigest: the CDHashes ones.
    let hasCDHashes: Bool
    /// A date every certificate but the leaf is valid, after the leaf expired.
    let leafExpiredAt: Date?
    /// A date before the leaf's validity.
    let beforeLeaf: Date

    /// The generated Xcode-shaped app's arm64 signature (`CodeSigningParts`, signed by the test
    /// identity at 2026-01-15T10:20:30Z).
    static func generated() throws -> XcodeCMS {
        let (signature, codeDirectory) = try EmbeddedSignatureBlobs.cms(in: XcodeShapedApp.bytes(XcodeShapedApp.appName))
        return XcodeCMS(
            signature: signature, codeDirectory: codeDirectory, signedAt: XcodeShapedApp.signingDate, serial: "5a17c0de",
            chain: [
                "\"\(XcodeShapedApp.leafCommonName)\"", "\"ipawrap Test Worldwide Developer Relations CA\"",
                "\"ipawrap Test Apple Root CA\"",
            ],
            hasCDHashes: true, leafExpiredAt: Date(timeIntervalSince1970: 2_070_000_000),
            beforeLeaf: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// isign's Xcode 7.2 signature of its arm64 slice (`../shared`), taken out at test time: BER
    /// with indefinite lengths, codesign's zero padding, Apple's WWDR and root with the leaf,
    /// signed 2015-12-17T01:12:34Z.
    static func isign() throws -> XcodeCMS {
        let (signature, codeDirectory) = try EmbeddedSignatureBlobs.cms(in: IsignFixture.bytes("Test.app/isignTestApp"))
        return XcodeCMS(
            signature: signature, codeDirectory: codeDirectory, signedAt: Date(timeIntervalSince1970: 1_450_314_754),
            serial: "0e01428c1fe8ee05",
            chain: [
                "\"iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)\"",
                "\"Apple Worldwide Developer Relations Certification Authority\"", "\"Apple Root CA\"",
            ],
            hasCDHashes: false, leafExpiredAt: nil, beforeLeaf: Date(timeIntervalSince1970: 1_400_000_000))
    }

    func reads() throws {
        let cms = try CMSSignedData(berEncoded: signature, allowsZeroPadding: true)
        #expect(cms.version == 1)
        #expect(cms.digestAlgorithms == ["sha256"])
        #expect(cms.isDetached && cms.content.isEmpty && cms.contentChunkCount == 0)
        #expect(cms.contentType == CMSObjectIdentifier.data)
        #expect(cms.usesIndefiniteLengths)
        #expect(cms.certificates.count == 3)
        let signer = try #require(cms.signerInfos.first)
        #expect(cms.signerCount == 1)
        #expect(signer.version == 1)
        #expect(signer.digestAlgorithm == .sha256)
        #expect(signer.signatureAlgorithmIdentifier == CMSObjectIdentifier.rsaEncryption)
        #expect(signer.signature.count == 256)
        guard case .issuerAndSerialNumber(_, let serial) = signer.identifier else {
            Issue.record("codesign names its signer by issuer and serial number")
            return
        }
        #expect(CMSFixtures.hex(serial) == self.serial)
        let attributes = try #require(signer.signedAttributes)
        let basic = [CMSObjectIdentifier.contentType, CMSObjectIdentifier.signingTime, CMSObjectIdentifier.messageDigest]
        #expect(attributes.attributes.map(\.type).filter { basic.contains($0) } == basic)
        #expect(attributes.attributes.count == (hasCDHashes ? 5 : 3))
        #expect(attributes.contentType == CMSObjectIdentifier.data)
        #expect(attributes.signingTime == signedAt)
        #expect(attributes.messageDigest == CMSDigestAlgorithm.sha256.digest(codeDirectory))
        if hasCDHashes {
            #expect(attributes.cdHashes?.first == Array(CMSDigestAlgorithm.sha1.digest(codeDirectory).prefix(20)))
            #expect(attributes.cdHashes?.count == 2 && attributes.cdHashes2?.count == 2)
            #expect(attributes.cdHashes2?.first?.digest == CMSDigestAlgorithm.sha1.digest(codeDirectory))
        } else {
            #expect(attributes.cdHashes == nil && attributes.cdHashes2 == nil)
        }
        #expect(attributes.derEncoded.first == 0x31)
    }

    func verifiesAgainstItsCodeDirectory() throws {
        let cms = try CMSSignedData(berEncoded: signature, allowsZeroPadding: true)
        let result = cms.verify(content: codeDirectory, at: signedAt)
        #expect(result.isIntact)
        #expect(result.problems.isEmpty, "\(result.problems)")
        let signer = try #require(result.signers.first)
        #expect(signer.chain.map { CMSSignedData.name($0) } == chain)
        #expect(signer.root.map { CMSSignedData.name($0) } == chain.last)
    }

    func expiredCertificatesAreReportedApartFromIntegrity() throws {
        let cms = try CMSSignedData(berEncoded: signature, allowsZeroPadding: true)
        if let leafExpiredAt {
            let result = cms.verify(content: codeDirectory, at: leafExpiredAt)
            #expect(result.isIntact)
            #expect(result.problems.map(\.code) == [.certificateExpired])
            #expect(result.problems.allSatisfy { $0.kind == .validity })
        }
        let early = cms.verify(content: codeDirectory, at: beforeLeaf)
        #expect(early.isIntact)
        #expect(early.problems.map(\.code).first == .certificateNotYetValid)
    }

    func aChangedCodeDirectoryOrSignatureIsBroken() throws {
        var content = codeDirectory
        content[100] ^= 1
        let cms = try CMSSignedData(berEncoded: signature, allowsZeroPadding: true)
        let changedContent = cms.verify(content: content, at: signedAt)
        #expect(!changedContent.isIntact)
        #expect(changedContent.problems(of: .integrity).map(\.code) == [.digestMismatch])

        // The last byte of the RSA signature.
        let value = try #require(cms.signerInfos.first?.signature)
        let start = try #require(signature.indices.first { signature[$0...].starts(with: value) })
        var tampered = signature
        tampered[start + value.count - 1] ^= 0x01
        let changedSignature = try CMSSignedData(berEncoded: tampered, allowsZeroPadding: true)
            .verify(content: codeDirectory, at: signedAt)
        #expect(changedSignature.problems(of: .integrity).map(\.code) == [.signatureInvalid])
    }

    func aDetachedSignatureNeedsItsContent() throws {
        let cms = try CMSSignedData(berEncoded: signature, allowsZeroPadding: true)
        #expect(cms.verify(at: signedAt).problems.map(\.code) == [.contentMissing])
    }

    /// openssl, an independent reader, verifies the signature over the CodeDirectory.
    func opensslVerifiesIt() throws {
        let scratch = try ScratchDirectory("cms-openssl")
        let signaturePath = try scratch.write("signature.der", signature)
        let contentPath = try scratch.write("cd.bin", codeDirectory)
        let result = try Command.run(
            "openssl", ["cms", "-verify", "-binary", "-inform", "DER", "-in", signaturePath, "-content", contentPath,
                        "-noverify", "-out", "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
    }
}

/// Reading and verifying a code signature's CMS in codesign's layout, made by an independent
/// writer (`CodeSigningParts`) for the generated Xcode-shaped app.
@Suite struct XcodeShapedCMSTests {
    @Test func reads() throws { try XcodeCMS.generated().reads() }
    @Test func verifiesAgainstItsCodeDirectory() throws { try XcodeCMS.generated().verifiesAgainstItsCodeDirectory() }
    @Test func expiredCertificatesAreReportedApartFromIntegrity() throws {
        try XcodeCMS.generated().expiredCertificatesAreReportedApartFromIntegrity()
    }
    @Test func aChangedCodeDirectoryOrSignatureIsBroken() throws { try XcodeCMS.generated().aChangedCodeDirectoryOrSignatureIsBroken() }
    @Test func aDetachedSignatureNeedsItsContent() throws { try XcodeCMS.generated().aDetachedSignatureNeedsItsContent() }
    @Test func opensslVerifiesIt() throws { try XcodeCMS.generated().opensslVerifiesIt() }
}

/// The same on Apple's own: the signature Xcode 7.2 wrote into isign's `Test.app` (`../shared`).
@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct XcodeCMSTests {
    @Test func reads() throws { try XcodeCMS.isign().reads() }
    @Test func verifiesAgainstItsCodeDirectory() throws { try XcodeCMS.isign().verifiesAgainstItsCodeDirectory() }
    @Test func aChangedCodeDirectoryOrSignatureIsBroken() throws { try XcodeCMS.isign().aChangedCodeDirectoryOrSignatureIsBroken() }
    @Test func aDetachedSignatureNeedsItsContent() throws { try XcodeCMS.isign().aDetachedSignatureNeedsItsContent() }
    @Test func opensslVerifiesIt() throws { try XcodeCMS.isign().opensslVerifiesIt() }

    @Test func expiredCertificatesAreReportedApartFromIntegrity() throws {
        let xcode = try XcodeCMS.isign()
        try xcode.expiredCertificatesAreReportedApartFromIntegrity()
        let cms = try CMSSignedData(berEncoded: xcode.signature, allowsZeroPadding: true)
        let result = cms.verify(content: xcode.codeDirectory, at: CMSFixtures.now)
        #expect(result.isIntact)
        // The leaf (to 2016-12-08) and Apple's first WWDR certificate (to 2016-02-14) have expired; the root has not.
        #expect(result.problems.map(\.code) == [.certificateExpired, .certificateExpired])
        #expect(result.problems.allSatisfy { $0.kind == .validity })
        #expect(result.problems.last?.message == "\"Apple Worldwide Developer Relations Certification Authority\" expired on 2016-02-14T18:56:35Z")
    }

    /// codesign pads the CMS blob with zeros, which `allowsZeroPadding` accepts.
    @Test func codesignPadsItsSignature() throws {
        #expect(try XcodeCMS.isign().signature.suffix(4) == [0, 0, 0, 0])
    }

    /// isign's test profile is signed by isign's own test CA, whose chain the CMS carries.
    @Test func isignsTestProfileVerifies() throws {
        let profile = try ProvisioningProfile(bytes: IsignFixture.bytes("test.mobileprovision"))
        let result = profile.signedData.verify(at: profile.creationDate ?? CMSFixtures.now)
        #expect(result.isIntact, "\(result.problems)")
        #expect(result.signers.first?.root.map { CMSSignedData.name($0) } == "\"isign_tests\"")
    }
}

/// Profiles signed by openssl, and the zero padding rule.
struct CMSParseTests {
    @Test func theZeroPaddingOfACodeSignatureBlobIsRefusedUnlessAllowed() throws {
        // An indefinite-length CMS ends in end-of-contents octets, which swift-asn1 lets trailing
        // zeros extend; a DER one ends at its length, so the padding must be allowed.
        let der = try CMSFixtures.signature(TestIdentity(), content: [1, 2, 3])
        let padded = der + [UInt8](repeating: 0, count: 1_000)
        #expect(throws: CMSError(.malformedASN1, "bytes follow the end of the CMS structure (something was appended to the file)")) {
            try CMSSignedData(berEncoded: padded)
        }
        #expect(try CMSSignedData(berEncoded: padded, allowsZeroPadding: true).signerCount == 1)
        // Padding that is not zero is not padding.
        var dirty = padded
        dirty[dirty.count - 1] = 1
        #expect(throws: CMSError.self) { try CMSSignedData(berEncoded: dirty, allowsZeroPadding: true) }
        // The generated signature, padded as codesign pads it, reads only when padding is allowed.
        let generated = try XcodeCMS.generated().signature + [0, 0, 0, 0]
        #expect(try CMSSignedData(berEncoded: generated, allowsZeroPadding: true).signerCount == 1)
    }

    /// Profiles signed by `openssl cms -sign -noattr`: the signature covers the content itself.
    @Test(arguments: [ProfileBuilder.Fixture.app, .berIndefinite, .wildcard])
    func profilesSignedWithoutAttributesVerify(_ fixture: ProfileBuilder.Fixture) throws {
        let cms = try ProvisioningProfile(bytes: ProfileBuilder.fixture(fixture)).signedData
        #expect(cms.signerInfos.first?.signedAttributes == nil)
        let result = cms.verify(at: CMSFixtures.now)
        #expect(result.problems.isEmpty, "\(result.problems)")
        // The stand-in profile signer is self-signed: the chain is that one certificate.
        #expect(result.signers.first?.chain.count == 1)
        #expect(result.signers.first?.root != nil)
        var changed = cms.content
        changed[changed.count / 2] ^= 0x20
        #expect(cms.verify(content: changed, at: CMSFixtures.now).problems.map(\.code) == [.signatureInvalid])
    }
}
