import AppBundle
import PropertyList
import Reporting

/// App Transport Security as each supported iOS version applies a bundle's
/// `NSAppTransportSecurity`: iOS 9 reads only `NSAllowsArbitraryLoads`; iOS 10 and later ignore
/// it when any of `NSAllowsArbitraryLoadsInWebContent`, `NSAllowsArbitraryLoadsForMedia` or
/// `NSAllowsLocalNetworking` is present, whatever their value, and those keys lift ATS only for
/// what they name.
struct ATSSettings: Equatable {
    /// The keys that make iOS 10 and later ignore `NSAllowsArbitraryLoads`, with what each lifts ATS for.
    static let scopedKeys: [(key: String, scope: String)] = [
        ("NSAllowsArbitraryLoadsInWebContent", "web content (WKWebView)"),
        ("NSAllowsArbitraryLoadsForMedia", "media loaded with AVFoundation"),
        ("NSAllowsLocalNetworking", "local network addresses"),
    ]

    /// `NSAllowsArbitraryLoads` read as iOS reads it (`YES`, `1` and `true` count).
    let allowsArbitraryLoads: Bool
    /// Scoped keys present, in `scopedKeys` order.
    let scopedKeysPresent: [String]
    /// Scoped keys set to YES.
    let scopedKeysEnabled: [String]

    /// What ATS does on one range of iOS versions.
    enum State: Equatable {
        /// ATS applies to every connection.
        case enforced
        /// ATS is lifted only for what these keys name.
        case scoped([String])
        /// ATS is off for every connection.
        case disabled
    }

    init?(_ info: PropertyListDictionary?) {
        guard let ats = info?["NSAppTransportSecurity"]?.dictionary else { return nil }
        allowsArbitraryLoads = ats["NSAllowsArbitraryLoads"]?.lenientBool ?? false
        scopedKeysPresent = Self.scopedKeys.map(\.key).filter { ats[$0] != nil }
        scopedKeysEnabled = scopedKeysPresent.filter { ats[$0]?.lenientBool == true }
    }

    /// iOS 9 knows none of the scoped keys.
    var stateOnIOS9: State { allowsArbitraryLoads ? .disabled : .enforced }

    var stateOnIOS10AndLater: State {
        if !scopedKeysPresent.isEmpty { return scopedKeysEnabled.isEmpty ? .enforced : .scoped(scopedKeysEnabled) }
        return allowsArbitraryLoads ? .disabled : .enforced
    }

    /// Whether NSAllowsArbitraryLoads is YES but iOS 10 and later ignore it.
    var arbitraryLoadsIgnoredOnIOS10: Bool { allowsArbitraryLoads && !scopedKeysPresent.isEmpty }

    /// `ATS_ARBITRARY_LOADS` or `ATS_WEB_CONTENT_ONLY` for the app and every extension, watch app
    /// and app clip (frameworks' Info.plists do not configure ATS).
    static func apply(_ context: CheckContext, binaries: [BinaryEvidence], to report: inout Report) {
        for bundle in context.archive.allBundles where bundle.kind != .framework {
            guard let settings = ATSSettings(bundle.info) else { continue }
            let minimum = minimumOSMajor(bundle, context: context)
            // iOS 9 matters when the bundle may run on it (or its deployment target is unknown).
            let coversIOS9 = minimum.map { $0 < 10 } ?? true
            let states = (coversIOS9 ? [settings.stateOnIOS9] : []) + [settings.stateOnIOS10AndLater]
            let message = settings.describe(bundle: bundle, minimumMajor: minimum, coversIOS9: coversIOS9)
            let path = bundle.path + "/Info.plist"
            if states.contains(.disabled) {
                report.findings.append(Finding(.atsArbitraryLoads, message: message, path: path))
            } else if states.contains(where: { if case .scoped = $0 { true } else { false } }) {
                report.findings.append(Finding(.atsWebContentOnly, message: message, path: path))
            }
        }
    }

    /// The deployment target's major version: `MinimumOSVersion`, else the executable's
    /// `LC_BUILD_VERSION`/`LC_VERSION_MIN_IPHONEOS`.
    static func minimumOSMajor(_ bundle: BundleInfo, context: CheckContext) -> Int? {
        if let text = bundle.minimumOSVersion, let version = SDKVersion(text) { return version.major }
        if case .success(let file)? = context.executable(of: bundle),
            let minimum = file.slices.lazy.compactMap(\.buildVersion).first?.minimumOS
        {
            return minimum.major
        }
        return nil
    }

    /// One sentence: the settings, then what they mean on each supported range of iOS versions.
    func describe(bundle: BundleInfo, minimumMajor: Int?, coversIOS9: Bool) -> String {
        var keys = ["NSAllowsArbitraryLoads is \(allowsArbitraryLoads ? "YES" : "NO")"]
        for key in scopedKeysPresent { keys.append("\(key) is \(scopedKeysEnabled.contains(key) ? "YES" : "NO")") }
        let target = minimumMajor.map { "minimum iOS \($0)" } ?? "minimum iOS unknown"
        var meanings: [String] = []
        if coversIOS9 {
            let lead = (minimumMajor ?? 9) < 9 ? "on iOS 9 (earlier versions have no ATS)" : "on iOS 9"
            switch stateOnIOS9 {
            case .disabled:
                meanings.append("\(lead) ATS is off for all connections (iOS 9 reads only NSAllowsArbitraryLoads)")
            default:
                meanings.append(
                    scopedKeysPresent.isEmpty
                        ? "\(lead) ATS applies to every connection"
                        : "\(lead) ATS applies to every connection (iOS 9 ignores \(scopedKeysPresent.joined(separator: ", ")))")
            }
        }
        let ignored = arbitraryLoadsIgnoredOnIOS10
            ? "NSAllowsArbitraryLoads is ignored because \(scopedKeysPresent.joined(separator: ", ")) "
                + (scopedKeysPresent.count == 1 ? "is" : "are") + " present, and " : ""
        switch stateOnIOS10AndLater {
        case .disabled:
            meanings.append("on iOS 10 and later ATS is off for all connections")
        case .scoped(let enabled):
            let scopes = Self.scopedKeys.filter { enabled.contains($0.key) }.map(\.scope)
            meanings.append("on iOS 10 and later \(ignored)ATS is lifted only for \(scopes.joined(separator: ", "))")
        case .enforced:
            meanings.append("on iOS 10 and later \(ignored)ATS applies to every connection")
        }
        return "\(bundle.path)/Info.plist: \(keys.joined(separator: ", ")) (\(target)); " + meanings.joined(separator: "; ")
    }
}
