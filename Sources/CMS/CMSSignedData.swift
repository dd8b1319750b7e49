import SwiftASN1

/// A CMS `SignedData` (RFC 5652 §5) in its `ContentInfo`: what a `.mobileprovision` file is (the
/// content attached: the profile's property list) and what a code signature's `0xFADE0B01` blob
/// holds (detached: the signed content is the CodeDirectory).
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OID (signedData), content [0] EXPLICIT SignedData }
/// SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo,
///                            certificates [0] IMPLICIT SET OPTIONAL, crls [1] IMPLICIT OPTIONAL,
///                            signerInfos SET }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType OID, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
/// ```
///
/// Read with BER rules, so definite and indefinite lengths are both accepted, and a constructed
/// (chunked) OCTET STRING is joined into the content it carries (slicing a profile between
/// `<?xml` and `</plist>` would keep the chunk headers inside the XML). Parsing checks structure
/// only; `verify(content:at:)` checks the signatures.
public struct CMSSignedData: Sendable {
    /// Far larger than any real one (a profile is a few dozen KiB, a code signature's CMS a few);
    /// bounds the ASN.1 parse, which builds one node per element.
    public static let maximumSize = 4 << 20

    /// `SignedData.version`: 1 when every signer is named by issuer and serial number (profiles,
    /// code signatures), 3 with subject key identifiers.
    public let version: Int
    /// The digest algorithms the signers used, by name (`sha1`, `sha256`…) or dotted OID.
    public let digestAlgorithms: [String]
    /// `eContentType`: `id-data` for profiles and code signatures.
    public let contentType: ASN1ObjectIdentifier
    /// Whether the SignedData carries no content (`eContent` absent): a detached signature, whose
    /// content the verifier supplies.
    public let isDetached: Bool
    /// The encapsulated content, chunks joined; empty when detached.
    public let content: [UInt8]
    /// DER bytes of each X.509 certificate in `certificates`, in their order: the signing chain.
    /// Kept as bytes (parsed when verifying), so a hostile count costs no certificate parsing.
    public let certificates: [[UInt8]]
    /// Every `SignerInfo`, in order.
    public let signerInfos: [CMSSignerInfo]
    /// Whether any element has an indefinite length, which BER allows and DER does not
    /// (streaming encoders such as `openssl cms -stream` and codesign write them).
    public let usesIndefiniteLengths: Bool
    /// How many primitive OCTET STRINGs the content was carried in: 1 in DER, more when a BER
    /// encoder chunked it, 0 when detached.
    public let contentChunkCount: Int

    /// How many `SignerInfo`s there are (1 for a real profile or code signature).
    public var signerCount: Int { signerInfos.count }

