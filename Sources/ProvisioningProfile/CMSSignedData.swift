import SwiftASN1

/// The CMS `SignedData` (RFC 5652 §5) that a `.mobileprovision` file is: a `ContentInfo` whose
/// content is `SignedData`, whose encapsulated content is the profile's property list.
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType OID (signedData), content [0] EXPLICIT SignedData }
/// SignedData  ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo,
///                            certificates [0] IMPLICIT SET OPTIONAL, crls [1] IMPLICIT OPTIONAL,
///                            signerInfos SET }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType OID (data), eContent [0] EXPLICIT OCTET STRING }
/// ```
///
/// Read with BER rules, so definite and indefinite lengths are both accepted, and a constructed
/// (chunked) OCTET STRING is joined into the content it carries; slicing the file between
/// `<?xml` and `</plist>` would keep the chunk headers inside the XML. The signature is not
/// verified: that needs Apple's root, and the device checks it anyway.
public struct CMSSignedData: Sendable {
    /// `id-signedData`, 1.2.840.113549.1.7.2.
    public static let signedDataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    /// `id-data`, 1.2.840.113549.1.7.1: opaque octets (here, the property list).
    public static let dataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]

    /// `SignedData.version`: 1 for profiles (3 or more when signer identifiers use key IDs).
    public let version: Int
    /// The digest algorithms the signers used, by name (`sha1`, `sha256`…) or dotted OID.
    public let digestAlgorithms: [String]
    /// The encapsulated content: the property list bytes, chunks joined.
    public let content: [UInt8]
    /// DER bytes of each X.509 certificate in `certificates`: the signing chain (Apple's
    /// provisioning-profile signing certificate and its issuers, for a real profile).
    public let certificates: [[UInt8]]
    /// How many `SignerInfo`s there are (1 for a real profile).
    public let signerCount: Int
    /// Whether any element has an indefinite length, which BER allows and DER does not
    /// (streaming encoders such as `openssl cms -stream` write them).
    public let usesIndefiniteLengths: Bool
    /// How many primitive OCTET STRINGs the content was carried in: 1 in DER, more when a BER
    /// encoder chunked it.
    public let contentChunkCount: Int

    /// Parses a CMS `ContentInfo` holding `SignedData` with encapsulated `id-data` content.
    public init(berEncoded bytes: [UInt8]) throws(ProfileError) {
        guard !bytes.isEmpty else { throw ProfileError(.empty, "the file is empty") }
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch let error as ASN1Error {
            throw Self.translate(error)
        } catch {
            throw ProfileError(.malformedASN1, "the data is not valid BER/DER (\(error))")
        }

        // ContentInfo
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw ProfileError(.notSignedData, "the data is \(Self.describe(root.identifier)), not a CMS ContentInfo SEQUENCE")
        }
        var fields = contentInfo.makeIterator()
        guard let typeNode = fields.next(), let contentType = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw ProfileError(.notSignedData, "the ContentInfo does not start with a content type (an OBJECT IDENTIFIER)")
        }
        guard contentType == Self.signedDataType else {
            throw ProfileError(
                .notSignedData, "the CMS content type is \(Self.name(of: contentType)), not signedData (1.2.840.113549.1.7.2)")
        }
        guard let explicit = fields.next(), explicit.identifier == Self.tag0,
              case .constructed(let wrapped) = explicit.content else {
            throw ProfileError(.malformedCMS, "the ContentInfo has no [0] content after its content type")
        }
        guard fields.next() == nil else {
            throw ProfileError(.malformedCMS, "the ContentInfo has elements after its content")
        }
        var inner = wrapped.makeIterator()
        guard let signedData = inner.next(), inner.next() == nil, signedData.identifier == .sequence,
              case .constructed(let signedFields) = signedData.content else {
            throw ProfileError(.malformedCMS, "the [0] content of the ContentInfo is not one SignedData SEQUENCE")
        }

        // SignedData
        var items = signedFields.makeIterator()
        guard let versionNode = items.next(), let version = try? Int(berEncoded: versionNode) else {
            throw ProfileError(.malformedCMS, "the SignedData does not start with its version (an INTEGER)")
        }
        guard let digestNode = items.next(), digestNode.identifier == .set,
              case .constructed(let digestSet) = digestNode.content else {
            throw ProfileError(.malformedCMS, "the SignedData has no digestAlgorithms SET after its version")
        }
        var digests: [String] = []
        for algorithm in digestSet {
            guard algorithm.identifier == .sequence, case .constructed(let parts) = algorithm.content,
                  let first = parts.first(where: { _ in true }), let oid = try? ASN1ObjectIdentifier(berEncoded: first) else {
                throw ProfileError(.malformedCMS, "a digest algorithm of the SignedData is not an AlgorithmIdentifier")
            }
            digests.append(Self.name(of: oid))
        }
        guard let encapsulated = items.next(), encapsulated.identifier == .sequence,
              case .constructed(let encapsulatedFields) = encapsulated.content else {
            throw ProfileError(.malformedCMS, "the SignedData has no encapContentInfo SEQUENCE after its digest algorithms")
        }
        let (content, chunks) = try Self.encapsulatedContent(encapsulatedFields)

        var certificates: [[UInt8]] = []
        var next = items.next()
        if let node = next, node.identifier == Self.tag0 {
            guard case .constructed(let choices) = node.content else {
                throw ProfileError(.malformedCMS, "the SignedData certificates [0] field is not constructed")
            }
            // Other CertificateChoices (attribute certificates, [0]…[3]) are not X.509 certificates.
            for choice in choices where choice.identifier == .sequence {
                certificates.append(Array(choice.encodedBytes))
            }
            next = items.next()
        }
        if let node = next, node.identifier == Self.tag1 {
            next = items.next()
        }
        guard let signerInfos = next, signerInfos.identifier == .set,
              case .constructed(let signers) = signerInfos.content else {
            throw ProfileError(.malformedCMS, "the SignedData has no signerInfos SET")
        }
        guard items.next() == nil else {
            throw ProfileError(.malformedCMS, "the SignedData has elements after its signerInfos")
        }

        self.version = version
        self.digestAlgorithms = digests
        self.content = content
        self.certificates = certificates
        self.signerCount = signers.reduce(0) { count, _ in count + 1 }
        self.usesIndefiniteLengths = Self.containsIndefiniteLength(root)
        self.contentChunkCount = chunks
    }

    // MARK: Encapsulated content

    /// The `eContent` of an `EncapsulatedContentInfo`, its OCTET STRING pieces joined.
    private static func encapsulatedContent(_ fields: ASN1NodeCollection) throws(ProfileError) -> ([UInt8], Int) {
        var iterator = fields.makeIterator()
        guard let typeNode = iterator.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode) else {
            throw ProfileError(.malformedCMS, "the encapContentInfo does not start with a content type")
        }
        guard let explicit = iterator.next() else {
            throw ProfileError(
                .noContent, "the signature is detached: the SignedData carries no content, so there is no profile in it")
        }
        guard type == dataType else {
            throw ProfileError(.noContent, "the signed content is \(name(of: type)), not data (1.2.840.113549.1.7.1)")
        }
        guard explicit.identifier == tag0, case .constructed(let wrapped) = explicit.content else {
            throw ProfileError(.malformedCMS, "the encapContentInfo's content is not wrapped in [0]")
        }
        var inner = wrapped.makeIterator()
        guard let octets = inner.next(), inner.next() == nil, iterator.next() == nil else {
            throw ProfileError(.malformedCMS, "the encapContentInfo's [0] does not hold exactly one OCTET STRING")
        }
        return try joinedOctets(octets)
    }

    /// The bytes of an OCTET STRING, primitive or constructed (BER: a sequence of OCTET STRINGs,
    /// themselves possibly constructed), with the number of primitive pieces.
    private static func joinedOctets(_ node: ASN1Node) throws(ProfileError) -> ([UInt8], Int) {
        var bytes: [UInt8] = []
        var pieces = 0
        // Depth-first, in order; nesting is bounded by the ASN.1 parser's depth limit.
        var pending: [ASN1Node] = [node]
        while let current = pending.popLast() {
            guard current.identifier == .octetString else {
                throw ProfileError(
                    .malformedCMS, "the signed content holds \(describe(current.identifier)) where an OCTET STRING must be")
            }
            switch current.content {
            case .primitive(let piece):
                bytes.append(contentsOf: piece)
                pieces += 1
            case .constructed(let children):
                pending.append(contentsOf: children.reversed())
            }
        }
        return (bytes, pieces)
    }

    // MARK: Helpers

    /// `[0]`: the explicit content wrappers, and the implicit `certificates` set.
    private static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    /// `[1]`: the implicit `crls` set.
    private static let tag1 = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    /// Whether any element of the tree is encoded with an indefinite length (length octet 0x80).
    private static func containsIndefiniteLength(_ root: ASN1Node) -> Bool {
        var pending: [ASN1Node] = [root]
        while let node = pending.popLast() {
            if hasIndefiniteLength(node.encodedBytes) { return true }
            if case .constructed(let children) = node.content { pending.append(contentsOf: children) }
        }
        return false
    }

    private static func hasIndefiniteLength(_ encoded: ArraySlice<UInt8>) -> Bool {
        var index = encoded.startIndex
        guard index < encoded.endIndex else { return false }
        if encoded[index] & 0x1F == 0x1F {
            // Long-form tag: base-128 digits, the last without the high bit.
            index += 1
            while index < encoded.endIndex, encoded[index] & 0x80 != 0 { index += 1 }
        }
        index += 1
        return index < encoded.endIndex && encoded[index] == 0x80
    }

    private static func translate(_ error: ASN1Error) -> ProfileError {
        switch error.code {
        case .truncatedASN1Field:
            return ProfileError(.truncated, "the data ends inside an ASN.1 element: the file is cut off")
        default:
            let reason = reason(of: error)
            if reason.hasPrefix("trailing unparsed data") {
                return ProfileError(
                    .malformedASN1, "bytes follow the end of the profile's CMS structure (something was appended to the file)")
            }
            if reason.hasPrefix("excessive stack depth") {
                return ProfileError(.malformedASN1, "the ASN.1 elements are nested more than 50 deep")
            }
            return ProfileError(.malformedASN1, "the data is not valid BER/DER: \(reason)")
        }
    }

    /// The reason text of a swift-asn1 error, without its type name and source location.
    private static func reason(of error: ASN1Error) -> String {
        var text = Substring(error.description)
        if let colon = text.firstRange(of: ": ") { text = text[colon.upperBound...] }
        if let space = text.lastIndex(of: " "), text[text.index(after: space)...].contains(".swift:") {
            text = text[..<space]
        }
        let trimmed = text.trimmingCharacters(in: " ")
        return trimmed.isEmpty ? "\(error.code)" : trimmed.prefix(1).lowercased() + trimmed.dropFirst()
    }

    static func describe(_ identifier: ASN1Identifier) -> String {
        switch identifier {
        case .sequence: "a SEQUENCE"
        case .set: "a SET"
        case .octetString: "an OCTET STRING"
        case .integer: "an INTEGER"
        case .objectIdentifier: "an OBJECT IDENTIFIER"
        default:
            switch identifier.tagClass {
            case .universal: "an element tagged [UNIVERSAL \(identifier.tagNumber)]"
            case .application: "an element tagged [APPLICATION \(identifier.tagNumber)]"
            case .contextSpecific: "an element tagged [\(identifier.tagNumber)]"
            case .private: "an element tagged [PRIVATE \(identifier.tagNumber)]"
            }
        }
    }

    /// Names of the object identifiers a profile's CMS uses, for messages and `profile show`.
    static func name(of oid: ASN1ObjectIdentifier) -> String {
        switch oid.description {
        case "1.3.14.3.2.26": "sha1"
        case "2.16.840.1.101.3.4.2.1": "sha256"
        case "2.16.840.1.101.3.4.2.2": "sha384"
        case "2.16.840.1.101.3.4.2.3": "sha512"
        case "1.2.840.113549.2.5": "md5"
        case "1.2.840.113549.1.7.1": "data"
        case "1.2.840.113549.1.7.2": "signedData"
        case "1.2.840.113549.1.7.3": "envelopedData"
        case "1.2.840.113549.1.7.5": "digestedData"
        case "1.2.840.113549.1.7.6": "encryptedData"
        case "1.2.840.113549.1.9.16.1.2": "authData"
        default: oid.description
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = Substring(self)
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return String(text)
    }
}
