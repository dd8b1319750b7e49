import CMS
import Foundation
import ProvisioningProfile
import Testing
import TestSupport
import X509

/// Reading and verifying real CMS: Apple's (isign's Xcode-signed app) and profiles signed by openssl.
struct CMSParseTests {
    @Test func theCommittedIsignFilesAreWhatAnIndependentExtractorWrites() throws {
        try #require(Command.exists("python3"), "python3 is not installed")
        let scratch = try ScratchDirectory("cms-extract")
        let result = try Command.run("python3", [Fixtures.path("cms/extract-isign.py"), scratch.path])
        try #require(result.status == 0, "\(result.stderr)")
        #expect(try Fixtures.bytesAt(scratch.path("isign-arm64.cms")) == CMSFixtures.isignSignature())
        #expect(try Fixtures.bytesAt(scratch.path("isign-arm64.codedirectory")) == CMSFixtures.isignCodeDirectory())
    }

    @Test func readsXcodesSignature() throws {
        let cms = try CMSSignedData(berEncoded: CMSFixtures.isignSignature(), allowsZeroPadding: true)
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
        #expect(CMSFixtures.hex(serial) == "0e01428c1fe8ee05")
        let attributes = try #require(signer.signedAttributes)
        #expect(attributes.attributes.map(\.type) == [
            CMSObjectIdentifier.contentType, CMSObjectIdentifier.signingTime, CMSObjectIdentifier.messageDigest,
        ])
        #expect(attributes.contentType == CMSObjectIdentifier.data)
        // openssl asn1parse: UTCTIME :151217011234Z.
        #expect(attributes.signingTime == Date(timeIntervalSince1970: 1_450_314_754))
        #expect(attributes.messageDigest == CMSDigestAlgorithm.sha256.digest(try CMSFixtures.isignCodeDirectory()))
        #expect(attributes.cdHashes == nil && attributes.cdHashes2 == nil)
        #expect(attributes.derEncoded.first == 0x31)
    }

    @Test func theZeroPaddingOfACodeSignatureBlobIsRefusedUnlessAllowed() throws {
        // Xcode's indefinite-length CMS ends in end-of-contents octets, which swift-asn1 lets
        // trailing zeros extend; a DER one ends at its length, so the padding must be allowed.
        #expect(try CMSFixtures.isignSignature().suffix(4) == [0, 0, 0, 0])
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
    }

    @Test func xcodesSignatureVerifiesAgainstItsCodeDirectory() throws {
        let cms = try CMSSignedData(berEncoded: CMSFixtures.isignSignature(), allowsZeroPadding: true)
        let signedAt = Date(timeIntervalSince1970: 1_450_314_754)
        let result = cms.verify(content: try CMSFixtures.isignCodeDirectory(), at: signedAt)
        #expect(result.isIntact)
        #expect(result.problems.isEmpty, "\(result.problems)")
        let signer = try #require(result.signers.first)
        #expect(signer.chain.map { CMSSignedData.name($0) } == [
            "\"iPhone Developer: Neil Kandalgaonkar (PJ5C3PEW8Z)\"",
            "\"Apple Worldwide Developer Relations Certification Authority\"",
            "\"Apple Root CA\"",
        ])
        #expect(signer.root.map { CMSSignedData.name($0) } == "\"Apple Root CA\"")
    }

    @Test func expiredCertificatesAreReportedApartFromIntegrity() throws {
        let cms = try CMSSignedData(berEncoded: CMSFixtures.isignSignature(), allowsZeroPadding: true)
        let result = cms.verify(content: try CMSFixtures.isignCodeDirectory(), at: CMSFixtures.now)
        #expect(result.isIntact)
        // The leaf (to 2016-12-08) and Apple's first WWDR certificate (to 2016-02-14) have expired; the root has not.
        #expect(result.problems.map(\.code) == [.certificateExpired, .certificateExpired])
        #expect(result.problems.allSatisfy { $0.kind == .validity })
        #expect(result.problems.last?.message == "\"Apple Worldwide Developer Relations Certification Authority\" expired on 2016-02-14T18:56:35Z")
        let early = cms.verify(content: try CMSFixtures.isignCodeDirectory(), at: Date(timeIntervalSince1970: 1_400_000_000))
        #expect(early.problems.map(\.code) == [.certificateNotYetValid])
    }

    @Test func aChangedCodeDirectoryOrSignatureIsBroken() throws {
        let bytes = try CMSFixtures.isignSignature()
        var content = try CMSFixtures.isignCodeDirectory()
        content[100] ^= 1
        let cms = try CMSSignedData(berEncoded: bytes, allowsZeroPadding: true)
        let changedContent = cms.verify(content: content, at: CMSFixtures.now)
        #expect(!changedContent.isIntact)
        #expect(changedContent.problems(of: .integrity).map(\.code) == [.digestMismatch])

        // The last byte of the RSA signature.
        let signature = try #require(cms.signerInfos.first?.signature)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: signature) })
        var tampered = bytes
        tampered[start + signature.count - 1] ^= 0x01
        let changedSignature = try CMSSignedData(berEncoded: tampered, allowsZeroPadding: true)
            .verify(content: try CMSFixtures.isignCodeDirectory(), at: CMSFixtures.now)
        #expect(changedSignature.problems(of: .integrity).map(\.code) == [.signatureInvalid])
    }

    @Test func aDetachedSignatureNeedsItsContent() throws {
        let cms = try CMSSignedData(berEncoded: CMSFixtures.isignSignature(), allowsZeroPadding: true)
        #expect(cms.verify(at: CMSFixtures.now).problems.map(\.code) == [.contentMissing])
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

    /// isign's test profile is signed by isign's own test CA, whose chain the CMS carries.
    @Test func isignsTestProfileVerifies() throws {
        let profile = try ProvisioningProfile(bytes: Fixtures.bytes("isign/test.mobileprovision"))
        let result = profile.signedData.verify(at: profile.creationDate ?? CMSFixtures.now)
        #expect(result.isIntact, "\(result.problems)")
        #expect(result.signers.first?.root.map { CMSSignedData.name($0) } == "\"isign_tests\"")
    }
}
