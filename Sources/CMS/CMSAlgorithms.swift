import Crypto
import Foundation
import SwiftASN1
import X509

/// A digest algorithm CMS names in `digestAlgorithms`, a `SignerInfo` and Apple's CDHashes2.
public enum CMSDigestAlgorithm: String, Sendable, CaseIterable {
    case sha1
    case sha256
    case sha384
    case sha512

    public var oid: ASN1ObjectIdentifier {
        switch self {
        case .sha1: [1, 3, 14, 3, 2, 26]
        case .sha256: [2, 16, 840, 1, 101, 3, 4, 2, 1]
        case .sha384: [2, 16, 840, 1, 101, 3, 4, 2, 2]
        case .sha512: [2, 16, 840, 1, 101, 3, 4, 2, 3]
        }
    }

    public init?(oid: ASN1ObjectIdentifier) {
        guard let algorithm = Self.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = algorithm
    }

    /// The digest's length in bytes.
    public var length: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    public func digest(_ bytes: some DataProtocol) -> [UInt8] {
        switch self {
        case .sha1: Array(Insecure.SHA1.hash(data: bytes))
        case .sha256: Array(SHA256.hash(data: bytes))
        case .sha384: Array(SHA384.hash(data: bytes))
        case .sha512: Array(SHA512.hash(data: bytes))
        }
    }
}

/// Object identifiers of CMS content types, attributes and signature algorithms, with the names
/// messages and reports use.
public enum CMSObjectIdentifier {
    /// `id-data`, 1.2.840.113549.1.7.1: opaque octets (a profile's plist, a CodeDirectory).
    public static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    /// `id-signedData`, 1.2.840.113549.1.7.2.
    public static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    /// `id-contentType` (PKCS #9), 1.2.840.113549.1.9.3.
    public static let contentType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 3]
    /// `id-messageDigest`, 1.2.840.113549.1.9.4.
    public static let messageDigest: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 4]
    /// `id-signingTime`, 1.2.840.113549.1.9.5.
    public static let signingTime: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 5]
    /// Apple's CDHashes, 1.2.840.113635.100.9.1: an XML plist `{cdhashes: [data…]}` of every
    /// CodeDirectory's hash truncated to 20 bytes.
    public static let appleCDHashes: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 9, 1]
    /// Apple's CDHashes2, 1.2.840.113635.100.9.2: one `SEQUENCE { hashAlgorithm, digest }` value
    /// per CodeDirectory.
    public static let appleCDHashes2: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 9, 2]
    /// `rsaEncryption`, 1.2.840.113549.1.1.1: the signature algorithm codesign and OpenSSL write
    /// for RSA signers (the digest comes from the SignerInfo's digestAlgorithm).
    public static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    /// `id-ecPublicKey`, 1.2.840.10045.2.1, which some signers write as the signature algorithm.
    public static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10_045, 2, 1]

    /// A readable name for an OID of this module (`sha256`, `signedData`…), else its dotted form.
    public static func name(of oid: ASN1ObjectIdentifier) -> String {
        if let digest = CMSDigestAlgorithm(oid: oid) { return digest.rawValue }
        switch oid.description {
        case "1.2.840.113549.2.5": return "md5"
        case "1.2.840.113549.1.7.1": return "data"
        case "1.2.840.113549.1.7.2": return "signedData"
        case "1.2.840.113549.1.7.3": return "envelopedData"
        case "1.2.840.113549.1.7.5": return "digestedData"
        case "1.2.840.113549.1.7.6": return "encryptedData"
        case "1.2.840.113549.1.9.16.1.2": return "authData"
        case "1.2.840.113549.1.9.3": return "contentType"
        case "1.2.840.113549.1.9.4": return "messageDigest"
        case "1.2.840.113549.1.9.5": return "signingTime"
        case "1.2.840.113635.100.9.1": return "CDHashes"
        case "1.2.840.113635.100.9.2": return "CDHashes2"
        case "1.2.840.113549.1.1.1": return "rsaEncryption"
        case "1.2.840.113549.1.1.5": return "sha1WithRSAEncryption"
        case "1.2.840.113549.1.1.11": return "sha256WithRSAEncryption"
        case "1.2.840.113549.1.1.12": return "sha384WithRSAEncryption"
        case "1.2.840.113549.1.1.13": return "sha512WithRSAEncryption"
        case "1.2.840.10045.2.1": return "ecPublicKey"
        case "1.2.840.10045.4.3.2": return "ecdsa-with-SHA256"
        case "1.2.840.10045.4.3.3": return "ecdsa-with-SHA384"
        case "1.2.840.10045.4.3.4": return "ecdsa-with-SHA512"
        default: return oid.description
        }
    }

    /// The X.509 signature algorithm a SignerInfo's pair means: `rsaEncryption` or
    /// `id-ecPublicKey` take the hash from `digest`; the combined OIDs name their own. Nil for an
    /// algorithm swift-certificates does not verify.
    static func signatureAlgorithm(
        _ oid: ASN1ObjectIdentifier, digest: CMSDigestAlgorithm
    ) -> Certificate.SignatureAlgorithm? {
        switch oid {
        case rsaEncryption:
            switch digest {
            case .sha1: return .sha1WithRSAEncryption
            case .sha256: return .sha256WithRSAEncryption
            case .sha384: return .sha384WithRSAEncryption
            case .sha512: return .sha512WithRSAEncryption
            }
        case ecPublicKey:
            switch digest {
            case .sha1: return nil
            case .sha256: return .ecdsaWithSHA256
            case .sha384: return .ecdsaWithSHA384
            case .sha512: return .ecdsaWithSHA512
            }
        default:
            let known: [Certificate.SignatureAlgorithm] = [
                .sha1WithRSAEncryption, .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
                .ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512,
            ]
            return known.first { algorithmOID(of: $0) == oid }
        }
    }

    /// The OID of an X.509 signature algorithm (swift-certificates keeps it internal).
    static func algorithmOID(of algorithm: Certificate.SignatureAlgorithm) -> ASN1ObjectIdentifier? {
        switch algorithm {
        case .sha1WithRSAEncryption: [1, 2, 840, 113_549, 1, 1, 5]
        case .sha256WithRSAEncryption: [1, 2, 840, 113_549, 1, 1, 11]
        case .sha384WithRSAEncryption: [1, 2, 840, 113_549, 1, 1, 12]
        case .sha512WithRSAEncryption: [1, 2, 840, 113_549, 1, 1, 13]
        case .ecdsaWithSHA256: [1, 2, 840, 10_045, 4, 3, 2]
        case .ecdsaWithSHA384: [1, 2, 840, 10_045, 4, 3, 3]
        case .ecdsaWithSHA512: [1, 2, 840, 10_045, 4, 3, 4]
        default: nil
        }
    }
}
