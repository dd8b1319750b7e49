import ToolData

/// The facts of the binary findings: encryption, unreadable binaries, the management SDKs and the
/// compatibility checks (SQLite, OpenSSL, UIWebView, background sessions, cross-platform
/// frameworks, App Transport Security).
public enum BinaryDetail: Sendable, Hashable {
    /// `APP_ENCRYPTED`: the architectures whose slices are encrypted.
    case encrypted(binaryPath: String, architectures: [String])
    /// `BINARY_UNREADABLE`: what could not be read.
    case unreadable(binaryPath: String, problems: [String])
    /// `SDK_STATIC_UNVERSIONED`: a binary defines a family's SDK classes.
    case sdkStatic(binaryPath: String, family: String, classes: [String], toolkit: ToolkitVersion)
    /// `SDK_VERSION_UNKNOWN`: `version` is not a version, or there is none.
    case sdkVersionUnknown(frameworkPath: String, family: String, version: String?, toolkit: ToolkitVersion)
    /// `SDK_VERSION_MISMATCH`.
    case sdkVersionMismatch(frameworkPath: String, family: String, version: String, toolkit: ToolkitVersion)
    /// `SDK_VERSION_INCONSISTENT`: a family's frameworks in the app, with their versions.
    case sdkVersionInconsistent(appPath: String, family: String, frameworks: [FrameworkVersion])
    /// `MULTIPLE_MANAGEMENT_SDKS`: each family with why it counts as present.
    case multipleManagementSDKs(appPath: String, families: [SDKEvidence])
    /// `INTUNE_MULTI_IDENTITY`.
    case intuneMultiIdentity(bundlePath: String)
    /// `PRIVATE_SQLITE`: why `path` carries its own SQLite.
    case privateSQLite(path: String, evidence: [String])
    /// `SQLCIPHER_PRESENT`.
    case sqlcipher(path: String, evidence: [String])
    /// `OPENSSL_STATIC`: the OpenSSL symbols the binary defines, and the version string it contains.
    case opensslStatic(binaryPath: String, symbols: [String], banner: String?)
    /// `UIWEBVIEW_USED`: the library the class is imported from.
    case uiWebView(binaryPath: String, library: String)
    /// `URLSESSION_BACKGROUND`: the background-session selectors the binary uses.
    case urlSessionBackground(binaryPath: String, selectors: [String])
    /// `CROSS_PLATFORM_FRAMEWORK`.
    case crossPlatform(appPath: String, framework: CrossPlatformFramework, evidence: [String])
    /// `CROSS_PLATFORM_XAMARIN`.
    case xamarin(appPath: String, evidence: [String])
    /// `ATS_ARBITRARY_LOADS` or `ATS_WEB_CONTENT_ONLY`, as `settings.lift(minimumMajor:)` says: a
    /// bundle's ATS settings and deployment target (only for settings that lift ATS somewhere).
    case appTransportSecurity(bundlePath: String, settings: ATSSettings, minimumMajor: Int?)

    /// A framework of an SDK family and its `CFBundleShortVersionString`.
    public struct FrameworkVersion: Sendable, Hashable {
        public var name: String
        public var version: String?

        public init(name: String, version: String?) {
            self.name = name
            self.version = version
        }
    }

    /// An SDK family found in the app and why it counts as present.
    public struct SDKEvidence: Sendable, Hashable {
        public var family: String
        public var evidence: [String]

        public init(family: String, evidence: [String]) {
            self.family = family
            self.evidence = evidence
        }
    }

    /// The cross-platform frameworks MDX does not officially support.
    public enum CrossPlatformFramework: String, Sendable, Hashable, CaseIterable {
        case flutter = "Flutter"
        case reactNative = "React Native"
        case cordova = "Cordova"
    }

    /// The code these facts are reported under; App Transport Security's follows from the settings:
    /// off for every connection on a supported iOS version, else lifted only for what the scoped keys name.
    public var code: FindingCode {
        switch self {
        case .encrypted: .appEncrypted
        case .unreadable: .binaryUnreadable
        case .sdkStatic: .sdkStaticUnversioned
        case .sdkVersionUnknown: .sdkVersionUnknown
        case .sdkVersionMismatch: .sdkVersionMismatch
        case .sdkVersionInconsistent: .sdkVersionInconsistent
        case .multipleManagementSDKs: .multipleManagementSDKs
        case .intuneMultiIdentity: .intuneMultiIdentity
        case .privateSQLite: .privateSQLite
        case .sqlcipher: .sqlcipherPresent
        case .opensslStatic: .opensslStatic
        case .uiWebView: .uiWebViewUsed
        case .urlSessionBackground: .urlSessionBackground
        case .crossPlatform: .crossPlatformFramework
        case .xamarin: .crossPlatformXamarin
        case .appTransportSecurity(_, let settings, let minimumMajor):
            settings.lift(minimumMajor: minimumMajor) == .allConnections ? .atsArbitraryLoads : .atsWebContentOnly
        }
    }

