import CMS
import Crypto
import Foundation
import SwiftASN1
import TestSupport
import X509

/// An identity read from the committed PEM fixtures with swift-certificates alone, so the CMS
/// tests need no libcrypto (SigningIdentity has its own tests).
struct TestIdentity: CMSSigningIdentity {
    let certificate: Certificate
    let chain: [Certificate]
    let privateKey: Certificate.PrivateKey

    /// `distribution` (RSA 2048) or `distribution-ec` (P-256), with the WWDR and root chain.
    init(_ leaf: String = "distribution") throws {
        certificate = try Certificate(pemEncoded: String(contentsOfFile: SigningFixtures.path("\(leaf).pem"), encoding: .utf8))
        privateKey = try Certificate.PrivateKey(
            pemEncoded: String(contentsOfFile: SigningFixtures.path("\(leaf).key.pem"), encoding: .utf8))
        chain = try PEMDocument.parseMultiple(pemString: String(contentsOfFile: SigningFixtures.chainPEM, encoding: .utf8))
            .map { try Certificate(derEncoded: $0.derBytes) }
    }

    init(certificate: Certificate, chain: [Certificate], privateKey: Certificate.PrivateKey) {
        self.certificate = certificate
        self.chain = chain
        self.privateKey = privateKey
    }

    /// A self-signed identity with a fresh P-384 key (no openssl needed).
    static func selfSignedP384() throws -> TestIdentity {
        let key = Certificate.PrivateKey(P384.Signing.PrivateKey())
        let name = try DistinguishedName {
            CommonName("ipawrap P-384 test")
            OrganizationalUnitName("ABCDE12345")
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: Date(timeIntervalSince1970: 1_735_689_600), notValidAfter: Date(timeIntervalSince1970: 2_051_222_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA384, extensions: Certificate.Extensions(),
            issuerPrivateKey: key)
        return TestIdentity(certificate: certificate, chain: [], privateKey: key)
    }
}

/// Inputs the CMS tests share.
enum CMSFixtures {
    /// 2027-01-01T00:00:00Z: every test identity, and the profile signer, is valid.
    static let now = Date(timeIntervalSince1970: 1_798_761_600)
    /// 2025-06-15T12:34:56Z.
    static let signingTime = Date(timeIntervalSince1970: 1_749_990_896)

    /// CodeDirectory content: the generated Xcode-shaped app's arm64 slot-0 CodeDirectory.
    static func content() throws -> [UInt8] {
        try EmbeddedSignatureBlobs.cms(in: XcodeShapedApp.bytes(XcodeShapedApp.appName)).codeDirectory
    }

    /// The hashes of `content` as a dual-hash signature lists them: SHA-1 then SHA-256.
    static func cdHashes(_ content: [UInt8]) -> [CMSCodeDirectoryHash] {
        [CMSCodeDirectoryHash(algorithm: .sha1, digest: CMSDigestAlgorithm.sha1.digest(content)),
         CMSCodeDirectoryHash(algorithm: .sha256, digest: CMSDigestAlgorithm.sha256.digest(content))]
    }

    /// A detached signature over `content` by `identity`.
    static func signature(
        _ identity: some CMSSigningIdentity, content: [UInt8], signingTime: Date = signingTime
    ) throws -> [UInt8] {
        try CMSBuilder.detachedSignature(
            content: content, identity: identity, signingTime: signingTime, cdHashes: cdHashes(content))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// Re-assembles a ContentInfo from a parsed one with parts replaced, for hostile variants.
enum CMSSurgery {
    struct Failure: Error {}

    /// The SignedData's fields as DER elements, in order.
    static func signedDataFields(_ cms: [UInt8]) throws -> [[UInt8]] {
        let root = try BER.parse(cms)
        guard case .constructed(let contentInfo) = root.content, let explicit = Array(contentInfo).last,
              case .constructed(let wrapped) = explicit.content, let signedData = Array(wrapped).first,
              case .constructed(let fields) = signedData.content else { throw Failure() }
        return fields.map { Array($0.encodedBytes) }
    }

    /// The ContentInfo around SignedData fields.
    static func contentInfo(_ fields: [[UInt8]]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(ASN1ObjectIdentifier("1.2.840.113549.1.7.2"))
            coder.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { coder in
                coder.appendConstructedNode(identifier: .sequence) { coder in
                    for field in fields { coder.serializeRawBytes(field) }
                }
            }
        }
        return serializer.serializedBytes
    }

    /// A constructed element with the given identifier around raw children.
    static func constructed(_ identifier: ASN1Identifier, _ children: [[UInt8]]) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: identifier) { coder in
            for child in children { coder.serializeRawBytes(child) }
        }
        return serializer.serializedBytes
    }

    /// The children of a constructed element.
    static func children(_ element: [UInt8]) throws -> [[UInt8]] {
        guard case .constructed(let nodes) = try BER.parse(element).content else { throw Failure() }
        return nodes.map { Array($0.encodedBytes) }
    }
}
