import Foundation
import PropertyList

/// Builds provisioning profiles for tests and for the sample app: the property list Apple's
/// developer portal writes (keys in its order), signed into a CMS `SignedData` by
/// `openssl cms -sign -outform DER -nodetach -nosmimecap -noattr` with the committed test
/// identity in `Tests/Fixtures/profiles/` (`signer.cert.pem`, `signer.key.pem`). Without signed
/// attributes an RSA PKCS #1 v1.5 signature is deterministic, so the same builder always gives
/// the same bytes. `.berIndefinite` adds `-stream`: indefinite lengths and the content split
/// into 4096-byte OCTET STRING chunks.
///
/// `ProfileBuilder.fixture(_:)` returns the committed, pre-signed profiles of `Fixture`, which
/// need no openssl; `signed()` needs openssl (tests skip with `opensslMissing` when it is absent).
public struct ProfileBuilder: Sendable {
    public enum Encoding: Sendable {
        /// Definite lengths, one primitive OCTET STRING: what Apple ships.
        case der
        /// Indefinite lengths and a chunked (constructed) OCTET STRING, as streaming BER encoders write.
        case berIndefinite
    }

    public var name: String
    public var uuid: String
    public var appIDName: String
    public var teamIdentifier: String
    public var teamName: String
    /// `ApplicationIdentifierPrefix`: the team ID, or a legacy App ID prefix.
    public var applicationIdentifierPrefix: String
    /// The App ID after its prefix: a bundle ID, `com.example.*` or `*`.
    public var bundlePattern: String
    /// `Platform`; nil leaves the key out (older profiles).
    public var platforms: [String]? = ["iOS"]
    public var isXcodeManaged = false
    public var creationDate = PropertyListDate(iso8601: "2026-01-01T00:00:00Z") ?? PropertyListDate(secondsSince1970: 0)
    public var expirationDate = PropertyListDate(iso8601: "2036-01-01T00:00:00Z") ?? PropertyListDate(secondsSince1970: 0)
    public var getTaskAllow = true
    /// `ProvisionedDevices`; nil leaves the key out (App Store, enterprise).
    public var devices: [String]? = ProfileBuilder.udids(3)
    public var provisionsAllDevices = false
    /// Entitlements beside `application-identifier`, `keychain-access-groups`, `get-task-allow`
    /// and `com.apple.developer.team-identifier`.
    public var extraEntitlements: PropertyListDictionary = [:]
    /// DER certificates for `DeveloperCertificates`; by default the committed `developer.cer`.
    public var developerCertificates: [[UInt8]] = [ProfileBuilder.certificate("developer.cer")]
    public var encoding: Encoding = .der
    /// Signs these bytes instead of the generated property list (for malformed content).
    public var rawContent: [UInt8]?
    /// Signs without `-nodetach`: a detached signature that carries no content.
    public var detached = false

    /// A development profile for `bundlePattern` (`com.example.app`, `com.example.*`, `*`).
    public init(bundlePattern: String = "com.example.sample", team: String = "ABCDE12345", teamName: String = "Example Corp") {
        self.bundlePattern = bundlePattern
        self.teamIdentifier = team
        self.teamName = teamName
        self.applicationIdentifierPrefix = team
        self.name = "\(bundlePattern == "*" ? "Wildcard" : bundlePattern) Development"
        self.appIDName = bundlePattern == "*" ? "XC Wildcard" : "XC " + bundlePattern.replacingOccurrences(of: ".", with: " ")
        self.uuid = ProfileBuilder.uuid(for: team + "." + bundlePattern)
    }

    /// `PREFIX.bundlePattern`.
    public var applicationIdentifier: String { applicationIdentifierPrefix + "." + bundlePattern }

    // MARK: Content

    /// The profile's property list, keys in the order the developer portal writes them.
    public func propertyList() -> PropertyListDictionary {
        var entitlements: PropertyListDictionary = [
            "application-identifier": .string(applicationIdentifier),
            "keychain-access-groups": [.string(applicationIdentifierPrefix + ".*")],
            "get-task-allow": .bool(getTaskAllow),
            "com.apple.developer.team-identifier": .string(teamIdentifier),
        ]
        for (key, value) in extraEntitlements { entitlements.append(value, forKey: key) }
        var plist: PropertyListDictionary = [
            "AppIDName": .string(appIDName),
            "ApplicationIdentifierPrefix": [.string(applicationIdentifierPrefix)],
            "CreationDate": .date(creationDate),
        ]
        if let platforms { plist.append(.array(platforms.map { .string($0) }), forKey: "Platform") }
        plist.append(.bool(isXcodeManaged), forKey: "IsXcodeManaged")
        plist.append(.array(developerCertificates.map { .data($0) }), forKey: "DeveloperCertificates")
        plist.append(.dictionary(entitlements), forKey: "Entitlements")
        plist.append(.date(expirationDate), forKey: "ExpirationDate")
        plist.append(.string(name), forKey: "Name")
        if let devices { plist.append(.array(devices.map { .string($0) }), forKey: "ProvisionedDevices") }
        if provisionsAllDevices { plist.append(true, forKey: "ProvisionsAllDevices") }
        plist.append([.string(teamIdentifier)], forKey: "TeamIdentifier")
        plist.append(.string(teamName), forKey: "TeamName")
        let days = Int((expirationDate.secondsSince1970 - creationDate.secondsSince1970) / 86_400)
        plist.append(.integer(PropertyListInteger(days)), forKey: "TimeToLive")
        plist.append(.string(uuid), forKey: "UUID")
        plist.append(1, forKey: "Version")
        return plist
    }