    /// Parses a CMS `ContentInfo` holding `SignedData`.
    ///
    /// - Parameter allowsZeroPadding: accept zero bytes after the `ContentInfo` (a code
    ///   signature's blob is padded with them); without it they are `CMS_MALFORMED_ASN1`.
    public init(berEncoded bytes: [UInt8], allowsZeroPadding: Bool = false) throws(CMSError) {
        guard !bytes.isEmpty else { throw CMSError(.empty, "the data is empty") }
        guard bytes.count <= Self.maximumSize else {
            throw CMSError(.tooLarge, "the CMS data is \(bytes.count) bytes, more than the \(Self.maximumSize)-byte limit")
        }
        var encoded = bytes[...]
        if allowsZeroPadding, bytes.last == 0, let length = BERElement.length(of: bytes),
           bytes[length...].allSatisfy({ $0 == 0 }) {
            encoded = bytes[..<length]
        }
        let root: ASN1Node
        do {
            root = try BER.parse(encoded)
        } catch let error as ASN1Error {
            throw BERElement.translate(error)
        } catch {
            throw CMSError(.malformedASN1, "the data is not valid BER/DER (\(error))")
        }

        // ContentInfo
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw CMSError(.notSignedData, "the data is \(BERElement.describe(root.identifier)), not a CMS ContentInfo SEQUENCE")
        }
        var fields = contentInfo.makeIterator()
        guard let typeNode = fields.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw CMSError(.notSignedData, "the ContentInfo does not start with a content type (an OBJECT IDENTIFIER)")
        }
        guard type == CMSObjectIdentifier.signedData else {
            throw CMSError(
                .notSignedData,
                "the CMS content type is \(CMSObjectIdentifier.name(of: type)), not signedData (1.2.840.113549.1.7.2)")
        }
        guard let explicit = fields.next(), explicit.identifier == BERElement.tag0,
              case .constructed(let wrapped) = explicit.content else {
            throw CMSError(.malformed, "the ContentInfo has no [0] content after its content type")
        }
        guard fields.next() == nil else {
            throw CMSError(.malformed, "the ContentInfo has elements after its content")
        }
        var inner = wrapped.makeIterator()
        guard let signedData = inner.next(), inner.next() == nil, signedData.identifier == .sequence,
              case .constructed(let signedFields) = signedData.content else {
            throw CMSError(.malformed, "the [0] content of the ContentInfo is not one SignedData SEQUENCE")
        }

        // SignedData
        var items = signedFields.makeIterator()
        guard let versionNode = items.next(), let version = try? Int(berEncoded: versionNode) else {
            throw CMSError(.malformed, "the SignedData does not start with its version (an INTEGER)")
        }
        guard let digestNode = items.next(), digestNode.identifier == .set,
              case .constructed(let digestSet) = digestNode.content else {
            throw CMSError(.malformed, "the SignedData has no digestAlgorithms SET after its version")
        }
        var digests: [String] = []
        for algorithm in digestSet {
            guard let oid = BERElement.algorithmOID(algorithm) else {
                throw CMSError(.malformed, "a digest algorithm of the SignedData is not an AlgorithmIdentifier")
            }
            digests.append(CMSObjectIdentifier.name(of: oid))
        }
        guard let encapsulated = items.next(), encapsulated.identifier == .sequence,
              case .constructed(let encapsulatedFields) = encapsulated.content else {
            throw CMSError(.malformed, "the SignedData has no encapContentInfo SEQUENCE after its digest algorithms")
        }
        let (contentType, content) = try Self.encapsulatedContent(encapsulatedFields)

        var certificates: [[UInt8]] = []
        var next = items.next()
        if let node = next, node.identifier == BERElement.tag0 {
            guard case .constructed(let choices) = node.content else {
                throw CMSError(.malformed, "the SignedData certificates [0] field is not constructed")
            }
            // Other CertificateChoices (attribute certificates, [0]…[3]) are not X.509 certificates.
            for choice in choices where choice.identifier == .sequence {
                certificates.append(Array(choice.encodedBytes))
            }
            next = items.next()
        }
        if let node = next, node.identifier == BERElement.tag1 {
            next = items.next()
        }
        guard let signerInfosNode = next, signerInfosNode.identifier == .set,
              case .constructed(let signers) = signerInfosNode.content else {
            throw CMSError(.malformed, "the SignedData has no signerInfos SET")
        }
        guard items.next() == nil else {
            throw CMSError(.malformed, "the SignedData has elements after its signerInfos")
        }
        var signerInfos: [CMSSignerInfo] = []
        for (index, signer) in signers.enumerated() {
            signerInfos.append(try CMSSignerInfo(node: signer, position: index + 1))
        }

        self.version = version
        self.digestAlgorithms = digests
        self.contentType = contentType
        self.isDetached = content == nil
        self.content = content?.bytes ?? []
        self.contentChunkCount = content?.chunks ?? 0
        self.certificates = certificates
        self.signerInfos = signerInfos
        self.usesIndefiniteLengths = BERElement.containsIndefiniteLength(root)
    }

    // MARK: Encapsulated content

    /// The `eContentType` and the `eContent` of an `EncapsulatedContentInfo` (nil when detached),
    /// its OCTET STRING pieces joined.
    private static func encapsulatedContent(
        _ fields: ASN1NodeCollection
    ) throws(CMSError) -> (ASN1ObjectIdentifier, (bytes: [UInt8], chunks: Int)?) {
        var iterator = fields.makeIterator()
        guard let typeNode = iterator.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw CMSError(.malformed, "the encapContentInfo does not start with a content type")
        }
        guard let explicit = iterator.next() else { return (type, nil) }
        guard explicit.identifier == BERElement.tag0, case .constructed(let wrapped) = explicit.content else {
            throw CMSError(.malformed, "the encapContentInfo's content is not wrapped in [0]")
        }
        var inner = wrapped.makeIterator()
        guard let octets = inner.next(), inner.next() == nil, iterator.next() == nil else {
            throw CMSError(.malformed, "the encapContentInfo's [0] does not hold exactly one OCTET STRING")
        }
        return (type, try BERElement.joinedOctets(octets, in: "the signed content"))
    }
}
