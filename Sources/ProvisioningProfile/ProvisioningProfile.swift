import CMS
import FormatSupport
import Foundation
import PropertyList

/// A provisioning profile (`embedded.mobileprovision`, or a `.mobileprovision` file): Apple's
/// signed statement of which app (App ID), team, devices and entitlements a signing identity may
/// be used for, and until when.
///
/// `ProvisioningProfile(bytes:)` parses the CMS container with BER rules (`CMSSignedData`),
/// reads the property list it carries and checks the type of every field it uses. Fields that
/// Apple always writes but the checks do not need are optional, so a hand-made or older profile
/// still reads; `application-identifier` and `ExpirationDate` are required.
public struct ProvisioningProfile: Sendable {
    /// Larger than any real profile (a development profile with 100 devices is about 30 KiB);
    /// bounds the ASN.1 parse, which builds one node per element.
    public static let maximumSize = 2 << 20

    /// How the profile may be distributed, decided by its devices and `get-task-allow`.
    public enum Distribution: String, Sendable, Codable, CaseIterable {
        /// Listed devices, `get-task-allow` true: debuggable builds for the team's devices.
        case development
        /// Listed devices, `get-task-allow` false: release builds for the listed devices.
        case adhoc
        /// `ProvisionsAllDevices`: in-house (Developer Enterprise Program) distribution.
        case enterprise
        /// No devices: for submission to the App Store (and TestFlight).
        case appstore
    }

    /// The CMS container.
    public let signedData: CMSSignedData
    /// The property list the container carries.
    public let plist: PropertyListDictionary

    /// `Name`: the profile's name in the developer portal.
    public let name: String?
    /// `UUID`: the profile's identity; Xcode stores profiles under this name.
    public let uuid: String?
    /// `AppIDName`: the App ID's description (`XC Wildcard` for Xcode's wildcard App ID).
    public let appIDName: String?
    /// `TeamName`.
    public let teamName: String?
    /// `TeamIdentifier`: the team IDs (one in practice).
    public let teamIdentifiers: [String]
    /// `ApplicationIdentifierPrefix`: the App ID prefixes; the team ID, except for legacy App IDs.
    public let applicationIdentifierPrefixes: [String]
    /// `Platform`: e.g. `["iOS"]`, `["iOS", "xrOS", "visionOS"]`, `["OSX"]`; empty when absent
    /// (older iOS profiles).
    public let platforms: [String]
    /// `IsXcodeManaged`: created by Xcode's automatic signing.
    public let isXcodeManaged: Bool?
    /// `CreationDate`.
    public let creationDate: Date?
    /// `ExpirationDate`: after it, devices refuse to launch apps signed with the profile.
    public let expirationDate: Date
    /// `TimeToLive`: the validity in days.
    public let timeToLive: Int?
    /// `Version` of the profile format (1).
    public let version: Int?
    /// `ProvisionedDevices`: the UDIDs of the devices it installs on; nil when the key is absent.
    public let provisionedDevices: [String]?
    /// `ProvisionsAllDevices`: installs on any device (enterprise).
    public let provisionsAllDevices: Bool
    /// `Entitlements`: what apps signed with the profile may claim.
    public let entitlements: PropertyListDictionary
    /// `Entitlements.application-identifier`, split with the declared prefixes.
    public let applicationIdentifier: AppIdentifier
    /// `DeveloperCertificates` that could be read, in order.
    public let developerCertificates: [ProfileCertificate]
    /// One sentence for each `DeveloperCertificates` entry that could not be read.
    public let certificateProblems: [String]
    /// Whether `DER-Encoded-Profile` (a DER copy Apple adds to newer profiles) is present.
    public let hasDEREncodedProfile: Bool

