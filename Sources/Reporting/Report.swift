/// The report of `inspect`, `check` and `wrap` (`--json`), field for field as the README
/// ("`inspect` and `check`") defines it. `schemaVersion` changes only when a field changes meaning. Optional fields are
/// written as `null`, never left out, so consumers can rely on every key being present.
public struct Report: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int = Report.currentSchemaVersion
    public var tool: Tool
    public var input: Input
    public var app: App
    public var icon: Icon?
    public var bundles: [Bundle] = []
    public var sdks: [SDK] = []
    public var profiles: [Profile] = []
    public var findings: [Finding] = []
    /// The moment profile expiry was judged at (`--at`, else now), ISO 8601 in UTC; nil when no
    /// profile was judged. The one field that changes between runs without `--at`: messages
    /// never carry the moment, so they stay the same.
    public var judgedAt: String?

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
        public var sha256: String?
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

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(size, forKey: .size)
            try container.encode(sha256, forKey: .sha256)
            try container.encode(entries, forKey: .entries)
            try container.encode(rootItems, forKey: .rootItems)
        }
    }

    public struct App: Codable, Sendable, Equatable {
        /// Archive path of the app folder, e.g. `Payload/Sample.app`.
        public var path: String
        public var bundleId: String?
        public var name: String?
        public var version: String?
        public var build: String?
        public var minimumOS: String?
        public var infoPlistFormat: String
        public var executable: Executable?
        /// `iOS`, `iPadOS-only`, `tvOS`, `watchOS`, `visionOS` or `Mac Catalyst` (`AppPlatform`).
        public var platform: String

        public init(
            path: String, bundleId: String?, name: String?, version: String?, build: String?, minimumOS: String?,
            infoPlistFormat: String, executable: Executable?, platform: String = "iOS"
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

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(bundleId, forKey: .bundleId)
            try container.encode(name, forKey: .name)
            try container.encode(version, forKey: .version)
            try container.encode(build, forKey: .build)
            try container.encode(minimumOS, forKey: .minimumOS)
            try container.encode(infoPlistFormat, forKey: .infoPlistFormat)
            try container.encode(executable, forKey: .executable)
            try container.encode(platform, forKey: .platform)
        }
    }

    public struct Executable: Codable, Sendable, Equatable {
        public var path: String
        public var architectures: [String]
        /// Whether any slice is App Store (FairPlay) encrypted (`cryptid` 1).
        public var encrypted: Bool
        public var minOS: String?
        public var sdk: String?
        public var linkedLibraries: [String]

        public init(path: String, architectures: [String], encrypted: Bool, minOS: String?, sdk: String?, linkedLibraries: [String]) {
            self.path = path
            self.architectures = architectures
            self.encrypted = encrypted
            self.minOS = minOS
            self.sdk = sdk
            self.linkedLibraries = linkedLibraries
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(architectures, forKey: .architectures)
            try container.encode(encrypted, forKey: .encrypted)
            try container.encode(minOS, forKey: .minOS)
            try container.encode(sdk, forKey: .sdk)
            try container.encode(linkedLibraries, forKey: .linkedLibraries)
        }
    }

    public struct Icon: Codable, Sendable, Equatable {
        /// Archive path of the chosen file; for an asset catalog, `…/Assets.car#<rendition>`.
        public var path: String
        /// Where it was found: `CFBundleIcons`, `CFBundlePrimaryIcon`, `CFBundleIconFiles`,
        /// `CFBundleIconFile`, `UINewsstandIcon`, `CFBundleDocumentTypes`, `fallback`, `assetCatalog`.
        public var source: String
        public var width: Int
        public var height: Int
        /// `png`, `cgbi` or `assetCatalog`.
        public var format: String
        /// Each location tried, in order, and why it did or did not give the icon.
        public var trace: [String]

        public init(path: String, source: String, width: Int, height: Int, format: String, trace: [String]) {
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
        /// `app`, `framework`, `appex`, `watch` or `appclip`.
        public var kind: String
        public var bundleId: String?
        public var version: String?
        /// The main executable's code signature as it describes itself (schema version 2); nil
        /// when the bundle has no readable executable.
        public var signature: Signature?

        public init(path: String, kind: String, bundleId: String?, version: String?, signature: Signature? = nil) {
            self.path = path
            self.kind = kind
            self.bundleId = bundleId
            self.version = version
            self.signature = signature
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(kind, forKey: .kind)
            try container.encode(bundleId, forKey: .bundleId)
            try container.encode(version, forKey: .version)
            try container.encode(signature, forKey: .signature)
        }
    }

    /// A bundle's signature summary: what `ipawrap verify` checks in full.
    public struct Signature: Codable, Sendable, Equatable {
        public var signed: Bool
        public var adHoc: Bool
        public var cdhash: String?
        public var teamId: String?
        /// e.g. `["SHA-1", "SHA-256"]`.
        public var hashTypes: [String]
        public var certificateSubject: String?
        /// ISO 8601.
        public var certificateExpiry: String?

        public init(
            signed: Bool, adHoc: Bool, cdhash: String?, teamId: String?, hashTypes: [String], certificateSubject: String?,
            certificateExpiry: String?
        ) {
            self.signed = signed
            self.adHoc = adHoc
            self.cdhash = cdhash
            self.teamId = teamId
            self.hashTypes = hashTypes
            self.certificateSubject = certificateSubject
            self.certificateExpiry = certificateExpiry
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(signed, forKey: .signed)
            try container.encode(adHoc, forKey: .adHoc)
            try container.encode(cdhash, forKey: .cdhash)
            try container.encode(teamId, forKey: .teamId)
            try container.encode(hashTypes, forKey: .hashTypes)
            try container.encode(certificateSubject, forKey: .certificateSubject)
            try container.encode(certificateExpiry, forKey: .certificateExpiry)
        }
    }

    public struct SDK: Codable, Sendable, Equatable {
        /// The SDK family, e.g. `Citrix MDX`, `Microsoft Intune`, `BlackBerry Dynamics`.
        public var family: String
        public var framework: String
        public var version: String?
        public var path: String

        public init(family: String, framework: String, version: String?, path: String) {
            self.family = family
            self.framework = framework
            self.version = version
            self.path = path
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(family, forKey: .family)
            try container.encode(framework, forKey: .framework)
            try container.encode(version, forKey: .version)
            try container.encode(path, forKey: .path)
        }
    }

    public struct Profile: Codable, Sendable, Equatable {
        /// The bundle the profile is used for.
        public var bundlePath: String
        /// `embedded`, `option` or `directory`.
        public var source: String
        public var appIdentifier: String?
        public var wildcard: Bool
        public var teamId: String?
        /// ISO 8601, UTC.
        public var expirationDate: String?
        /// `development`, `adhoc`, `enterprise` or `appstore`.
        public var kind: String?
        /// The profile file (archive path for embedded profiles).
        public var file: String?

        public init(
            bundlePath: String, source: String, appIdentifier: String?, wildcard: Bool, teamId: String?,
            expirationDate: String?, kind: String?, file: String?
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

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bundlePath, forKey: .bundlePath)
            try container.encode(source, forKey: .source)
            try container.encode(appIdentifier, forKey: .appIdentifier)
            try container.encode(wildcard, forKey: .wildcard)
            try container.encode(teamId, forKey: .teamId)
            try container.encode(expirationDate, forKey: .expirationDate)
            try container.encode(kind, forKey: .kind)
            try container.encode(file, forKey: .file)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(tool, forKey: .tool)
        try container.encode(input, forKey: .input)
        try container.encode(app, forKey: .app)
        try container.encode(icon, forKey: .icon)
        try container.encode(bundles, forKey: .bundles)
        try container.encode(sdks, forKey: .sdks)
        try container.encode(profiles, forKey: .profiles)
        try container.encode(findings, forKey: .findings)
        try container.encode(judgedAt, forKey: .judgedAt)
    }

    /// Whether any finding is an error (`check` exits 1, `wrap` writes nothing).
    public var hasErrors: Bool { findings.contains { $0.severity == .error } }
}
