import FormatSupport
import Foundation
import PropertyList
import SwiftASN1

/// A CodeDirectory's hash as Apple's CDHashes2 attribute carries it: the algorithm and the full
/// digest of the CodeDirectory blob.
public struct CMSCodeDirectoryHash: Sendable, Equatable {
    public let algorithmIdentifier: ASN1ObjectIdentifier
    public let digest: [UInt8]

    /// The algorithm, when it is one this module computes.
    public var algorithm: CMSDigestAlgorithm? { CMSDigestAlgorithm(oid: algorithmIdentifier) }

    public init(algorithm: CMSDigestAlgorithm, digest: [UInt8]) {
        self.algorithmIdentifier = algorithm.oid
        self.digest = digest
    }

    init(algorithmIdentifier: ASN1ObjectIdentifier, digest: [UInt8]) {
        self.algorithmIdentifier = algorithmIdentifier
        self.digest = digest
    }

    /// The form the CDHashes plist lists: the digest truncated to 20 bytes (a "cdhash").
    public var truncated: [UInt8] { Array(digest.prefix(20)) }
}

/// The signed attributes of a `SignerInfo`, kept as the exact DER the signature covers and read
/// by type: the three RFC 5652 ones and Apple's two code-signing ones.
public struct CMSSignedAttributes: Sendable {
    /// One attribute: its type and the DER of each value in its SET.
    public struct Attribute: Sendable, Equatable {
        public let type: ASN1ObjectIdentifier
        public let values: [[UInt8]]
    }

    /// Every attribute, in encoded order.
    public let attributes: [Attribute]
    /// What the signature covers: the attributes' DER with the `[0] IMPLICIT` tag replaced by
    /// `SET` (0x31), RFC 5652 §5.4.
    public let derEncoded: [UInt8]
    /// `contentType`: must equal the SignedData's `eContentType`.
    public let contentType: ASN1ObjectIdentifier?
    /// `messageDigest`: the digest of the content.
    public let messageDigest: [UInt8]?
    /// `signingTime` (UTCTime or GeneralizedTime).
    public let signingTime: Date?
    /// Apple's CDHashes (1.2.840.113635.100.9.1): the plist's `cdhashes`, each a CodeDirectory's
    /// hash truncated to 20 bytes, in CodeDirectory order.
    public let cdHashes: [[UInt8]]?
    /// Apple's CDHashes2 (1.2.840.113635.100.9.2): one full hash per CodeDirectory.
    public let cdHashes2: [CMSCodeDirectoryHash]?

    /// The attribute of a type (types are unique: a repeated one is refused when parsing).
    public subscript(type: ASN1ObjectIdentifier) -> Attribute? {
        attributes.first { $0.type == type }
    }

    /// Parses the `[0]` signed attributes of the `position`-th SignerInfo.
    init(node: ASN1Node, position: Int) throws(CMSError) {
        func invalid(_ what: String) -> CMSError {
            CMSError(.attributeInvalid, "SignerInfo \(position): \(what)")
        }
        guard case .constructed(let children) = node.content else {
            throw invalid("its signed attributes [0] are not constructed")
        }
        var attributes: [Attribute] = []
        var seen = Set<ASN1ObjectIdentifier>()
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { coder in
            for child in children { coder.serialize(child) }
        }
        for child in children {
            guard child.identifier == .sequence, case .constructed(let parts) = child.content else {
                throw invalid("a signed attribute is \(BERElement.describe(child.identifier)), not a SEQUENCE")
            }
            var iterator = parts.makeIterator()
            guard let typeNode = iterator.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode),
                  let valuesNode = iterator.next(), valuesNode.identifier == .set,
                  case .constructed(let valueNodes) = valuesNode.content, iterator.next() == nil else {
                throw invalid("a signed attribute is not SEQUENCE { type OBJECT IDENTIFIER, values SET }")
            }
            guard seen.insert(type).inserted else {
                throw invalid("the signed attribute \(CMSObjectIdentifier.name(of: type)) appears more than once")
            }
            attributes.append(Attribute(type: type, values: valueNodes.map { Array($0.encodedBytes) }))
        }
        self.attributes = attributes
        self.derEncoded = serializer.serializedBytes

