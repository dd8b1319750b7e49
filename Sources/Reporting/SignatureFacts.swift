import AppBundle
import Foundation

/// What a code signature says about itself, the facts both report shapes hold: `inspect`'s
/// `Report.Bundle.signature` (read without hashing, `SignatureSummary`; for `sign` and `wrap
/// --sign`, from what was just signed) and `verify`'s `BundleSignature` (judged in full). One
/// value, written in each report's own field names: the inspect/check report (this type's
/// `Codable`) as `teamId`, `certificateSubject` and `certificateExpiry`; `verify`'s
/// (`BundleSignature`) as `teamIdentifier` and a `certificate` object (docs/commands.md).
public struct SignatureFacts: Sendable, Equatable {
    /// Whether it carries a code signature at all.
    public var signed: Bool
    /// Signed without an identity.
    public var adHoc: Bool
    /// The cdhash (hex) of the primary CodeDirectory of the first signed slice.
    public var cdhash: String?
    /// The team identifier of the primary CodeDirectory.
    public var teamId: String?
    /// The hash types of the CodeDirectories, e.g. `["SHA-1", "SHA-256"]`.
    public var hashTypes: [String]
    /// The leaf certificate of the CMS signature, when there is one and it was read.
    public var certificate: SigningCertificate?

    public init(
        signed: Bool = false, adHoc: Bool = false, cdhash: String? = nil, teamId: String? = nil, hashTypes: [String] = [],
        certificate: SigningCertificate? = nil
    ) {
        self.signed = signed
        self.adHoc = adHoc
        self.cdhash = cdhash
        self.teamId = teamId
        self.hashTypes = hashTypes
        self.certificate = certificate
    }

    /// No signature: what a bundle is until one is read.
    public static let unsigned = SignatureFacts()
}

/// The leaf certificate of a CMS signature.
public struct SigningCertificate: Codable, Sendable, Equatable {
    public var subject: String
    /// Its common name; `verify` reports it, the inspect/check report writes only the subject
    /// and expiry (so a signature read back from that JSON has none).
    @ExplicitNull public var commonName: String?
    public var notValidAfter: Date

    public init(subject: String, commonName: String?, notValidAfter: Date) {
        self.subject = subject
        self.commonName = commonName
        self.notValidAfter = notValidAfter
    }
}

/// The inspect/check report's shape (`bundles[].signature`, schema version 2): the certificate
/// flattened into `certificateSubject` and `certificateExpiry`, every key present.
extension SignatureFacts: Codable {
    enum ReportKeys: String, CodingKey {
        case signed, adHoc, cdhash, teamId, hashTypes, certificateSubject, certificateExpiry
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ReportKeys.self)
        signed = try container.decode(Bool.self, forKey: .signed)
        adHoc = try container.decode(Bool.self, forKey: .adHoc)
        cdhash = try container.decodeIfPresent(String.self, forKey: .cdhash)
        teamId = try container.decodeIfPresent(String.self, forKey: .teamId)
        hashTypes = try container.decode([String].self, forKey: .hashTypes)
        let subject = try container.decodeIfPresent(String.self, forKey: .certificateSubject)
        let expiry = try container.decodeIfPresent(Date.self, forKey: .certificateExpiry)
        certificate = subject.flatMap { subject in
            expiry.map { SigningCertificate(subject: subject, commonName: nil, notValidAfter: $0) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ReportKeys.self)
        try container.encode(signed, forKey: .signed)
        try container.encode(adHoc, forKey: .adHoc)
        try container.encode(cdhash, forKey: .cdhash)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(hashTypes, forKey: .hashTypes)
        try container.encode(certificate?.subject, forKey: .certificateSubject)
        try container.encode(certificate?.notValidAfter, forKey: .certificateExpiry)
    }
}

/// What a signed unit of `verify` is: a bundle of the bundle model's kinds, or a loose Mach-O
/// (a dylib, or another executable). JSON writes it as one word: the bundle kind's, `dylib` or
/// `executable`.
public enum SignedCodeKind: Sendable, Equatable {
    case bundle(BundleKind)
    case dylib
    case executable

    /// The word JSON and text write.
    public var name: String {
        switch self {
        case .bundle(let kind): kind.rawValue
        case .dylib: "dylib"
        case .executable: "executable"
        }
    }

    public init?(name: String) {
        switch name {
        case "dylib": self = .dylib
        case "executable": self = .executable
        default:
            guard let kind = BundleKind(rawValue: name) else { return nil }
            self = .bundle(kind)
        }
    }
}

extension SignedCodeKind: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = SignedCodeKind(name: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a kind of signed code: \(name)")
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
