import PropertyList

/// The kinds of bundle an IPA holds, as the report names them.
public enum BundleKind: String, Sendable, Codable, CaseIterable {
    case app
    case framework
    case appex
    case watch
    case appclip

    /// Whether the bundle is signed with a provisioning profile of its own (frameworks are
    /// signed, but without a profile).
    public var needsProfile: Bool { self != .framework }
}

/// One bundle in the archive: the app, or a framework, extension, watch app or app clip in it.
public struct BundleInfo: Sendable {
    public let kind: BundleKind
    /// Archive path of the bundle folder without a trailing slash, e.g. `Payload/Sample.app`.
    public let path: String
    /// The containing bundle's path (nil for the app).
    public let parentPath: String?
    /// The parsed Info.plist, or nil when it is missing or unreadable (see `infoPlistProblem`).
    public let infoPlist: PropertyList?
    /// Why a nested bundle's Info.plist could not be used.
    public let infoPlistProblem: String?
    /// Archive path of the main executable, when Info.plist names one that exists.
    public let executablePath: String?
    /// Archive path of `embedded.mobileprovision`, when present.
    public let embeddedProfilePath: String?
    /// Whether the bundle carries `_CodeSignature/CodeResources`.
    public let isSigned: Bool

    public init(
        kind: BundleKind, path: String, parentPath: String?, infoPlist: PropertyList?, infoPlistProblem: String?,
        executablePath: String?, embeddedProfilePath: String?, isSigned: Bool
    ) {
        self.kind = kind
        self.path = path
        self.parentPath = parentPath
        self.infoPlist = infoPlist
        self.infoPlistProblem = infoPlistProblem
        self.executablePath = executablePath
        self.embeddedProfilePath = embeddedProfilePath
        self.isSigned = isSigned
    }

    /// The Info.plist's top-level dictionary.
    public var info: PropertyListDictionary? { infoPlist?.root.dictionary }

    public var bundleIdentifier: String? { info?["CFBundleIdentifier"]?.string }
    /// `CFBundleShortVersionString`, the marketing version.
    public var shortVersion: String? { info?["CFBundleShortVersionString"]?.versionString }
    /// `CFBundleVersion`, the build number.
    public var buildVersion: String? { info?["CFBundleVersion"]?.versionString }
    /// `CFBundleDisplayName`, else `CFBundleName`.
    public var displayName: String? {
        info?["CFBundleDisplayName"]?.string ?? info?["CFBundleName"]?.string
    }
    public var executableName: String? { info?["CFBundleExecutable"]?.string }
    public var minimumOSVersion: String? { info?["MinimumOSVersion"]?.versionString }

    /// `UIDeviceFamily`: 1 iPhone, 2 iPad (values may be integers or strings).
    public var deviceFamilies: [Int] {
        guard let value = info?["UIDeviceFamily"] else { return [] }
        let items = value.array ?? [value]
        return items.compactMap { $0.int ?? $0.string.flatMap { Int($0) } }
    }

    /// The folder name, e.g. `Share.appex`.
    public var folderName: String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