    /// The bytes that are signed: `rawContent`, or the property list as Apple-style XML.
    public func contentBytes() throws -> [UInt8] {
        if let rawContent { return rawContent }
        return try PropertyList(root: .dictionary(propertyList()), format: .xml).xmlData()
    }

    // MARK: Signing

    /// Why `signed()` cannot run here, or nil when openssl is on PATH.
    public static let opensslMissing: String? =
        Command.exists("openssl") ? nil : "openssl is not installed; profiles cannot be signed in this environment"

    /// The signed `.mobileprovision` bytes (runs `openssl cms -sign`).
    public func signed() throws -> [UInt8] {
        let scratch = try ScratchDirectory("profile")
        let input = try scratch.write("content.plist", try contentBytes())
        let output = scratch.path("profile.mobileprovision")
        var arguments = [
            "cms", "-sign", "-binary", "-md", "sha256", "-in", input,
            "-signer", Fixtures.path("profiles/signer.cert.pem"), "-inkey", Fixtures.path("profiles/signer.key.pem"),
            "-outform", "DER", "-nosmimecap", "-noattr", "-out", output,
        ]
        if !detached { arguments.append("-nodetach") }
        if encoding == .berIndefinite { arguments.append("-stream") }
        let result = try Command.run("openssl", arguments)
        guard result.status == 0 else {
            throw ProfileBuilderError(message: "openssl cms -sign failed (\(result.status)): \(result.stderr)")
        }
        return try Fixtures.bytesAt(output)
    }

    // MARK: Parts

    /// A committed developer certificate from `Tests/Fixtures/profiles/` (see make-certificates.sh):
    /// `developer.cer` (team ABCDE12345, valid 2025–2035), `developer-expired.cer` (ABCDE12345,
    /// 2020–2021), `developer-other-team.cer` (ZYXWV98765, 2025–2035).
    public static func certificate(_ name: String) -> [UInt8] {
        (try? Fixtures.bytes("profiles/" + name)) ?? []
    }

    /// `count` device UDIDs in the modern 25-character form, the same every time.
    public static func udids(_ count: Int) -> [String] {
        (0..<count).map { index in
            let hex = String(index * 7_919 + 4_096, radix: 16, uppercase: true)
            return "00008110-" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
        }
    }

    /// A UUID derived from text, so a profile's identity is stable across runs.
    static func uuid(for text: String) -> String {
        var state: UInt64 = 0xCBF2_9CE4_8422_2325
        var digits = ""
        for round in 0..<2 {
            for byte in text.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
            state = (state ^ UInt64(round)) &* 0x100_0000_01B3
            let hex = String(state, radix: 16, uppercase: true)
            digits += String(repeating: "0", count: 16 - hex.count) + hex
        }
        let characters = Array(digits)
        func part(_ range: Range<Int>) -> String { String(characters[range]) }
        return [part(0..<8), part(8..<12), part(12..<16), part(16..<20), part(20..<32)].joined(separator: "-")
    }
}

public struct ProfileBuilderError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

// MARK: - The committed profiles

extension ProfileBuilder {
    /// Profiles committed under `Tests/Fixtures/profiles/generated/`, signed by `signed()` from
    /// the builders below. `ProfileFixtureTests` checks each file still equals what its builder
    /// signs; `IPAWRAP_WRITE_FIXTURES=1 swift test --filter ProfileFixtureTests` rewrites them.
    public enum Fixture: String, CaseIterable, Sendable {
        /// `ABCDE12345.com.example.sample`, development, three devices, data protection on.
        case app
        /// `ABCDE12345.com.example.sample.share` (a share extension).
        case share
        /// `ABCDE12345.com.example.sample.widget` (a widget extension).
        case widget
        /// `ABCDE12345.com.example.*`.
        case partialWildcard = "partial-wildcard"
        /// `ABCDE12345.*` (Xcode's "XC Wildcard").
        case wildcard
        /// The app's App ID, expired on 2024-01-01.
        case expired
        /// `ZYXWV98765.com.example.sample`: another team.
        case otherTeam = "other-team"
        /// The app's App ID, BER with indefinite lengths and the plist in 4096-byte chunks.
        case berIndefinite = "ber-indefinite"
        /// `LEGACY9876.com.example.sample` for team ABCDE12345: a legacy App ID prefix.
        case legacyPrefix = "legacy-prefix"
        /// The app's App ID, `ProvisionsAllDevices` (in-house).
        case enterprise
        /// The app's App ID, listed devices and `get-task-allow` false.
        case adhoc
        /// The app's App ID, no devices (App Store).
        case appstore
        /// The app's App ID on `Platform` `["OSX"]`.
        case macOS = "macos"
        /// The app's App ID, its only developer certificate expired in 2021.
        case expiredCertificate = "expired-certificate"

