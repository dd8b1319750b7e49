/// The App ID a profile is for: its `application-identifier` entitlement, a prefix (the team
/// ID, or a legacy App ID prefix), a dot and a bundle ID pattern.
///
/// - `ABCDE12345.com.example.app` is explicit: it is for that one bundle ID.
/// - `ABCDE12345.com.example.*` is a partial wildcard: any bundle ID starting with `com.example.`.
/// - `ABCDE12345.*` is a full wildcard: any bundle ID.
///
/// The prefix is taken from the profile (`ApplicationIdentifierPrefix`, `TeamIdentifier`), never
/// guessed from the shape of the string: legacy App ID prefixes differ from the team ID, and a
/// bundle ID pattern may itself contain dots.
public struct AppIdentifier: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// One bundle ID.
        case explicit
        /// Bundle IDs starting with a stem, e.g. `com.example.*`.
        case partialWildcard
        /// Every bundle ID (`*`).
        case fullWildcard

        /// Whether the App ID matches more than one bundle ID.
        public var isWildcard: Bool { self != .explicit }
    }

    /// How well an App ID matches a bundle ID; greater is better. An exact App ID beats a
    /// partial wildcard, a longer wildcard stem beats a shorter one, and `*` comes last.
    public enum Match: Sendable, Hashable, Comparable {
        case fullWildcard
        case partialWildcard(stemLength: Int)
        case exact
    }

    /// The whole entitlement value, e.g. `ABCDE12345.com.example.app`.
    public let rawValue: String
    /// The part before the bundle ID pattern, e.g. `ABCDE12345`.
    public let prefix: String
    /// The part after the prefix and its dot: a bundle ID, `com.example.*` or `*`.
    public let bundlePattern: String
    public let kind: Kind
    /// Whether `prefix` is one the profile declares (in `ApplicationIdentifierPrefix` or
    /// `TeamIdentifier`). When none of them starts the value, the prefix is the text before the
    /// first dot and this is false.
    public let prefixIsDeclared: Bool

    /// Splits an `application-identifier` value using the prefixes the profile declares; nil when
    /// the value has no prefix or no bundle ID pattern.
    public init?(_ rawValue: String, declaredPrefixes: [String]) {
        self.rawValue = rawValue
        // The longest declared prefix followed by a dot wins, so "AB.C" is preferred to "AB"
        // when both are declared.
        let declared = declaredPrefixes.filter { !$0.isEmpty && rawValue.hasPrefix($0 + ".") }.max { $0.count < $1.count }
        if let declared {
            prefix = declared
            prefixIsDeclared = true
        } else {
            guard let dot = rawValue.firstIndex(of: ".") else { return nil }
            prefix = String(rawValue[..<dot])
            prefixIsDeclared = false
        }
        bundlePattern = String(rawValue.dropFirst(prefix.count + 1))
        guard !prefix.isEmpty, !bundlePattern.isEmpty else { return nil }
        if bundlePattern == "*" {
            kind = .fullWildcard
        } else if bundlePattern.hasSuffix("*") {
            kind = .partialWildcard
        } else {
            kind = .explicit
        }
    }

    public var isWildcard: Bool { kind.isWildcard }

    /// For a wildcard, the text a bundle ID must start with (`com.example.`, or "" for `*`).
    public var wildcardStem: String? {
        isWildcard ? String(bundlePattern.dropLast()) : nil
    }

    /// How this App ID matches `bundleIdentifier`, or nil when it does not. Bundle IDs are
    /// compared exactly (case included), as the App ID registered with Apple is.
    public func match(_ bundleIdentifier: String) -> Match? {
        switch kind {
        case .explicit:
            return bundlePattern == bundleIdentifier ? .exact : nil
        case .partialWildcard, .fullWildcard:
            let stem = String(bundlePattern.dropLast())
            // The wildcard stands for at least one character: `com.example.*` does not match `com.example.`.
            guard bundleIdentifier.hasPrefix(stem), bundleIdentifier.count > stem.count else { return nil }
            return kind == .fullWildcard ? .fullWildcard : .partialWildcard(stemLength: stem.count)
        }
    }

    public func matches(_ bundleIdentifier: String) -> Bool {
        match(bundleIdentifier) != nil
    }

    /// The `application-identifier` a bundle signed with this profile gets: the prefix and the
    /// bundle ID. Signing with the wildcard itself (`TEAM.*`) breaks entitlements on iOS 14+.
    public func resolved(for bundleIdentifier: String) -> String? {
        matches(bundleIdentifier) ? prefix + "." + bundleIdentifier : nil
    }

    public var description: String { rawValue }
}
