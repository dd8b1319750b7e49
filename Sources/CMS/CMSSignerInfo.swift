import SwiftASN1

/// One signer of a `SignedData` (RFC 5652 §5.3):
///
/// ```
/// SignerInfo ::= SEQUENCE { version, sid SignerIdentifier, digestAlgorithm,
///                           signedAttrs [0] IMPLICIT SET OF Attribute OPTIONAL,
///                           signatureAlgorithm, signature OCTET STRING,
///                           unsignedAttrs [1] IMPLICIT SET OF Attribute OPTIONAL }
/// SignerIdentifier ::= CHOICE { issuerAndSerialNumber SEQUENCE { issuer Name, serialNumber INTEGER },
///                               subjectKeyIdentifier [0] IMPLICIT OCTET STRING }
/// ```
public struct CMSSignerInfo: Sendable {
    /// How the signer names its certificate.
    public enum Identifier: Sendable, Equatable {
        /// The certificate's issuer (DER `Name`, as encoded in the SignerInfo) and serial number
        /// (the INTEGER's content bytes): version 1, what codesign and profiles write.
        case issuerAndSerialNumber(issuer: [UInt8], serialNumber: [UInt8])
        /// The certificate's subject key identifier extension: version 3.
        case subjectKeyIdentifier([UInt8])
    }

    public let version: Int
    public let identifier: Identifier
    /// The OID of the digest the signer applied to the content (and to the signed attributes).
    public let digestAlgorithmIdentifier: ASN1ObjectIdentifier
    /// The signed attributes; nil when the signature covers the content directly (RFC 5652
    /// allows that for `id-data`; `openssl cms -noattr` writes it).
    public let signedAttributes: CMSSignedAttributes?
    /// The OID of the signature algorithm (`rsaEncryption`, `ecdsa-with-SHA256`…).
    public let signatureAlgorithmIdentifier: ASN1ObjectIdentifier
    /// The signature value.
    public let signature: [UInt8]
    /// How many unsigned attributes follow (a timestamp, for example); not verified.
    public let unsignedAttributeCount: Int

    /// The digest algorithm, when it is one this module computes.
    public var digestAlgorithm: CMSDigestAlgorithm? { CMSDigestAlgorithm(oid: digestAlgorithmIdentifier) }

    /// Parses the `position`-th (1-based, for messages) SignerInfo.
    init(node: ASN1Node, position: Int) throws(CMSError) {
        func invalid(_ what: String) -> CMSError {
            CMSError(.signerInvalid, "SignerInfo \(position): \(what)")
        }
        guard node.identifier == .sequence, case .constructed(let fields) = node.content else {
            throw invalid("it is \(BERElement.describe(node.identifier)), not a SEQUENCE")
        }
        var items = fields.makeIterator()
        guard let versionNode = items.next(), let version = try? Int(berEncoded: versionNode) else {
            throw invalid("it does not start with its version (an INTEGER)")
        }
        guard let sid = items.next() else { throw invalid("it has no signer identifier") }
        if sid.identifier == .sequence, case .constructed(let parts) = sid.content {
            var iterator = parts.makeIterator()
            guard let issuer = iterator.next(), issuer.identifier == .sequence,
                  let serial = iterator.next(), serial.identifier == .integer,
                  case .primitive(let serialBytes) = serial.content, !serialBytes.isEmpty, iterator.next() == nil
            else {
                throw invalid("its issuerAndSerialNumber is not SEQUENCE { issuer Name, serialNumber INTEGER }")
            }
            identifier = .issuerAndSerialNumber(issuer: Array(issuer.encodedBytes), serialNumber: Array(serialBytes))
        } else if sid.identifier == BERElement.tag0 {
            guard case .primitive(let keyIdentifier) = sid.content else {
                throw invalid("its subjectKeyIdentifier [0] is not a primitive OCTET STRING")
            }
            identifier = .subjectKeyIdentifier(Array(keyIdentifier))
        } else {
            throw invalid("its signer identifier is \(BERElement.describe(sid.identifier)), not issuerAndSerialNumber or [0]")
        }
        guard let digestNode = items.next(), let digest = BERElement.algorithmOID(digestNode) else {
            throw invalid("it has no digestAlgorithm after its signer identifier")
        }
        var next = items.next()
        var signedAttributes: CMSSignedAttributes?
        if let node = next, node.identifier == BERElement.tag0 {
            signedAttributes = try CMSSignedAttributes(node: node, position: position)
            next = items.next()
        }
        guard let signatureAlgorithmNode = next, let signatureAlgorithm = BERElement.algorithmOID(signatureAlgorithmNode)
        else {
            throw invalid("it has no signatureAlgorithm")
        }
        guard let signatureNode = items.next() else { throw invalid("it has no signature") }
        let signature: [UInt8]
        do {
            signature = try BERElement.joinedOctets(signatureNode, in: "its signature").bytes
        } catch {
            throw invalid(error.message)
        }
        var unsignedCount = 0
        if let node = items.next() {
            guard node.identifier == BERElement.tag1, case .constructed(let unsigned) = node.content else {
                throw invalid("it has \(BERElement.describe(node.identifier)) after its signature, not unsignedAttrs [1]")
            }
            unsignedCount = unsigned.reduce(0) { count, _ in count + 1 }
            guard items.next() == nil else { throw invalid("it has elements after its unsigned attributes") }
        }
        self.version = version
        self.digestAlgorithmIdentifier = digest
        self.signedAttributes = signedAttributes
        self.signatureAlgorithmIdentifier = signatureAlgorithm
        self.signature = signature
        self.unsignedAttributeCount = unsignedCount
    }
}
