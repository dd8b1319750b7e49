import Foundation

/// What `Verifier` found: one entry per signed unit (bundle or loose Mach-O), innermost first,
/// and every finding. Optional fields are written as `null`, never left out.
public struct VerificationReport: Codable, Sendable, Equatable {
    /// The JSON shape's version; it is the same number as the inspect/check report's.
    public static let schemaVersion = 2

    public var schemaVersion = VerificationReport.schemaVersion
    public var input: String
    /// The date certificates were judged at, ISO 8601.
    public var verifiedAt: String
    public var bundles: [BundleSignature]
    public var findings: [SignatureFinding]

    /// Whether no finding is an error: every bundle's signature holds.
    public var isIntact: Bool { !findings.contains { $0.severity == .error } }

    public init(input: String, verifiedAt: String, bundles: [BundleSignature], findings: [SignatureFinding]) {
        self.input = input
        self.verifiedAt = verifiedAt
        self.bundles = bundles
        self.findings = findings
    }
}

/// The signature summary of one bundle or loose Mach-O (a dylib).
public struct BundleSignature: Codable, Sendable, Equatable {
    /// `app`, `framework`, `appex`, `watch`, `appclip` or `dylib`.
    public var kind: String
    /// The archive path of the bundle folder or the Mach-O file.
    public var path: String
    /// Whether it carries a code signature at all.
    public var signed: Bool
    /// Signed without an identity.
    public var adHoc: Bool
    /// The signing identifier of the primary CodeDirectory.
    public var identifier: String?
    public var teamIdentifier: String?
    /// The cdhash (hex) of the primary CodeDirectory of the first slice.
    public var cdhash: String?
    /// The hash types of the CodeDirectories, e.g. `["SHA-1", "SHA-256"]`.
    public var hashTypes: [String]
    /// The architectures of the signed Mach-O.
    public var architectures: [String]
    public var certificate: SigningCertificate?
    /// Whether no error finding concerns it.
    public var intact: Bool

    public init(
        kind: String, path: String, signed: Bool, adHoc: Bool, identifier: String?, teamIdentifier: String?, cdhash: String?,
        hashTypes: [String], architectures: [String], certificate: SigningCertificate?, intact: Bool
    ) {
        self.kind = kind
        self.path = path
        self.signed = signed
        self.adHoc = adHoc
        self.identifier = identifier
        self.teamIdentifier = teamIdentifier
        self.cdhash = cdhash
        self.hashTypes = hashTypes
        self.architectures = architectures
        self.certificate = certificate
        self.intact = intact
    }

    enum CodingKeys: String, CodingKey {
        case kind, path, signed, adHoc, identifier, teamIdentifier, cdhash, hashTypes, architectures, certificate, intact
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(path, forKey: .path)
        try container.encode(signed, forKey: .signed)
        try container.encode(adHoc, forKey: .adHoc)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(teamIdentifier, forKey: .teamIdentifier)
        try container.encode(cdhash, forKey: .cdhash)
        try container.encode(hashTypes, forKey: .hashTypes)
        try container.encode(architectures, forKey: .architectures)
        try container.encode(certificate, forKey: .certificate)
        try container.encode(intact, forKey: .intact)
    }
}

/// The leaf certificate of a CMS signature.
public struct SigningCertificate: Codable, Sendable, Equatable {
    public var subject: String
    public var commonName: String?
    /// ISO 8601.
    public var notValidAfter: String

    public init(subject: String, commonName: String?, notValidAfter: String) {
        self.subject = subject
        self.commonName = commonName
        self.notValidAfter = notValidAfter
    }

    enum CodingKeys: String, CodingKey { case subject, commonName, notValidAfter }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subject, forKey: .subject)
        try container.encode(commonName, forKey: .commonName)
        try container.encode(notValidAfter, forKey: .notValidAfter)
    }
}