    /// Reads a profile from the bytes of a `.mobileprovision` file; `plistLimits` bound the
    /// property list inside (its clock is the time limit of the input the profile came from).
    public init(bytes: [UInt8], plistLimits: PropertyListLimits = .default) throws(ProfileError) {
        guard bytes.count <= Self.maximumSize else {
            throw ProfileError(
                .tooLarge, "the file is \(bytes.count) bytes, more than the \(Self.maximumSize)-byte limit for a profile")
        }
        try Self.refuseUnsignedForms(bytes)
        let signedData: CMSSignedData
        do {
            signedData = try CMSSignedData(berEncoded: bytes)
        } catch {
            throw ProfileError(error)
        }
        guard !signedData.isDetached else {
            throw ProfileError(
                .noContent, "the signature is detached: the SignedData carries no content, so there is no profile in it")
        }
        guard signedData.contentType == CMSObjectIdentifier.data else {
            throw ProfileError(
                .noContent,
                "the signed content is \(CMSObjectIdentifier.name(of: signedData.contentType)), not data (1.2.840.113549.1.7.1)")
        }
        let root: PropertyListValue
        do {
            root = try PropertyList(bytes: signedData.content, limits: plistLimits).root
        } catch {
            throw ProfileError(.plistInvalid, "the signed content is not a property list (\(error.code): \(error))")
        }
        guard let plist = root.dictionary else {
            throw ProfileError(.plistInvalid, "the signed property list's root is \(root.typeName), not a dictionary")
        }
        let fields = Fields(plist)
        self.signedData = signedData
        self.plist = plist
        name = try fields.string("Name")
        uuid = try fields.string("UUID")
        appIDName = try fields.string("AppIDName")
        teamName = try fields.string("TeamName")
        teamIdentifiers = try fields.strings("TeamIdentifier") ?? []
        applicationIdentifierPrefixes = try fields.strings("ApplicationIdentifierPrefix") ?? []
        platforms = try fields.strings("Platform") ?? []
        isXcodeManaged = try fields.bool("IsXcodeManaged")
        creationDate = try fields.date("CreationDate")
        guard let expiration = try fields.date("ExpirationDate") else {
            throw ProfileError(.fieldInvalid, "the profile has no ExpirationDate")
        }
        expirationDate = expiration
        timeToLive = try fields.integer("TimeToLive")
        version = try fields.integer("Version")
        provisionedDevices = try fields.strings("ProvisionedDevices")
        provisionsAllDevices = try fields.bool("ProvisionsAllDevices") ?? false
        hasDEREncodedProfile = plist["DER-Encoded-Profile"] != nil

        guard let entitlements = try fields.dictionary("Entitlements") else {
            throw ProfileError(.fieldInvalid, "the profile has no Entitlements dictionary")
        }
        self.entitlements = entitlements
        guard let identifierValue = entitlements["application-identifier"] else {
            throw ProfileError(.fieldInvalid, "the profile's Entitlements have no application-identifier")
        }
        guard let identifier = identifierValue.string else {
            throw ProfileError(
                .fieldInvalid, "the profile's application-identifier is \(identifierValue.typeName), not a string")
        }
        let teamEntitlement = entitlements["com.apple.developer.team-identifier"]?.string
        guard let appID = AppIdentifier(
            identifier, declaredPrefixes: applicationIdentifierPrefixes + teamIdentifiers + [teamEntitlement].compactMap { $0 })
        else {
            throw ProfileError(
                .fieldInvalid, "the profile's application-identifier \"\(identifier)\" is not PREFIX.BUNDLE_ID")
        }
        applicationIdentifier = appID

        var certificates: [ProfileCertificate] = []
        var problems: [String] = []
        if let entries = try fields.array("DeveloperCertificates") {
            for (index, entry) in entries.enumerated() {
                guard let der = entry.data else {
                    problems.append("DeveloperCertificates entry \(index + 1) is \(entry.typeName), not data")
                    continue
                }
                do {
                    certificates.append(try ProfileCertificate(derEncoded: der))
                } catch {
                    problems.append("DeveloperCertificates entry \(index + 1) \(CertificateDiagnosis.unreadable(der))")
                }
            }
        }
        developerCertificates = certificates
        certificateProblems = problems
    }

    /// Reads a profile file; a file that cannot be read is `PROFILE_FILE_UNREADABLE` (an I/O
    /// error), one that is not a profile names the file in its error.
    public init(contentsOfFile path: String) throws(ProfileError) {
        self = try Self.read(file: path).profile
    }

    /// Reads a profile file as `init(contentsOfFile:)` does, and returns the bytes it was decoded
    /// from with it: what signing embeds is then the profile that was checked, read once.
    public static func read(file path: String) throws(ProfileError) -> (profile: ProvisioningProfile, bytes: [UInt8]) {
        let contents: [UInt8]?
        do {
            contents = try FileByteSource.contents(ofFile: path, limit: Self.maximumSize)
        } catch {
            throw ProfileError(.fileUnreadable, "cannot be read: \(error.detail)", file: path)
        }
        guard let bytes = contents else {
            throw ProfileError(
                .tooLarge, "the file is more than the \(Self.maximumSize)-byte limit for a profile", file: path)
        }
        do {
            return (try ProvisioningProfile(bytes: bytes), bytes)
        } catch {
            throw error.inFile(path)
        }
    }

