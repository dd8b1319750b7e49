import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import MachO
import PropertyList
import ProvisioningProfile
import Reporting

/// `ipawrap profile show --json`: a decoded profile, field for field, and its findings. Dates are
/// ISO 8601 UTC; absent fields are `null`, never left out.
public struct ProfileSummary: Encodable, Sendable, Equatable {
    public var file: String
    public var name: String?
    public var uuid: String?
    public var appIdName: String?
    /// `application-identifier`, e.g. `ABCDE12345.com.example.app`.
    public var appIdentifier: String
    /// `explicit`, `partialWildcard` or `fullWildcard`.
    public var appIdKind: String
    public var wildcard: Bool
    public var applicationIdentifierPrefix: [String]
    public var teamId: String?
    public var teamName: String?
    public var platforms: [String]
    public var creationDate: String?
    public var expirationDate: String
    public var expired: Bool
    public var timeToLive: Int?
    /// `development`, `adhoc`, `enterprise` or `appstore`.
    public var kind: String
    public var deviceCount: Int
    public var devices: [String]
    public var provisionsAllDevices: Bool
    public var xcodeManaged: Bool?
    public var entitlements: JSONValue
    public var certificates: [Certificate]
    public var container: Container
    public var findings: [Finding]

    public struct Certificate: Encodable, Sendable, Equatable {
        /// The whole subject, RFC 4514 style.
        public var subject: String
        public var commonName: String?
        public var teamId: String?
        public var organization: String?
        public var issuer: String?
        public var serialNumber: String
        public var notValidBefore: String
        public var notValidAfter: String
        public var expired: Bool
        public var sha1: String

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(subject, forKey: .subject)
            try container.encode(commonName, forKey: .commonName)
            try container.encode(teamId, forKey: .teamId)
            try container.encode(organization, forKey: .organization)
            try container.encode(issuer, forKey: .issuer)
            try container.encode(serialNumber, forKey: .serialNumber)
            try container.encode(notValidBefore, forKey: .notValidBefore)
            try container.encode(notValidAfter, forKey: .notValidAfter)
            try container.encode(expired, forKey: .expired)
            try container.encode(sha1, forKey: .sha1)
        }

        enum CodingKeys: String, CodingKey {
            case subject, commonName, teamId, organization, issuer, serialNumber, notValidBefore, notValidAfter, expired, sha1
        }
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
        let iso = ProfileChecks.iso
        self.file = file
        name = profile.name
        uuid = profile.uuid
        appIdName = profile.appIDName
        appIdentifier = profile.applicationIdentifier.rawValue
        appIdKind = profile.applicationIdentifier.kind.rawValue
        wildcard = profile.applicationIdentifier.isWildcard
        applicationIdentifierPrefix = profile.applicationIdentifierPrefixes
        teamId = profile.teamIdentifier
        teamName = profile.teamName
        platforms = profile.platforms
        creationDate = profile.creationDate.map(iso)
        expirationDate = iso(profile.expirationDate)
        expired = profile.isExpired(at: now)
        timeToLive = profile.timeToLive
        kind = profile.distribution.rawValue
        devices = profile.provisionedDevices ?? []
        deviceCount = devices.count
        provisionsAllDevices = profile.provisionsAllDevices
        xcodeManaged = profile.isXcodeManaged
        entitlements = JSONValue(.dictionary(profile.entitlements))
        certificates = profile.developerCertificates.map { certificate in
            Certificate(
                subject: certificate.subject, commonName: certificate.commonName, teamId: certificate.teamIdentifier,
                organization: certificate.organization, issuer: certificate.issuerCommonName,
                serialNumber: certificate.serialNumber, notValidBefore: iso(certificate.notValidBefore),
                notValidAfter: iso(certificate.notValidAfter), expired: certificate.isExpired(at: now),
                sha1: certificate.sha1Fingerprint)
        }
        container = Container(
            encoding: profile.signedData.usesIndefiniteLengths ? "BER" : "DER",
            digestAlgorithms: profile.signedData.digestAlgorithms, signerCount: profile.signedData.signerCount,
            signedBy: profile.signingCertificates.map { $0.commonName ?? $0.subject },
            contentChunks: profile.signedData.contentChunkCount)
        findings = ProfileChecks.profileFindings(profile, file: file, bundle: nil, now: now, allowWildcard: allowWildcard)
        // Every finding of one profile has its file as path, so this is severity, then code.
        findings.sort(by: Finding.reportOrder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(name, forKey: .name)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(appIdName, forKey: .appIdName)
        try container.encode(appIdentifier, forKey: .appIdentifier)
        try container.encode(appIdKind, forKey: .appIdKind)
        try container.encode(wildcard, forKey: .wildcard)
        try container.encode(applicationIdentifierPrefix, forKey: .applicationIdentifierPrefix)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(teamName, forKey: .teamName)
        try container.encode(platforms, forKey: .platforms)
        try container.encode(creationDate, forKey: .creationDate)
        try container.encode(expirationDate, forKey: .expirationDate)
        try container.encode(expired, forKey: .expired)
        try container.encode(timeToLive, forKey: .timeToLive)
        try container.encode(kind, forKey: .kind)
        try container.encode(deviceCount, forKey: .deviceCount)
        try container.encode(devices, forKey: .devices)
        try container.encode(provisionsAllDevices, forKey: .provisionsAllDevices)
        try container.encode(xcodeManaged, forKey: .xcodeManaged)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(certificates, forKey: .certificates)
        try container.encode(self.container, forKey: .container)
        try container.encode(findings, forKey: .findings)
    }

    enum CodingKeys: String, CodingKey {
        case file, name, uuid, appIdName, appIdentifier, appIdKind, wildcard, applicationIdentifierPrefix, teamId
        case teamName, platforms, creationDate, expirationDate, expired, timeToLive, kind, deviceCount, devices
        case provisionsAllDevices, xcodeManaged, entitlements, certificates, container, findings
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
