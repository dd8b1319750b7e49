import Foundation
import Reporting

/// What `Verifier` found: one entry per signed unit (bundle or loose Mach-O), innermost first,
/// and every finding. Optional fields are written as `null` (`@ExplicitNull`), never left out,
/// and so are the findings' (`@ExplicitNullFindings`), as `verify --json` has always written them.
/// Its own shape beside `Report`'s: `input` is a path, not `Report.Input`, and each bundle says
/// more of its signature than `Report.Signature` (identifier, architectures, the certificate, intact).
public struct VerificationReport: Codable, Sendable, Equatable {
    /// The JSON shape's version; it is the same number as the inspect/check report's.
    public static let schemaVersion = 2

    public var schemaVersion = VerificationReport.schemaVersion
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
    @ExplicitNull public var identifier: String?
    @ExplicitNull public var teamIdentifier: String?
    /// The cdhash (hex) of the primary CodeDirectory of the first slice.
    @ExplicitNull public var cdhash: String?
    /// The hash types of the CodeDirectories, e.g. `["SHA-1", "SHA-256"]`.
    public var hashTypes: [String]
    /// The architectures of the signed Mach-O.
    public var architectures: [String]
    @ExplicitNull public var certificate: SigningCertificate?
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
}

/// The leaf certificate of a CMS signature.
public struct SigningCertificate: Codable, Sendable, Equatable {
    public var subject: String
    @ExplicitNull public var commonName: String?
    public var notValidAfter: Date

    public init(subject: String, commonName: String?, notValidAfter: Date) {
        self.subject = subject
        self.commonName = commonName
        self.notValidAfter = notValidAfter
    }
}
