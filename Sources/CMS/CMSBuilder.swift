import Foundation
import PropertyList
import SwiftASN1
import X509

/// What signs a CMS: a certificate, its private key and the issuers to carry with it.
/// `SigningIdentity` (PKCS #12 and PEM files) conforms; tests can make their own.
public protocol CMSSigningIdentity: Sendable {
    /// The signer's (leaf) certificate.
    var certificate: Certificate { get }
    /// The issuers carried beside the leaf, its issuer first (the leaf itself is not repeated).
    var chain: [Certificate] { get }
    /// The key of `certificate`; all signing happens in swift-crypto.
    var privateKey: Certificate.PrivateKey { get }
}

/// Builds the detached CMS `SignedData` of a code signature, as codesign writes it:
///
/// - `version` 1, `digestAlgorithms` {SHA-256}, `encapContentInfo` `id-data` without content;
/// - `certificates`: the leaf and its chain (a DER SET OF, so sorted by encoding, as codesign's);
/// - one `SignerInfo`: version 1, issuerAndSerialNumber, SHA-256, signed attributes contentType
///   (`id-data`), signingTime, messageDigest (SHA-256 of the content), Apple's CDHashes plist and
///   CDHashes2, sorted as a DER SET OF; `rsaEncryption` for an RSA key, `ecdsa-with-SHA256` for
///   P-256 and P-384 keys.
///
/// The same content, identity, time and hashes give the same bytes with an RSA key (PKCS #1
/// v1.5 is deterministic); ECDSA signatures are randomised, so only their signature differs.
public enum CMSBuilder {
    /// The detached `ContentInfo` DER for `content` (the primary CodeDirectory).
    ///
    /// - Parameters:
    ///   - signingTime: written to the second (UTCTime up to 2049, GeneralizedTime after).
    ///   - cdHashes: every CodeDirectory's full hash, in CodeDirectory order. The CDHashes plist
    ///     lists each truncated to 20 bytes; CDHashes2 lists each whole, with its hash's OID, as
    ///     Xcode 12 and later write it (earlier signers left a SHA-1 CodeDirectory out of it).
    ///     Empty: neither attribute is written.
    public static func detachedSignature(
        content: [UInt8], identity: some CMSSigningIdentity, signingTime: Date, cdHashes: [CMSCodeDirectoryHash]
    ) throws(CMSError) -> [UInt8] {
        let leaf = identity.certificate
        guard identity.privateKey.publicKey == leaf.publicKey else {
            throw CMSError(.unsupportedIdentity, "the private key does not belong to the certificate \(CMSSignedData.name(leaf))")
        }
        let algorithms = identity.privateKey.supportedSignatureAlgorithms
        let (signatureAlgorithm, signatureAlgorithmIdentifier): (Certificate.SignatureAlgorithm, [UInt8])
        if algorithms.contains(.sha256WithRSAEncryption) {
            signatureAlgorithm = .sha256WithRSAEncryption
            signatureAlgorithmIdentifier = DERWriter.algorithm(CMSObjectIdentifier.rsaEncryption, nullParameters: true)
        } else if algorithms.contains(.ecdsaWithSHA256), let oid = CMSObjectIdentifier.algorithmOID(of: .ecdsaWithSHA256) {
            signatureAlgorithm = .ecdsaWithSHA256
            signatureAlgorithmIdentifier = DERWriter.algorithm(oid, nullParameters: false)
        } else {
            throw CMSError(.unsupportedIdentity, "the private key is neither RSA nor ECDSA, which code signatures use")
        }
        let digest = CMSDigestAlgorithm.sha256
        let digestAlgorithm = DERWriter.algorithm(digest.oid, nullParameters: true)

        let attributes = try signedAttributes(
            contentDigest: digest.digest(content), signingTime: signingTime, cdHashes: cdHashes)
        let attributesSet = DERWriter.constructed(.set, DERWriter.sortedAsSet(attributes))
        let signature: [UInt8]
        do {
            signature = try identity.privateKey.sign(bytes: attributesSet, signatureAlgorithm: signatureAlgorithm)
                .rawRepresentation
        } catch {
            throw CMSError(.signingFailed, "swift-crypto could not sign with the private key (\(error))")
        }

        let (issuer, serialNumber) = try issuerAndSerialNumber(of: leaf)
        let signerInfo = DERWriter.constructed(.sequence, [
            DERWriter.integer(1),
            DERWriter.constructed(.sequence, [issuer, serialNumber]),
            digestAlgorithm,
            DERWriter.constructed(BERElement.tag0, DERWriter.sortedAsSet(attributes)),
            signatureAlgorithmIdentifier,
            DERWriter.primitive(.octetString, signature),
        ])
        var certificates: [[UInt8]] = []
        for certificate in [leaf] + identity.chain {
            let der = try DERWriter.encoded(certificate)
            if !certificates.contains(der) { certificates.append(der) }
        }
        let signedData = DERWriter.constructed(.sequence, [
            DERWriter.integer(1),
            DERWriter.constructed(.set, [digestAlgorithm]),
            DERWriter.constructed(.sequence, [DERWriter.objectIdentifier(CMSObjectIdentifier.data)]),
            DERWriter.constructed(BERElement.tag0, DERWriter.sortedAsSet(certificates)),
            DERWriter.constructed(.set, [signerInfo]),
        ])
        return DERWriter.constructed(.sequence, [
            DERWriter.objectIdentifier(CMSObjectIdentifier.signedData),
            DERWriter.constructed(BERElement.tag0, [signedData]),
        ])
    }

