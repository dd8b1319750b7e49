import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import Reporting
import Zip

/// `ipawrap profile show --json`: a decoded profile, field for field, and its findings. Dates are
/// `Date`s (`ReportJSON` writes ISO 8601 in UTC); absent fields are `null` (`@ExplicitNull`),
/// never left out.
public struct ProfileSummary: Encodable, Sendable, Equatable {
    public var file: String
    @ExplicitNull public var name: String?
    @ExplicitNull public var uuid: String?
    @ExplicitNull public var appIdName: String?
    /// `application-identifier`, e.g. `ABCDE12345.com.example.app`.
    public var appIdentifier: String
    public var appIdKind: AppIdentifier.Kind
    public var wildcard: Bool
    public var applicationIdentifierPrefix: [String]
    @ExplicitNull public var teamId: String?
    @ExplicitNull public var teamName: String?
    public var platforms: [String]
    @ExplicitNull public var creationDate: Date?
    public var expirationDate: Date
    public var expired: Bool
    @ExplicitNull public var timeToLive: Int?
    public var kind: ProvisioningProfile.Distribution
    public var deviceCount: Int
    public var devices: [String]
    public var provisionsAllDevices: Bool
    @ExplicitNull public var xcodeManaged: Bool?
    public var entitlements: JSONValue
    public var certificates: [Certificate]
    public var container: Container
    public var findings: [Finding]

    public struct Certificate: Encodable, Sendable, Equatable {
        /// The whole subject, RFC 4514 style.
        public var subject: String
        @ExplicitNull public var commonName: String?
        @ExplicitNull public var teamId: String?
        @ExplicitNull public var organization: String?
        @ExplicitNull public var issuer: String?
        public var serialNumber: String
        public var notValidBefore: Date
        public var notValidAfter: Date
        public var expired: Bool
        public var sha1: String
    }

    /// The CMS container. The signature is not verified (that needs Apple's root certificate).
    public struct Container: Encodable, Sendable, Equatable {
        /// `DER`, or `BER` when indefinite lengths are used.
        public var encoding: String
        public var digestAlgorithms: [String]
        public var signerCount: Int
        /// Common names of the CMS signing chain.
        public var signedBy: [String]
        /// How many OCTET STRING pieces the content was carried in.
        public var contentChunks: Int
    }

    public init(_ profile: ProvisioningProfile, file: String, now: Date, allowWildcard: Bool = false) {
        self.file = file
        name = profile.name
        uuid = profile.uuid
        appIdName = profile.appIDName
        appIdentifier = profile.applicationIdentifier.rawValue
        appIdKind = profile.applicationIdentifier.kind
        wildcard = profile.applicationIdentifier.isWildcard
        applicationIdentifierPrefix = profile.applicationIdentifierPrefixes
        teamId = profile.teamIdentifier
        teamName = profile.teamName
        platforms = profile.platforms
        creationDate = profile.creationDate
        expirationDate = profile.expirationDate
        expired = profile.isExpired(at: now)
        timeToLive = profile.timeToLive
        kind = profile.distribution
        devices = profile.provisionedDevices ?? []
        deviceCount = devices.count
        provisionsAllDevices = profile.provisionsAllDevices
        xcodeManaged = profile.isXcodeManaged
        entitlements = JSONValue(.dictionary(profile.entitlements))
        certificates = profile.developerCertificates.map { certificate in
            Certificate(
                subject: certificate.subject, commonName: certificate.commonName, teamId: certificate.teamIdentifier,
                organization: certificate.organization, issuer: certificate.issuerCommonName,
                serialNumber: certificate.serialNumber, notValidBefore: certificate.notValidBefore,
                notValidAfter: certificate.notValidAfter, expired: certificate.isExpired(at: now),
                sha1: certificate.sha1Fingerprint)
        }
        container = Container(
            encoding: profile.signedData.usesIndefiniteLengths ? "BER" : "DER",
            digestAlgorithms: profile.signedData.digestAlgorithms, signerCount: profile.signedData.signerCount,
            signedBy: profile.signingCertificates.map { $0.commonName ?? $0.subject },
            contentChunks: profile.signedData.contentChunkCount)
        // `profile show` reads a file on disk.
        findings = ProfileChecks.profileFindings(profile, file: .file(file), bundle: nil, now: now, allowWildcard: allowWildcard)
        // Every finding of one profile has its file as path, so this is severity, then code.
        findings.sort(by: Finding.reportOrder)
    }
}

/// A property-list value as JSON: dates as ISO 8601 strings, data as base64, integers beyond
/// 64 bits as decimal strings.
public indirect enum JSONValue: Encodable, Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(_ value: PropertyListValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = number.int64.map(JSONValue.integer) ?? .string(number.description)
        case .real(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .date(let date): self = .string(date.iso8601)
        case .data(let bytes): self = .string(Data(bytes).base64EncodedString())
        case .uid(let number): self = .string(String(number))
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .dictionary(let dictionary):
            var object: [String: JSONValue] = [:]
            for (key, item) in dictionary { object[key] = JSONValue(item) }
            self = .object(object)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .number(let number):
            // JSON has no NaN or infinity.
            if number.isFinite { try container.encode(number) } else { try container.encode(String(number)) }
        case .bool(let flag): try container.encode(flag)
        case .array(let items): try container.encode(items)
        case .object(let object): try container.encode(object)
        }
    }
}
