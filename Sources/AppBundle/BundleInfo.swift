import PropertyList

/// The kinds of bundle an IPA holds, as the report names them.
public enum BundleKind: String, Sendable, Codable, CaseIterable {
    case app
    case framework
    case appex
    case watch
    case appclip
    /// A test bundle (`.xctest`), as an XCUITest runner carries in `PlugIns/`.
    case xctest
    /// A loadable bundle with code (`.bundle` whose `CFBundleExecutable` is there: `PreferenceBundles/`,
    /// plug-ins); any other `.bundle` is a resource folder, not a bundle of this kind.
    case bundle
    /// An XPC service (`XPCServices/*.xpc`).
    case xpc

    /// Whether the bundle is signed with a provisioning profile of its own and the profile's
    /// entitlements: apps, extensions, watch apps and app clips, as Xcode signs them. Frameworks,
    /// test bundles, loadable bundles and XPC services are signed with no profile and no
    /// entitlements.
    public var needsProfile: Bool {
        switch self {
        case .app, .appex, .watch, .appclip: true
        case .framework, .xctest, .bundle, .xpc: false
        }
    }

    /// Whether a folder of this kind may hold no code at all and still be fine to sign: a
    /// framework, test bundle or XPC service without an executable is sealed as resources of
    /// the bundle around it (`BUNDLE_HAS_NO_CODE`); an app or extension without one is broken.
    public var mayHoldNoCode: Bool { !needsProfile }

    /// The kind of a bundle folder found inside the app, by its extension and the folder it sits
    /// in (an `.app` in `Watch/` is a watch app, in `AppClips/` an app clip); nil for a folder that
    /// is not a bundle.
    public static func nested(folderName name: Substring, inFolder container: Substring?) -> BundleKind? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...] {
        case "app": return container == "AppClips" ? .appclip : container == "Watch" ? .watch : .app
        case "appex": return .appex
        case "framework": return .framework
        case "xctest": return .xctest
        case "bundle": return .bundle
        case "xpc": return .xpc
        default: return nil
        }
    }

    /// The folder extensions of bundles that may hold code (`BundleKind.nested`), as bytes.
    static let folderExtensions: [[UInt8]] = ["app", "appex", "framework", "xctest", "bundle", "xpc"].map { Array(("." + $0).utf8) }
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
    public let infoPlistProblem: InfoPlistProblem?
    /// Archive path of the main executable, when Info.plist names a valid one that exists (the
    /// file it resolves to inside the bundle when it is a symlink, as in a versioned framework).
    public let executablePath: String?
    /// Why the bundle has no usable main executable (nil when `executablePath` is set, or when
    /// the Info.plist itself is unusable).
    public let executableProblem: ExecutableProblem?
    /// Archive path of `embedded.mobileprovision`, when present.
    public let embeddedProfilePath: String?
    /// Whether the bundle carries `_CodeSignature/CodeResources`.
    public let isSigned: Bool

    public init(
        kind: BundleKind, path: String, parentPath: String?, infoPlist: PropertyList?, infoPlistProblem: InfoPlistProblem?,
        executablePath: String?, executableProblem: ExecutableProblem? = nil, embeddedProfilePath: String?, isSigned: Bool
    ) {
        self.kind = kind
        self.path = path
        self.parentPath = parentPath
        self.infoPlist = infoPlist
        self.infoPlistProblem = infoPlistProblem
        self.executablePath = executablePath
        self.executableProblem = executableProblem
        self.embeddedProfilePath = embeddedProfilePath
        self.isSigned = isSigned
    }

    /// The Info.plist's top-level dictionary.
    public var info: PropertyListDictionary? { infoPlist?.root.dictionary }

    /// Whether the bundle is code to sign and verify: its Info.plist names an executable that is
    /// there. A folder without (an empty or trimmed framework) is sealed as resources of the
    /// bundle around it; any Mach-O file in it is signed as loose code.
    public var holdsCode: Bool { info != nil && executablePath != nil }

    /// Why a framework, test bundle or XPC service holds no code (`BUNDLE_HAS_NO_CODE`): it has
    /// no Info.plist, or its Info.plist names no executable; nil otherwise.
    public var noCodeReason: String? {
        guard kind.mayHoldNoCode else { return nil }
        if infoPlistProblem == .missing { return "it has no Info.plist" }
        if info != nil && executableProblem == .notNamed { return "its Info.plist names no CFBundleExecutable" }
        return nil
    }

    public var bundleIdentifier: String? { info?["CFBundleIdentifier"]?.string }

    /// Why `CFBundleIdentifier` is unusable (missing, not a string, empty), or nil.
    public var bundleIdentifierProblem: String? {
        guard info != nil else { return nil }
        guard let value = info?["CFBundleIdentifier"] else { return "CFBundleIdentifier is missing" }
        guard let text = value.string else { return "CFBundleIdentifier is not a string" }
        if text.allSatisfy(\.isWhitespace) { return "CFBundleIdentifier is empty" }
        return nil
    }
    /// `CFBundleShortVersionString`, the marketing version.
    public var shortVersion: String? { info?["CFBundleShortVersionString"]?.versionString }
    /// `CFBundleVersion`, the build number.
    public var buildVersion: String? { info?["CFBundleVersion"]?.versionString }
    /// `CFBundleDisplayName`, else `CFBundleName`.
    public var displayName: String? {
        info?["CFBundleDisplayName"]?.string ?? info?["CFBundleName"]?.string
    }
    public var executableName: String? { info?["CFBundleExecutable"]?.string }
    /// The main executable's path inside the bundle, which the bundle's seal leaves out (the
    /// signature covers it): the real file when `CFBundleExecutable` is a symlink.
    public var sealExcludedExecutable: String? {
        executablePath.map { String($0.dropFirst(path.count + 1)) } ?? executableName
    }
    public var minimumOSVersion: String? { info?["MinimumOSVersion"]?.versionString }

    /// `UIDeviceFamily`: 1 iPhone, 2 iPad (values may be integers or strings).
    public var deviceFamilies: [Int] {
        guard let value = info?["UIDeviceFamily"] else { return [] }
        let items = value.array ?? [value]
        return items.compactMap { $0.int ?? $0.string.flatMap { Int($0) } }
    }

    /// The folder name, e.g. `Share.appex`.
    public var folderName: String { Self.folderName(of: path) }

    /// The last component of a bundle's path, e.g. `Share.appex` of `Payload/A.app/PlugIns/Share.appex`.
    public static func folderName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// Why a nested bundle's Info.plist cannot be used.