    /// The XML property list of the CDHashes attribute: `{cdhashes: [data…]}`.
    public static func cdHashesPropertyList(_ cdHashes: [CMSCodeDirectoryHash]) throws(CMSError) -> [UInt8] {
        let root: PropertyListValue = ["cdhashes": .array(cdHashes.map { .data($0.truncated) })]
        do {
            return try PropertyList(root: root, format: .xml).xmlData()
        } catch {
            throw CMSError(.signingFailed, "the CDHashes property list could not be written (\(error))")
        }
    }

    // MARK: Parts

    private static func signedAttributes(
        contentDigest: [UInt8], signingTime: Date, cdHashes: [CMSCodeDirectoryHash]
    ) throws(CMSError) -> [[UInt8]] {
        func attribute(_ type: ASN1ObjectIdentifier, _ values: [[UInt8]]) -> [UInt8] {
            DERWriter.constructed(.sequence, [
                DERWriter.objectIdentifier(type), DERWriter.constructed(.set, DERWriter.sortedAsSet(values)),
            ])
        }
        var attributes = [
            attribute(CMSObjectIdentifier.contentType, [DERWriter.objectIdentifier(CMSObjectIdentifier.data)]),
            attribute(CMSObjectIdentifier.signingTime, [try DERWriter.time(signingTime)]),
            attribute(CMSObjectIdentifier.messageDigest, [DERWriter.primitive(.octetString, contentDigest)]),
        ]
        if !cdHashes.isEmpty {
            attributes.append(attribute(
                CMSObjectIdentifier.appleCDHashes, [DERWriter.primitive(.octetString, try cdHashesPropertyList(cdHashes))]))
        }
        let listed = cdHashes.filter { $0.algorithm != nil }
        if !listed.isEmpty {
            attributes.append(attribute(CMSObjectIdentifier.appleCDHashes2, listed.map { hash in
                DERWriter.constructed(.sequence, [
                    DERWriter.objectIdentifier(hash.algorithmIdentifier), DERWriter.primitive(.octetString, hash.digest),
                ])
            }))
        }
        return attributes
    }

    /// The leaf's issuer `Name` and serial number INTEGER, as encoded in its TBSCertificate.
    private static func issuerAndSerialNumber(of certificate: Certificate) throws(CMSError) -> ([UInt8], [UInt8]) {
        guard let tbs = try? DER.parse(certificate.tbsCertificateBytes), case .constructed(let fields) = tbs.content
        else {
            throw CMSError(.unsupportedIdentity, "the certificate's TBSCertificate cannot be read")
        }
        var nodes = Array(fields)
        // version [0] EXPLICIT is optional (absent for v1 certificates).
        if nodes.first?.identifier == BERElement.tag0 { nodes.removeFirst() }
        guard nodes.count > 2, nodes[0].identifier == .integer, nodes[2].identifier == .sequence else {
            throw CMSError(.unsupportedIdentity, "the certificate's TBSCertificate has no serial number and issuer")
        }
        return (Array(nodes[2].encodedBytes), Array(nodes[0].encodedBytes))
    }
}

/// DER encoding of the few ASN.1 forms the builder writes, each returned as bytes.
enum DERWriter {
    static func constructed(_ identifier: ASN1Identifier, _ children: [[UInt8]]) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: identifier) { coder in
            for child in children { coder.serializeRawBytes(child) }
        }
        return serializer.serializedBytes
    }

    static func primitive(_ identifier: ASN1Identifier, _ content: [UInt8]) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendPrimitiveNode(identifier: identifier) { bytes in bytes.append(contentsOf: content) }
        return serializer.serializedBytes
    }

    static func integer(_ value: UInt8) -> [UInt8] {
        primitive(.integer, [value])
    }

    static func objectIdentifier(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
        (try? encoded(oid)) ?? []
    }

    /// `AlgorithmIdentifier`; `nullParameters` writes the explicit NULL codesign writes for
    /// digests and RSA.
    static func algorithm(_ oid: ASN1ObjectIdentifier, nullParameters: Bool) -> [UInt8] {
        constructed(.sequence, [objectIdentifier(oid)] + (nullParameters ? [[0x05, 0x00]] : []))
    }

    /// A time as RFC 5652 §11.3 wants it: UTCTime for 1950–2049, GeneralizedTime otherwise.
    static func time(_ date: Date) throws(CMSError) -> [UInt8] {
        let time = UTCFields(date)
        do {
            if (1950...2049).contains(time.year) {
                return try encoded(UTCTime(
                    year: time.year, month: time.month, day: time.day,
                    hours: time.hours, minutes: time.minutes, seconds: time.seconds))
            }
            return try encoded(GeneralizedTime(
                year: time.year, month: time.month, day: time.day,
                hours: time.hours, minutes: time.minutes, seconds: time.seconds, fractionalSeconds: 0))
        } catch {
            throw CMSError(.signingFailed, "the signing time \(time.iso8601) cannot be encoded")
        }
    }

    static func encoded(_ value: some DERSerializable) throws(CMSError) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(value)
        } catch {
            throw CMSError(.unsupportedIdentity, "a value cannot be DER-encoded (\(error))")
        }
        return serializer.serializedBytes
    }

    /// The elements of a DER SET OF in their required order: ascending by encoding (X.690 §11.6).
    static func sortedAsSet(_ elements: [[UInt8]]) -> [[UInt8]] {
        elements.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