        func single(_ type: ASN1ObjectIdentifier) throws(CMSError) -> ASN1Node? {
            guard let attribute = attributes.first(where: { $0.type == type }) else { return nil }
            guard attribute.values.count == 1, let value = attribute.values.first, let node = try? BER.parse(value) else {
                throw invalid(
                    "the signed attribute \(CMSObjectIdentifier.name(of: type)) has \(attribute.values.count) values, not 1")
            }
            return node
        }
        if let node = try single(CMSObjectIdentifier.contentType) {
            guard let type = try? ASN1ObjectIdentifier(berEncoded: node) else {
                throw invalid("the contentType attribute is not an OBJECT IDENTIFIER")
            }
            contentType = type
        } else {
            contentType = nil
        }
        if let node = try single(CMSObjectIdentifier.messageDigest) {
            guard node.identifier == .octetString, case .primitive(let digest) = node.content else {
                throw invalid("the messageDigest attribute is not a primitive OCTET STRING")
            }
            messageDigest = Array(digest)
        } else {
            messageDigest = nil
        }
        if let node = try single(CMSObjectIdentifier.signingTime) {
            guard let date = Self.date(node) else {
                throw invalid("the signingTime attribute is not a UTCTime or GeneralizedTime")
            }
            signingTime = date
        } else {
            signingTime = nil
        }
        if let node = try single(CMSObjectIdentifier.appleCDHashes) {
            guard node.identifier == .octetString, case .primitive(let plist) = node.content,
                  let hashes = Self.cdHashes(plist: Array(plist)) else {
                throw invalid("the CDHashes attribute is not an OCTET STRING holding a plist {cdhashes: [data…]}")
            }
            cdHashes = hashes
        } else {
            cdHashes = nil
        }
        if let attribute = attributes.first(where: { $0.type == CMSObjectIdentifier.appleCDHashes2 }) {
            var hashes: [CMSCodeDirectoryHash] = []
            for value in attribute.values {
                guard let hash = Self.codeDirectoryHash(value) else {
                    throw invalid("a CDHashes2 value is not SEQUENCE { hashAlgorithm OBJECT IDENTIFIER, digest OCTET STRING }")
                }
                hashes.append(hash)
            }
            cdHashes2 = hashes
        } else {
            cdHashes2 = nil
        }
    }

    /// A UTCTime or GeneralizedTime as a date (UTC).
    private static func date(_ node: ASN1Node) -> Date? {
        if node.identifier == .utcTime, let time = try? UTCTime(berEncoded: node) {
            return UTCFields(year: time.year, month: time.month, day: time.day, hours: time.hours,
                             minutes: time.minutes, seconds: time.seconds).date
        }
        if node.identifier == .generalizedTime, let time = try? GeneralizedTime(berEncoded: node) {
            let whole = UTCFields(year: time.year, month: time.month, day: time.day, hours: time.hours,
                                  minutes: time.minutes, seconds: time.seconds).date
            return whole.addingTimeInterval(time.fractionalSeconds)
        }
        return nil
    }

    /// The `cdhashes` array of the CDHashes plist, or nil when it is not `{cdhashes: [data…]}`.
    static func cdHashes(plist: [UInt8]) -> [[UInt8]]? {
        guard let root = try? PropertyList(bytes: plist).root, let entries = root["cdhashes"]?.array else { return nil }
        var hashes: [[UInt8]] = []
        for entry in entries {
            guard let hash = entry.data else { return nil }
            hashes.append(hash)
        }
        return hashes
    }

    private static func codeDirectoryHash(_ value: [UInt8]) -> CMSCodeDirectoryHash? {
        guard let node = try? BER.parse(value), node.identifier == .sequence,
              case .constructed(let parts) = node.content else { return nil }
        var iterator = parts.makeIterator()
        guard let typeNode = iterator.next(), let type = try? ASN1ObjectIdentifier(berEncoded: typeNode),
              let digestNode = iterator.next(), digestNode.identifier == .octetString,
              case .primitive(let digest) = digestNode.content, iterator.next() == nil else { return nil }
        return CMSCodeDirectoryHash(algorithmIdentifier: type, digest: Array(digest))
    }
}

/// A moment's UTC calendar fields, to the second: what ASN.1 times and messages show.
struct UTCFields {
    let year: Int
    let month: Int
    let day: Int
    let hours: Int
    let minutes: Int
    let seconds: Int

    init(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
    }

    /// The fields of `date`, its fraction of a second dropped.
    init(_ date: Date) {
        let total = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        let rest = Int(total - days * 86_400)
        self.init(year: Int(year), month: Int(month), day: Int(day),
                  hours: rest / 3_600, minutes: rest / 60 % 60, seconds: rest % 60)
    }

    var date: Date {
        let days = CivilDate.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        return Date(timeIntervalSince1970: Double(days) * 86_400 + Double(hours * 3_600 + minutes * 60 + seconds))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    var iso8601: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(hours)):\(two(minutes)):\(two(seconds))Z"
    }
}