public enum InfoPlistProblem: Sendable, Equatable, CustomStringConvertible {
    case missing
    case notDictionary
    /// It does not parse: the reader's code and words.
    case unreadable(String)

    public var description: String {
        switch self {
        case .missing: "it has no Info.plist"
        case .notDictionary: "its Info.plist's root is not a dictionary"
        case .unreadable(let reason): "its Info.plist cannot be read (\(reason))"
        }
    }
}

/// Why a bundle has no usable main executable.
public enum ExecutableProblem: Sendable, Equatable {
    /// Info.plist has no `CFBundleExecutable`.
    case notNamed
    /// `CFBundleExecutable` is not a usable name (not a string, empty, absolute, `..`, inside
    /// `PlugIns/` or `Frameworks/`, or a file the signature owns); the reason says which.
    case invalidName(String)
    /// `CFBundleExecutable` names a file that is not in the bundle (or is not a regular file).
    case fileMissing(name: String, path: String)

    /// Judges a bundle's `CFBundleExecutable` value; nil when it is a usable name.
    public static func judge(_ value: PropertyListValue?) -> ExecutableProblem? {
        guard let value else { return .notNamed }
        guard let name = value.string else { return .invalidName("CFBundleExecutable is not a string") }
        if name.isEmpty { return .invalidName("CFBundleExecutable is empty") }
        if name.hasPrefix("/") { return .invalidName("CFBundleExecutable '\(name)' is an absolute path") }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains("..") { return .invalidName("CFBundleExecutable '\(name)' contains '..'") }
        if components.contains(where: \.isEmpty) || components.contains(".") {
            return .invalidName("CFBundleExecutable '\(name)' is not a plain relative path")
        }
        if let first = components.first, components.count > 1, first == "PlugIns" || first == "Frameworks" {
            return .invalidName("CFBundleExecutable '\(name)' points into \(first)/, another bundle's place")
        }
        if let owned = signatureOwned(name) {
            return .invalidName("CFBundleExecutable '\(name)' names \(owned), which the code signature owns, not an executable")
        }
        return nil
    }

    /// What `path` (relative to its bundle) is when it is a file the bundle's code signature owns
    /// rather than seals as a resource: the Info.plist it binds (special slot 1), the seal itself
    /// and everything in `_CodeSignature/` (and the old top-level `CodeResources`), and the
    /// `embedded.mobileprovision` signing writes. The main executable is signed, not sealed, so
    /// it can be none of them. Compared without case, as Apple's file systems compare names.
    public static func signatureOwned(_ path: String) -> String? {
        let name = path.lowercased()
        if name == "info.plist" { return "the bundle's Info.plist" }
        if name == "embedded.mobileprovision" { return "the bundle's embedded profile" }
        if name == "coderesources" || name == "_codesignature" || name.hasPrefix("_codesignature/") {
            return "the bundle's seal (_CodeSignature)"
        }
        return nil
    }
}