        public var fileName: String { rawValue + ".mobileprovision" }
        public var path: String { "profiles/generated/" + fileName }

        /// The builder the committed file is signed from.
        public var builder: ProfileBuilder {
            var builder = ProfileBuilder()
            let dataProtection: PropertyListDictionary = [
                "com.apple.developer.default-data-protection": "NSFileProtectionComplete",
            ]
            builder.extraEntitlements = dataProtection
            switch self {
            case .app:
                builder.name = "Sample App Development"
                builder.extraEntitlements.append("development", forKey: "aps-environment")
            case .share:
                builder = ProfileBuilder(bundlePattern: "com.example.sample.share")
                builder.extraEntitlements = dataProtection
            case .widget:
                builder = ProfileBuilder(bundlePattern: "com.example.sample.widget")
                builder.extraEntitlements = dataProtection
            case .partialWildcard:
                builder = ProfileBuilder(bundlePattern: "com.example.*")
            case .wildcard:
                builder = ProfileBuilder(bundlePattern: "*")
                builder.isXcodeManaged = true
            case .expired:
                builder.name = "Sample App Expired"
                builder.uuid = ProfileBuilder.uuid(for: "expired")
                builder.creationDate = PropertyListDate(iso8601: "2023-01-01T00:00:00Z") ?? builder.creationDate
                builder.expirationDate = PropertyListDate(iso8601: "2024-01-01T00:00:00Z") ?? builder.expirationDate
            case .otherTeam:
                builder = ProfileBuilder(bundlePattern: "com.example.sample", team: "ZYXWV98765", teamName: "Other Company")
                builder.developerCertificates = [ProfileBuilder.certificate("developer-other-team.cer")]
                builder.extraEntitlements = dataProtection
            case .berIndefinite:
                builder.name = "Sample App Streamed"
                builder.uuid = ProfileBuilder.uuid(for: "ber-indefinite")
                // Enough devices that the plist spans several 4096-byte chunks.
                builder.devices = ProfileBuilder.udids(100)
                builder.encoding = .berIndefinite
            case .legacyPrefix:
                builder.name = "Sample App Legacy Prefix"
                builder.applicationIdentifierPrefix = "LEGACY9876"
                builder.uuid = ProfileBuilder.uuid(for: "legacy")
            case .enterprise:
                builder.name = "Sample App In House"
                builder.uuid = ProfileBuilder.uuid(for: "enterprise")
                builder.getTaskAllow = false
                builder.devices = nil
                builder.provisionsAllDevices = true
            case .adhoc:
                builder.name = "Sample App Ad Hoc"
                builder.uuid = ProfileBuilder.uuid(for: "adhoc")
                builder.getTaskAllow = false
            case .appstore:
                builder.name = "Sample App App Store"
                builder.uuid = ProfileBuilder.uuid(for: "appstore")
                builder.getTaskAllow = false
                builder.devices = nil
            case .macOS:
                builder.name = "Sample App macOS"
                builder.uuid = ProfileBuilder.uuid(for: "macos")
                builder.platforms = ["OSX"]
            case .expiredCertificate:
                builder.name = "Sample App Old Certificate"
                builder.uuid = ProfileBuilder.uuid(for: "expired-certificate")
                builder.developerCertificates = [ProfileBuilder.certificate("developer-expired.cer")]
            }
            return builder
        }
    }

    /// The committed bytes of a fixture profile (no openssl needed).
    public static func fixture(_ fixture: Fixture) throws -> [UInt8] {
        try Fixtures.bytes(fixture.path)
    }

    /// The committed explicit profile whose App ID is `bundleIdentifier` (`com.example.sample`,
    /// `.share`, `.widget`), or nil: what a realistic test IPA embeds by default.
    public static func committedProfile(for bundleIdentifier: String) -> [UInt8]? {
        let fixture: Fixture? = switch bundleIdentifier {
        case "com.example.sample": .app
        case "com.example.sample.share": .share
        case "com.example.sample.widget": .widget
        default: nil
        }
        return fixture.flatMap { try? ProfileBuilder.fixture($0) }
    }
}