    /// Names the two mistakes that are not CMS at all: the bare property list (extracted with
    /// `security cms -D`, or hand-written) and PEM text.
    private static func refuseUnsignedForms(_ bytes: [UInt8]) throws(ProfileError) {
        var start = bytes[...]
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }
        while let first = start.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
            start = start.dropFirst()
        }
        if start.starts(with: Array("<?xml".utf8)) || start.starts(with: Array("<plist".utf8))
            || start.starts(with: Array("<!DOCTYPE".utf8)) || start.starts(with: Array("bplist".utf8)) {
            throw ProfileError(
                .notSignedData,
                "the file is a bare property list, not a signed profile; use the .mobileprovision file "
                    + "the developer portal or Xcode provides")
        }
        if start.starts(with: Array("-----BEGIN".utf8)) {
            throw ProfileError(
                .notSignedData,
                "the file is PEM text, not a DER profile; convert it with "
                    + "`openssl cms -in FILE -inform PEM -outform DER -out profile.mobileprovision`")
        }
    }

    // MARK: Derived facts

    /// The team: `TeamIdentifier[0]`, else the `com.apple.developer.team-identifier` entitlement.
    public var teamIdentifier: String? {
        teamIdentifiers.first ?? entitlements["com.apple.developer.team-identifier"]?.string
    }

    /// `Entitlements.get-task-allow`: whether a debugger may attach (development signing).
    public var getTaskAllow: Bool {
        entitlements["get-task-allow"]?.bool ?? false
    }

    /// Development, ad hoc, enterprise or App Store (docs/formats.md, *Provisioning profiles*).
    public var distribution: Distribution {
        if provisionsAllDevices { return .enterprise }
        if provisionedDevices != nil { return getTaskAllow ? .development : .adhoc }
        return .appstore
    }

    /// Whether the profile is for iOS apps: `Platform` lists `iOS`, or is absent as in profiles
    /// written before Apple added it.
    public var isForIOS: Bool {
        platforms.isEmpty || platforms.contains("iOS")
    }

    /// The CMS signing chain that could be read (Apple's provisioning-profile signing
    /// certificate and its issuers, for a real profile); not verified.
    public var signingCertificates: [ProfileCertificate] {
        signedData.certificates.compactMap { try? ProfileCertificate(derEncoded: $0) }
    }

    /// Whether the profile is past its expiration date at `date`.
    public func isExpired(at date: Date) -> Bool {
        date >= expirationDate
    }
}

/// Reads typed fields from the profile's dictionary: absent is nil, present with the wrong type
/// is `PROFILE_FIELD_INVALID` naming the key.
private struct Fields {
    let plist: PropertyListDictionary

    init(_ plist: PropertyListDictionary) {
        self.plist = plist
    }

    func string(_ key: String) throws(ProfileError) -> String? {
        guard let value = plist[key] else { return nil }
        guard let text = value.string else { throw wrongType(key, value, "a string") }
        return text
    }

    func strings(_ key: String) throws(ProfileError) -> [String]? {
        guard let value = plist[key] else { return nil }
        guard case .array = value, let texts = value.stringArray else { throw wrongType(key, value, "an array of strings") }
        return texts
    }

    func bool(_ key: String) throws(ProfileError) -> Bool? {
        guard let value = plist[key] else { return nil }
        guard let flag = value.bool else { throw wrongType(key, value, "a boolean") }
        return flag
    }

    func integer(_ key: String) throws(ProfileError) -> Int? {
        guard let value = plist[key] else { return nil }
        guard let number = value.int else { throw wrongType(key, value, "an integer") }
        return number
    }

    func date(_ key: String) throws(ProfileError) -> Date? {
        guard let value = plist[key] else { return nil }
        guard let date = value.date else { throw wrongType(key, value, "a date") }
        return Date(timeIntervalSince1970: date.secondsSince1970)
    }

    func array(_ key: String) throws(ProfileError) -> [PropertyListValue]? {
        guard let value = plist[key] else { return nil }
        guard let items = value.array else { throw wrongType(key, value, "an array") }
        return items
    }

    func dictionary(_ key: String) throws(ProfileError) -> PropertyListDictionary? {
        guard let value = plist[key] else { return nil }
        guard let dictionary = value.dictionary else { throw wrongType(key, value, "a dictionary") }
        return dictionary
    }

    private func wrongType(_ key: String, _ value: PropertyListValue, _ expected: String) -> ProfileError {
        let article = value.typeName.first.map { "aeiou".contains($0) } ?? false ? "an" : "a"
        return ProfileError(.fieldInvalid, "the profile's \(key) is \(article) \(value.typeName), not \(expected)")
    }
}
