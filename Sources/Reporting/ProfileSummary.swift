import Foundation
import PropertyList
import ProvisioningProfile

/// `ipawrap profile show`: a decoded profile, field for field, and its findings; `--json` writes
/// it, `TextRendering.profile` renders it for people. Dates are `Date`s (`ReportJSON` writes ISO
/// 8601 in UTC); absent fields are `null` (`@ExplicitNull`), never left out.
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

        public init(
            subject: String, commonName: String?, teamId: String?, organization: String?, issuer: String?, serialNumber: String,
            notValidBefore: Date, notValidAfter: Date, expired: Bool, sha1: String
        ) {
            self.subject = subject
            self.commonName = commonName
            self.teamId = teamId
            self.organization = organization
            self.issuer = issuer
            self.serialNumber = serialNumber
            self.notValidBefore = notValidBefore
            self.notValidAfter = notValidAfter
            self.expired = expired
            self.sha1 = sha1
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

        public init(encoding: String, digestAlgorithms: [String], signerCount: Int, signedBy: [String], contentChunks: Int) {
            self.encoding = encoding
            self.digestAlgorithms = digestAlgorithms
            self.signerCount = signerCount
            self.signedBy = signedBy
            self.contentChunks = contentChunks
        }
    }

    /// Every field as given (`wildcard` and `deviceCount` follow from the App ID's kind and the
    /// devices); `Checks` makes one from a decoded profile
    /// (`ProfileSummary(_:file:now:allowWildcard:)`), with its findings.
    public init(
        file: String,
        name: String?,
        uuid: String?,
        appIdName: String?,
        appIdentifier: String,
        appIdKind: AppIdentifier.Kind,
        applicationIdentifierPrefix: [String],
        teamId: String?,
        teamName: String?,
        platforms: [String],
        creationDate: Date?,
        expirationDate: Date,
        expired: Bool,
        timeToLive: Int?,
        kind: ProvisioningProfile.Distribution,
        devices: [String],
        provisionsAllDevices: Bool,
        xcodeManaged: Bool?,
        entitlements: JSONValue,
        certificates: [Certificate],
        container: Container,
        findings: [Finding]
    ) {
        self.file = file
        self.name = name
        self.uuid = uuid
        self.appIdName = appIdName
        self.appIdentifier = appIdentifier
        self.appIdKind = appIdKind
        self.wildcard = appIdKind.isWildcard
        self.applicationIdentifierPrefix = applicationIdentifierPrefix
        self.teamId = teamId
        self.teamName = teamName
        self.platforms = platforms
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.expired = expired
        self.timeToLive = timeToLive
        self.kind = kind
        self.deviceCount = devices.count
        self.devices = devices
        self.provisionsAllDevices = provisionsAllDevices
        self.xcodeManaged = xcodeManaged
        self.entitlements = entitlements
        self.certificates = certificates
        self.container = container
        self.findings = findings
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
