import Foundation

/// What `Verifier` (in `Verification`) found: one entry per signed unit (bundle or loose Mach-O),
/// innermost first, and every finding; here, below the verifier, so that `TextRendering` renders it. Optional fields are written as `null` (`@ExplicitNull`), never left out,
/// and so are the findings' (`@ExplicitNullFindings`), as `verify --json` has always written them.
/// Its own shape beside `Report`'s: `input` is a path, not `Report.Input`, and each bundle says
/// more than `Report.Bundle` (identifier, architectures, the certificate's common name, intact); the
/// signature's facts are the same `SignatureFacts`.
public struct VerificationReport: Codable, Sendable, Equatable {
    /// The JSON shape's version: the inspect/check report's (`Report.currentSchemaVersion`), one
    /// number for both shapes.
    public var schemaVersion = Report.currentSchemaVersion
    public var input: String
    /// The date certificates were judged at (`ReportJSON` writes it as ISO 8601).
    public var verifiedAt: Date
    public var bundles: [BundleSignature]
    @ExplicitNullFindings public var findings: [Finding]

    /// Whether no finding is an error: every bundle's signature holds.
    public var isIntact: Bool { !findings.contains { $0.severity == .error } }

    public init(input: String, verifiedAt: Date, bundles: [BundleSignature], findings: [Finding]) {
        self.input = input
        self.verifiedAt = verifiedAt
        self.bundles = bundles
        self.findings = findings
    }
}

/// The signature of one bundle or loose Mach-O (a dylib) as `verify` judged it: its facts, the
/// ones the inspect/check report holds too (`SignatureFacts`), and what only `verify` says (the
/// identifier, the architectures, whether it is intact). JSON keeps `verify`'s own field names:
/// `teamIdentifier`, and the certificate as an object with its common name.
public struct BundleSignature: Sendable, Equatable {
    /// `app`, `framework`, `appex`, `watch`, `appclip`... for a bundle, `dylib` or `executable`
    /// for a loose Mach-O.
    public var kind: SignedCodeKind
    /// The archive path of the bundle folder or the Mach-O file.
    public var path: String
    public var facts: SignatureFacts
    /// The signing identifier of the primary CodeDirectory.
    public var identifier: String?
    /// The architectures of the signed Mach-O.
    public var architectures: [String]
    /// Whether no error finding concerns it.
    public var intact: Bool

    public init(
        kind: SignedCodeKind, path: String, facts: SignatureFacts = .unsigned, identifier: String? = nil,
        architectures: [String] = [], intact: Bool = true
    ) {
        self.kind = kind
        self.path = path
        self.facts = facts
        self.identifier = identifier
        self.architectures = architectures
        self.intact = intact
    }
}

/// `verify --json`'s shape of a bundle (docs/commands.md): the facts flattened beside the
/// verify-only fields, every key present.
extension BundleSignature: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, path, signed, adHoc, identifier, teamIdentifier, cdhash, hashTypes, architectures, certificate, intact
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(SignedCodeKind.self, forKey: .kind)
        path = try container.decode(String.self, forKey: .path)
        facts = SignatureFacts(
            signed: try container.decode(Bool.self, forKey: .signed),
            adHoc: try container.decode(Bool.self, forKey: .adHoc),
            cdhash: try container.decodeIfPresent(String.self, forKey: .cdhash),
            teamId: try container.decodeIfPresent(String.self, forKey: .teamIdentifier),
            hashTypes: try container.decode([String].self, forKey: .hashTypes),
            certificate: try container.decodeIfPresent(SigningCertificate.self, forKey: .certificate))
        identifier = try container.decodeIfPresent(String.self, forKey: .identifier)
        architectures = try container.decode([String].self, forKey: .architectures)
        intact = try container.decode(Bool.self, forKey: .intact)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(path, forKey: .path)
        try container.encode(facts.signed, forKey: .signed)
        try container.encode(facts.adHoc, forKey: .adHoc)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(facts.teamId, forKey: .teamIdentifier)
        try container.encode(facts.cdhash, forKey: .cdhash)
        try container.encode(facts.hashTypes, forKey: .hashTypes)
        try container.encode(architectures, forKey: .architectures)
        try container.encode(facts.certificate, forKey: .certificate)
        try container.encode(intact, forKey: .intact)
    }
}
