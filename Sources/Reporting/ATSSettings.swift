/// App Transport Security as each supported iOS version applies a bundle's
/// `NSAppTransportSecurity`: iOS 9 reads only `NSAllowsArbitraryLoads`; iOS 10 and later ignore
/// it when any of `NSAllowsArbitraryLoadsInWebContent`, `NSAllowsArbitraryLoadsForMedia` or
/// `NSAllowsLocalNetworking` is present, whatever their value, and those keys lift ATS only for
/// what they name.
public struct ATSSettings: Sendable, Hashable {
    /// The keys that make iOS 10 and later ignore `NSAllowsArbitraryLoads`, with what each lifts ATS for.
    public static let scopedKeys: [(key: String, scope: String)] = [
        ("NSAllowsArbitraryLoadsInWebContent", "web content (WKWebView)"),
        ("NSAllowsArbitraryLoadsForMedia", "media loaded with AVFoundation"),
        ("NSAllowsLocalNetworking", "local network addresses"),
    ]

    /// `NSAllowsArbitraryLoads` read as iOS reads it (`YES`, `1` and `true` count).
    public let allowsArbitraryLoads: Bool
    /// Scoped keys present, in `scopedKeys` order.
    public let scopedKeysPresent: [String]
    /// Scoped keys set to YES.
    public let scopedKeysEnabled: [String]

    /// What ATS does on one range of iOS versions.
    public enum State: Sendable, Hashable {
        /// ATS applies to every connection.
        case enforced
        /// ATS is lifted only for what these keys name.
        case scoped([String])
        /// ATS is off for every connection.
        case disabled
    }

    /// The settings as values; `Checks` reads them from a bundle's Info.plist.
    public init(allowsArbitraryLoads: Bool, scopedKeysPresent: [String], scopedKeysEnabled: [String]) {
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.scopedKeysPresent = scopedKeysPresent
        self.scopedKeysEnabled = scopedKeysEnabled
    }

    /// Whether iOS 9 matters: the bundle may run on it (or its deployment target is unknown).
    public static func coversIOS9(minimumMajor: Int?) -> Bool {
        minimumMajor.map { $0 < 10 } ?? true
    }

    /// iOS 9 knows none of the scoped keys.
    public var stateOnIOS9: State { allowsArbitraryLoads ? .disabled : .enforced }

    public var stateOnIOS10AndLater: State {
        if !scopedKeysPresent.isEmpty { return scopedKeysEnabled.isEmpty ? .enforced : .scoped(scopedKeysEnabled) }
        return allowsArbitraryLoads ? .disabled : .enforced
    }

    /// How far the settings lift ATS on the supported iOS versions, which decides the finding's code.
    public enum Lift: Sendable, Hashable {
        /// Off for every connection on at least one of them (`ATS_ARBITRARY_LOADS`).
        case allConnections
        /// Only for what the scoped keys name (`ATS_WEB_CONTENT_ONLY`).
        case scoped
    }

    /// How far ATS is lifted for a bundle of this deployment target; nil when it applies to every
    /// connection on every supported version (no finding).
    public func lift(minimumMajor: Int?) -> Lift? {
        let states = (Self.coversIOS9(minimumMajor: minimumMajor) ? [stateOnIOS9] : []) + [stateOnIOS10AndLater]
        if states.contains(.disabled) { return .allConnections }
        if states.contains(where: { if case .scoped = $0 { true } else { false } }) { return .scoped }
        return nil
    }

    /// Whether NSAllowsArbitraryLoads is YES but iOS 10 and later ignore it.
    public var arbitraryLoadsIgnoredOnIOS10: Bool { allowsArbitraryLoads && !scopedKeysPresent.isEmpty }

    /// One sentence: the settings, then what they mean on each supported range of iOS versions.
    public func describe(bundlePath: String, minimumMajor: Int?) -> String {
        let coversIOS9 = Self.coversIOS9(minimumMajor: minimumMajor)
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
        return "\(bundlePath)/Info.plist: \(keys.joined(separator: ", ")) (\(target)); " + meanings.joined(separator: "; ")
    }
}
