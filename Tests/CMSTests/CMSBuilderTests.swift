import CMS
import Foundation
import SwiftASN1
import Testing
import TestSupport
import X509

/// The detached SignedData `CMSBuilder` writes for a code signature, read back by this module's
/// parser, by `openssl cms -verify` and by Python's asn1crypto.
struct CMSBuilderTests {
    static let identities = ["distribution", "distribution-ec"]

    @Test(arguments: identities)
    func theOwnParserReadsWhatWasBuilt(_ leaf: String) throws {
        let identity = try TestIdentity(leaf)
        let content = try CMSFixtures.content()
        let cms = try CMSSignedData(berEncoded: CMSFixtures.signature(identity, content: content))
        #expect(cms.version == 1)
        #expect(cms.digestAlgorithms == ["sha256"])
        #expect(cms.isDetached && cms.contentType == CMSObjectIdentifier.data)
        #expect(!cms.usesIndefiniteLengths)
        #expect(cms.certificates.count == 3)
        let signer = try #require(cms.signerInfos.first)
        #expect(cms.signerCount == 1 && signer.version == 1 && signer.digestAlgorithm == .sha256)
        #expect(signer.signatureAlgorithmIdentifier.description
            == (leaf == "distribution" ? "1.2.840.113549.1.1.1" : "1.2.840.10045.4.3.2"))
        guard case .issuerAndSerialNumber(_, let serial) = signer.identifier else {
            Issue.record("the signer is named by issuer and serial number")
            return
        }
        #expect(Certificate.SerialNumber(bytes: serial) == identity.certificate.serialNumber)
        let attributes = try #require(signer.signedAttributes)
        #expect(attributes.contentType == CMSObjectIdentifier.data)
        #expect(attributes.signingTime == CMSFixtures.signingTime)
        #expect(attributes.messageDigest == CMSDigestAlgorithm.sha256.digest(content))
        let hashes = CMSFixtures.cdHashes(content)
        #expect(attributes.cdHashes == hashes.map(\.truncated))
        // Every CodeDirectory, SHA-1 too, as Xcode 12 and later list them (a DER SET: by encoding).
        let byDigest = { (list: [CMSCodeDirectoryHash]) in list.sorted { $0.digest.lexicographicallyPrecedes($1.digest) } }
        #expect(byDigest(attributes.cdHashes2 ?? []) == byDigest(hashes))
        // A DER SET OF: the attributes in ascending order of their encodings.
        let encoded = try CMSSurgery.children(attributes.derEncoded)
        #expect(encoded == encoded.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(Set(attributes.attributes.map(\.type)) == [
            CMSObjectIdentifier.contentType, CMSObjectIdentifier.signingTime, CMSObjectIdentifier.messageDigest,
            CMSObjectIdentifier.appleCDHashes, CMSObjectIdentifier.appleCDHashes2,
        ])

        let result = cms.verify(content: content, at: CMSFixtures.now)
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.signers.first?.chain.count == 3)
        #expect(result.signers.first?.root.map { CMSSignedData.name($0) } == "\"ipawrap Test Apple Root CA\"")
    }

    @Test func theSameInputsGiveTheSameBytesWithAnRSAKey() throws {
        let identity = try TestIdentity()
        let content = try CMSFixtures.content()
        let first = try CMSFixtures.signature(identity, content: content)
        #expect(try CMSFixtures.signature(identity, content: content) == first)
        let later = try CMSFixtures.signature(identity, content: content, signingTime: CMSFixtures.now)
        #expect(later != first)
    }

    /// `cms/codesign-rsa.cms`: the builder's signature of the generated app's CodeDirectory, committed (a
    /// fuzzing seed, and a check that the encoding does not drift). `IPAWRAP_WRITE_FIXTURES=1`
    /// rewrites it.
    @Test func theCommittedSignatureIsWhatTheBuilderWrites() throws {
        let signature = try CMSFixtures.signature(TestIdentity(), content: try CMSFixtures.content())
        if ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1" {
            try Data(signature).write(to: Fixtures.url("cms/codesign-rsa.cms"))
        }
        #expect(try Fixtures.bytes("cms/codesign-rsa.cms") == signature, "rewrite with IPAWRAP_WRITE_FIXTURES=1")
    }

    @Test func signingTimesAfter2049AreGeneralizedTime() throws {
        let identity = try TestIdentity()
        let time = Date(timeIntervalSince1970: 2_556_144_000)  // 2051-01-01
        let cms = try CMSSignedData(berEncoded: CMSFixtures.signature(identity, content: [1, 2, 3], signingTime: time))
        let attributes = try #require(cms.signerInfos.first?.signedAttributes)
        #expect(attributes.signingTime == time)
        #expect(attributes[CMSObjectIdentifier.signingTime]?.values.first?.first == 0x18)  // GeneralizedTime
    }

    @Test func aP384KeySignsToo() throws {
        let identity = try TestIdentity.selfSignedP384()
        let content = Array("a CodeDirectory".utf8)
        let cms = try CMSSignedData(berEncoded: CMSFixtures.signature(identity, content: content))
        let result = cms.verify(content: content, at: CMSFixtures.now)
        #expect(result.problems.isEmpty, "\(result.problems)")
    }

    @Test func everyHashGoesIntoCDHashes2AndNoneWithoutHashes() throws {
        let identity = try TestIdentity()
        let content = try CMSFixtures.content()
        let sha1Only = try CMSSignedData(berEncoded: CMSBuilder.detachedSignature(
            content: content, identity: identity, signingTime: CMSFixtures.signingTime,
            cdHashes: [CMSFixtures.cdHashes(content)[0]]))
        #expect(sha1Only.signerInfos.first?.signedAttributes?.cdHashes?.count == 1)
        #expect(sha1Only.signerInfos.first?.signedAttributes?.cdHashes2 == [CMSFixtures.cdHashes(content)[0]])
        let none = try CMSSignedData(berEncoded: CMSBuilder.detachedSignature(
            content: content, identity: identity, signingTime: CMSFixtures.signingTime, cdHashes: []))
        #expect(none.signerInfos.first?.signedAttributes?.attributes.count == 3)
    }

    @Test func aKeyOfAnotherCertificateIsRefused() throws {
        let rsa = try TestIdentity()
        let ec = try TestIdentity("distribution-ec")
        let mixed = TestIdentity(certificate: rsa.certificate, chain: rsa.chain, privateKey: ec.privateKey)
        let error = #expect(throws: CMSError.self) { try CMSFixtures.signature(mixed, content: [1]) }
        #expect(error?.code == "CMS_IDENTITY_UNSUPPORTED")
    }

    @Test func cdHashesPlistIsApplesXMLPropertyList() throws {
        let plist = try CMSBuilder.cdHashesPropertyList(CMSFixtures.cdHashes(try CMSFixtures.content()))
        let object = try PropertyListSerialization.propertyList(from: Data(plist), format: nil)
        let hashes = try #require((object as? [String: Any])?["cdhashes"] as? [Data])
        #expect(hashes.map { [UInt8]($0) } == CMSFixtures.cdHashes(try CMSFixtures.content()).map(\.truncated))
        #expect(String(decoding: plist, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist"))
    }

    // MARK: openssl

    /// `openssl cms -verify -binary -content CONTENT -inform DER -CAfile root.pem -purpose any`:
    /// the digest, the signature and the chain up to the test root, by OpenSSL's own code.
    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"), arguments: identities)
    func opensslVerifiesWhatWasBuilt(_ leaf: String) throws {
        let scratch = try ScratchDirectory("cms-openssl")
        let content = try CMSFixtures.content()
        let signature = try scratch.write("signature.cms", CMSFixtures.signature(try TestIdentity(leaf), content: content))
        let good = try scratch.write("content", content)
        #expect(try Self.opensslVerify(signature: signature, content: good).status == 0)
        // The oracle can fail: a changed content does not verify.
        var changed = content
        changed[0] ^= 1
        let bad = try scratch.write("changed", changed)
        #expect(try Self.opensslVerify(signature: signature, content: bad).status != 0)
    }

    static func opensslVerify(signature: String, content: String) throws -> Command.Result {
        try Command.run("openssl", [
            "cms", "-verify", "-binary", "-content", content, "-inform", "DER", "-in", signature,
            "-CAfile", SigningFixtures.rootPEM, "-purpose", "any", "-out", "/dev/null",
        ])
    }

    // MARK: asn1crypto

    /// Python's asn1crypto (PyPI) decodes the same structure and attributes.
    static let asn1cryptoScript = """
        import json, plistlib, sys
        from asn1crypto import cms, core
        info = cms.ContentInfo.load(open(sys.argv[1], 'rb').read())
        signed = info['content']
        signer = signed['signer_infos'][0]
        out = {
            'content_type': info['content_type'].native,
            'version': signed['version'].native,
            'digest_algorithms': [a['algorithm'].native for a in signed['digest_algorithms']],
            'detached': signed['encap_content_info']['content'].native is None,
            'certificates': [c.chosen.subject.native['common_name'] for c in signed['certificates']],
            'signature_algorithm': signer['signature_algorithm']['algorithm'].dotted,
        }
        for attribute in signer['signed_attrs']:
            kind = attribute['type'].dotted
            values = attribute['values']
            if kind == '1.2.840.113549.1.9.3':
                out['contentType'] = values[0].dotted
            elif kind == '1.2.840.113549.1.9.5':
                out['signingTime'] = values[0].native.strftime('%Y-%m-%dT%H:%M:%SZ')
            elif kind == '1.2.840.113549.1.9.4':
                out['messageDigest'] = values[0].native.hex()
            elif kind == '1.2.840.113635.100.9.1':
                plist = plistlib.loads(core.load(values[0].dump()).native)
                out['cdhashes'] = [h.hex() for h in plist['cdhashes']]
            elif kind == '1.2.840.113635.100.9.2':
                pairs = [core.load(value.dump()) for value in values]
                out['cdhashes2'] = [[pair[0].dotted, pair[1].native.hex()] for pair in pairs]
        print(json.dumps(out, sort_keys=True))
        """

    @Test(.enabled(if: PythonOracle.canRun("asn1crypto"), "needs the Python oracle environment (Scripts/test makes it)"))
    func asn1cryptoDecodesTheSameAttributes() throws {
        let scratch = try ScratchDirectory("cms-asn1crypto")
        let identity = try TestIdentity()
        let content = try CMSFixtures.content()
        let path = try scratch.write("signature.cms", CMSFixtures.signature(identity, content: content))
        let output = try PythonOracle.run(Self.asn1cryptoScript, arguments: [path], packages: ["asn1crypto"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let hashes = CMSFixtures.cdHashes(content)
        #expect(decoded["content_type"] as? String == "signed_data")
        #expect(decoded["version"] as? String == "v1")
        #expect(decoded["digest_algorithms"] as? [String] == ["sha256"])
        #expect(decoded["detached"] as? Bool == true)
        #expect(Set(decoded["certificates"] as? [String] ?? []) == [
            "Apple Distribution: Example Corp (ABCDE12345)", "ipawrap Test Worldwide Developer Relations CA",
            "ipawrap Test Apple Root CA",
        ])
        #expect(decoded["signature_algorithm"] as? String == "1.2.840.113549.1.1.1")
        #expect(decoded["contentType"] as? String == "1.2.840.113549.1.7.1")
        #expect(decoded["signingTime"] as? String == "2025-06-15T12:34:56Z")
        #expect(decoded["messageDigest"] as? String == CMSFixtures.hex(CMSDigestAlgorithm.sha256.digest(content)))
        #expect(decoded["cdhashes"] as? [String] == hashes.map { CMSFixtures.hex($0.truncated) })
        #expect(Set(decoded["cdhashes2"] as? [[String]] ?? []) == [
            ["1.3.14.3.2.26", CMSFixtures.hex(hashes[0].digest)], ["2.16.840.1.101.3.4.2.1", CMSFixtures.hex(hashes[1].digest)],
        ])
    }
}
