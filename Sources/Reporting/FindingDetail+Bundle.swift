import AppBundle

/// The facts of the findings about the bundles themselves.
public enum BundleDetail: Sendable, Hashable {
    /// `PLATFORM_UNSUPPORTED`.
    case platformUnsupported(appPath: String, platform: AppPlatform)
    /// `NESTED_BUNDLE_UNREADABLE`.
    case nestedBundleUnreadable(bundlePath: String, problem: String)
    /// `BUNDLE_IDENTIFIER_INVALID`.
    case bundleIdentifierInvalid(bundlePath: String, problem: String)
    /// `EXECUTABLE_MISSING`: Info.plist names no executable.
    case executableNotNamed(bundlePath: String)
    /// `EXECUTABLE_MISSING`: the named executable is not a file in the bundle.
    case executableFileMissing(bundlePath: String, name: String, path: String)
    /// `EXECUTABLE_INVALID`.
    case executableInvalid(bundlePath: String, reason: String)
    /// `PLATFORM_SIMULATOR`.
    case simulatorBuild(appPath: String, evidence: String)
    /// `BUNDLE_HAS_NO_CODE`.
    case noCode(bundlePath: String, kind: BundleKind, reason: String)
    /// `FRAMEWORK_CODE_MERGED`: a framework without the binary its Info.plist names, which no
    /// executable of the app needs from it.
    case codeMerged(bundlePath: String, name: String)

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .platformUnsupported: .platformUnsupported
        case .nestedBundleUnreadable: .nestedBundleUnreadable
        case .bundleIdentifierInvalid: .bundleIdentifierInvalid
        case .executableNotNamed, .executableFileMissing: .executableMissing
        case .executableInvalid: .executableInvalid
        case .simulatorBuild: .platformSimulator
        case .noCode: .bundleHasNoCode
        case .codeMerged: .frameworkCodeMerged
        }
    }

    public var message: String {
        switch self {
        case .platformUnsupported(let appPath, let platform):
            "\(appPath) is a \(platform.rawValue) app; MDX wrapping is for iOS and iPadOS apps only, so the iOS checks "
                + "below do not apply as they would there"
        case .nestedBundleUnreadable(let bundlePath, let problem):
            "\(bundlePath): \(problem)"
        case .bundleIdentifierInvalid(let bundlePath, let problem):
            "\(bundlePath): \(problem) in its Info.plist"
        case .executableNotNamed(let bundlePath):
            "\(bundlePath): its Info.plist names no main executable (CFBundleExecutable is missing); "
                + "its binary checks (encryption, SDKs) cannot run"
        case .executableFileMissing(let bundlePath, let name, let path):
            "\(bundlePath): CFBundleExecutable names '\(name)', but \(path) is not a file in the bundle "
                + "(nor a symlink to one inside it); its binary checks (encryption, SDKs) cannot run"
        case .executableInvalid(let bundlePath, let reason):
            "\(bundlePath): \(reason); its binary checks cannot run"
        case .simulatorBuild(let appPath, let evidence):
            "\(appPath) is a Simulator build: \(evidence); no device installs it, however it is signed"
        case .codeMerged(let bundlePath, let name):
            "\(bundlePath) holds resources but not its binary '\(name)', which no executable of the app needs from it: "
                + "a mergeable library whose code Xcode merged into the code using it (or, in a debug build, put in "
                + "ReexportedBinaries/); its files are sealed by the bundle around it, its own signature left as it is"
        case .noCode(let bundlePath, let kind, let reason):
            "\(bundlePath) is a \(kind.noun) folder with no code (\(reason)): its files are sealed by the bundle around "
                + "it, and it is not signed itself"
        }
    }
}