    /// What to do: the code's remedy, or, for a version mismatch, one that names the SDK's version.
    public var remedy: String {
        if case .sdkVersionMismatch(_, _, let version, _) = self {
            return "Wrap the app with the MDX Toolkit \(version), the SDK's version (--toolkit-version \(version)), "
                + "or have the vendor wrap it as an ISV app in Premium or General mode and ship it pre-wrapped."
        }
        return code.remedy
    }

    public var message: String {
        switch self {
        case .encrypted(let binaryPath, let architectures):
            let plural = architectures.count == 1 ? "slice is" : "slices are"
            return "\(binaryPath): the \(architectures.joined(separator: ", ")) \(plural) App Store encrypted (cryptid 1); "
                + "an encrypted binary cannot be wrapped, and its code and strings cannot be checked"
        case .unreadable(let binaryPath, let problems):
            return "\(binaryPath): " + problems.joined(separator: "; ")
        case .sdkStatic(let binaryPath, let family, let classes, let toolkit):
            return "\(binaryPath) defines the \(family) SDK classes \(classes.joined(separator: ", ")): "
                + "the SDK is linked statically, so its version cannot be read or checked against the "
                + "toolkit version \(toolkit.text) (\(toolkit.source))"
        case .sdkVersionUnknown(let frameworkPath, let family, let version, let toolkit):
            let problem = version.map { "'\($0)' is not a version" } ?? "it has no CFBundleShortVersionString"
            return "\(frameworkPath) is a \(family) SDK framework, but \(problem), so its match with "
                + "the toolkit version \(toolkit.text) (\(toolkit.source)) cannot be checked"
        case .sdkVersionMismatch(let frameworkPath, let family, let version, let toolkit):
            return "\(frameworkPath) is \(family) SDK \(version), but the toolkit version is "
                + "\(toolkit.text) (\(toolkit.source)); the app must be wrapped with the toolkit of the SDK's version"
        case .sdkVersionInconsistent(let appPath, let family, let frameworks):
            let listed = frameworks.map { "\($0.name) \($0.version ?? "")" }.joined(separator: ", ")
            return "the \(family) SDK frameworks in \(appPath) have different versions: \(listed)"
        case .multipleManagementSDKs(let appPath, let families):
            let listed = families.map { "\($0.family) (\($0.evidence.prefix(2).joined(separator: "; ")))" }
            return "\(appPath) carries \(families.count) management SDKs: " + listed.joined(separator: " and ")
        case .intuneMultiIdentity(let bundlePath):
            return "\(bundlePath)/Info.plist sets IntuneMAMSettings › MultiIdentity to YES: the app is "
                + "multi-identity aware, so the Intune SDK leaves the identities unset and the app must set them "
                + "before it shows an account's data"
        case .privateSQLite(let path, let evidence):
            return "\(path) carries a private SQLite (\(evidence.joined(separator: "; "))): MDX encrypts only the "
                + "databases of Apple's /usr/lib/libsqlite3.dylib"
        case .sqlcipher(let path, let evidence):
            return "\(path) uses SQLCipher (\(evidence.joined(separator: "; "))): it memory-maps its databases, "
                + "which MDX encryption cannot cover"
        case .opensslStatic(let binaryPath, let symbols, let banner):
            var evidence: [String] = []
            if !symbols.isEmpty { evidence.append("defines \(symbols.prefix(3).joined(separator: ", "))") }
            if let banner { evidence.append("contains the version string '\(banner)'") }
            return "\(binaryPath) has OpenSSL linked in statically: it \(evidence.joined(separator: " and "))"
        case .uiWebView(let binaryPath, let library):
            return "\(binaryPath) uses UIWebView (it imports _OBJC_CLASS_$_UIWebView from \(library))"
        case .urlSessionBackground(let binaryPath, let selectors):
            return "\(binaryPath) creates NSURLSession background sessions (selector "
                + "\(selectors.joined(separator: ", "))); MDX does not support background transfers"
        case .crossPlatform(let appPath, let framework, let evidence):
            return "\(appPath) is built with \(framework.rawValue) (\(evidence.prefix(3).joined(separator: "; "))), which is not "
                + "officially supported for MDX wrapping"
        case .xamarin(let appPath, let evidence):
            return "\(appPath) is built with Xamarin / .NET for iOS (\(evidence.prefix(3).joined(separator: "; "))), "
                + "which is supported for MDX wrapping"
        case .appTransportSecurity(let bundlePath, let settings, let minimumMajor):
            return settings.describe(bundlePath: bundlePath, minimumMajor: minimumMajor)
        }
    }
}
