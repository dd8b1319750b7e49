import AppBundle
import Foundation
import PropertyList
import ProvisioningProfile

/// The report of `inspect`, `check` and `wrap` (`--json`), field for field as docs/commands.md
/// ("`inspect` and `check`") defines it. `schemaVersion` changes only when a field changes meaning.
/// Optional fields are written as `null` (`@ExplicitNull`), never left out, so consumers can rely
/// on every key being present. `verify`'s report (`VerificationReport`) shares its schema version
/// and, per bundle, its signature's facts (`SignatureFacts`). Kinds, sources and platforms are the bundle model's enums, dates
/// are `Date`s; `ReportJSON` writes them (dates as ISO 8601 in UTC).
public struct Report: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int = Report.currentSchemaVersion
    public var tool: Tool
    public var input: Input
    public var app: App
    @ExplicitNull public var icon: Icon?
    public var bundles: [Bundle] = []
    public var sdks: [SDK] = []
    public var profiles: [Profile] = []
    public var findings: [Finding] = []
    /// The moment profile expiry was judged at (`--at`, else now); nil when no profile was
    /// judged. The one field that changes between runs without `--at`: messages never carry the
    /// moment, so they stay the same.
    @ExplicitNull public var judgedAt: Date?

    public init(tool: Tool, input: Input, app: App) {
        self.tool = tool
        self.input = input
        self.app = app
    }

    public struct Tool: Codable, Sendable, Equatable {
        public var name: String
        public var version: String

        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public struct Input: Codable, Sendable, Equatable {
        public var path: String
        public var size: UInt64
        /// SHA-256 of the whole file, computed only on request (`--sha256`) because it means
        /// reading every byte, which `inspect` otherwise avoids.
        @ExplicitNull public var sha256: String?
        public var entries: Int
        /// What the archive holds beside `Payload/` (`SwiftSupport/`, `Symbols/`,
        /// `iTunesMetadata.plist`, `META-INF/`...), folders with a trailing slash.
        public var rootItems: [String]

        public init(path: String, size: UInt64, sha256: String?, entries: Int, rootItems: [String] = []) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.entries = entries
            self.rootItems = rootItems
        }
    }

    public struct App: Codable, Sendable, Equatable {
        /// The name a person knows the app by: its display name, else its folder's.
        public var displayName: String { name ?? BundleInfo.folderName(of: path) }

        /// Archive path of the app folder, e.g. `Payload/Sample.app`.
        public var path: String
        @ExplicitNull public var bundleId: String?
        @ExplicitNull public var name: String?
        @ExplicitNull public var version: String?
        @ExplicitNull public var build: String?
        @ExplicitNull public var minimumOS: String?
        public var infoPlistFormat: PropertyList.Format
        @ExplicitNull public var executable: Executable?
        public var platform: AppPlatform

        public init(
            path: String, bundleId: String?, name: String?, version: String?, build: String?, minimumOS: String?,
            infoPlistFormat: PropertyList.Format, executable: Executable?, platform: AppPlatform = .iOS
        ) {
            self.path = path
            self.bundleId = bundleId
            self.name = name
            self.version = version
            self.build = build
            self.minimumOS = minimumOS
            self.infoPlistFormat = infoPlistFormat
            self.executable = executable
            self.platform = platform
        }
    }

    public struct Executable: Codable, Sendable, Equatable {
        public var path: String
        public var architectures: [String]
        /// Whether any slice is App Store (FairPlay) encrypted (`cryptid` 1).
        public var encrypted: Bool
        @ExplicitNull public var minOS: String?
        @ExplicitNull public var sdk: String?
        public var linkedLibraries: [String]

        public init(path: String, architectures: [String], encrypted: Bool, minOS: String?, sdk: String?, linkedLibraries: [String]) {
            self.path = path
            self.architectures = architectures
            self.encrypted = encrypted
            self.minOS = minOS
            self.sdk = sdk
            self.linkedLibraries = linkedLibraries
        }
    }

    public struct Icon: Codable, Sendable, Equatable {
        /// Archive path of the chosen file; for an asset catalog, `…/Assets.car#<rendition>`.
        public var path: String
        /// Where it was found.
        public var source: IconSource
        public var width: Int
        public var height: Int
        public var format: IconFormat
        /// Each location tried, in order, and why it did or did not give the icon.
        public var trace: [String]

        public init(path: String, source: IconSource, width: Int, height: Int, format: IconFormat, trace: [String]) {
            self.path = path
            self.source = source
            self.width = width
            self.height = height
            self.format = format
            self.trace = trace
        }
    }

    public struct Bundle: Codable, Sendable, Equatable {
        public var path: String
        public var kind: BundleKind
        @ExplicitNull public var bundleId: String?
        @ExplicitNull public var version: String?
        /// The main executable's code signature as it describes itself (schema version 2), in
        /// this report's field names (`SignatureFacts`' `Codable`); nil when the bundle has no
        /// readable executable.
        @ExplicitNull public var signature: SignatureFacts?

        public init(path: String, kind: BundleKind, bundleId: String?, version: String?, signature: SignatureFacts? = nil) {
            self.path = path
            self.kind = kind
            self.bundleId = bundleId
            self.version = version
            self.signature = signature
        }
    }

    public struct SDK: Codable, Sendable, Equatable {
        /// The SDK family, e.g. `Citrix MDX`, `Microsoft Intune`, `BlackBerry Dynamics`.
        public var family: String
        public var framework: String
        @ExplicitNull public var version: String?
        public var path: String

        public init(family: String, framework: String, version: String?, path: String) {
            self.family = family
            self.framework = framework
            self.version = version
            self.path = path
        }
    }

    public struct Profile: Codable, Sendable, Equatable {
        /// The bundle the profile is used for.
        public var bundlePath: String
        public var source: ProfileSource
        @ExplicitNull public var appIdentifier: String?
        public var wildcard: Bool
        @ExplicitNull public var teamId: String?
        @ExplicitNull public var expirationDate: Date?
        @ExplicitNull public var kind: ProvisioningProfile.Distribution?
        /// The profile file (archive path for embedded profiles).
        @ExplicitNull public var file: String?

        public init(
            bundlePath: String, source: ProfileSource, appIdentifier: String?, wildcard: Bool, teamId: String?,
            expirationDate: Date?, kind: ProvisioningProfile.Distribution?, file: String?
        ) {
            self.bundlePath = bundlePath
            self.source = source
            self.appIdentifier = appIdentifier
            self.wildcard = wildcard
            self.teamId = teamId
            self.expirationDate = expirationDate
            self.kind = kind
            self.file = file
        }
    }

    /// Whether any finding is an error (`check` exits 1, `wrap` writes nothing).
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
}

/// Where a bundle's profile came from (the report's `profiles[].source`).
public enum ProfileSource: String, Sendable, Codable {
    /// `--profile PATH` (the app) or `--profile BUNDLE_ID=PATH`.
    case option
    /// Matched by App ID from `--profiles-dir`.
    case directory
    /// The bundle's own `embedded.mobileprovision`.
    case embedded
}
