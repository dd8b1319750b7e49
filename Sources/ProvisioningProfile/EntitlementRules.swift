import PropertyList

/// Apple's rules for entitlements, in one place for `sign` (before it writes anything), `verify`,
/// `check` and `profile show`: the types of the entitlements Apple defines, and what a profile
/// grants. Sources: Apple's "Entitlements" documentation (each key's type) and the "Inside Code
/// Signing: Provisioning Profiles" technote (what a profile's entitlements allow); see
/// docs/formats.md.
public enum EntitlementRules {
    /// A type Apple gives an entitlement.
    public enum ValueType: String, Sendable {
        case string
        case bool = "boolean"
        case stringArray = "array of strings"

        func accepts(_ value: PropertyListValue) -> Bool {
            switch self {
            case .string: value.string != nil
            case .bool: value.bool != nil
            case .stringArray: value.array?.allSatisfy { $0.string != nil } == true
            }
        }
    }

    /// The entitlements Apple defines for iOS apps, by type. Others (private or future keys) are
    /// checked only against the profile.
    public static let types: [String: ValueType] = {
        let strings = [
            "application-identifier", "com.apple.application-identifier", "com.apple.developer.team-identifier",
            "aps-environment", "com.apple.developer.aps-environment", "com.apple.developer.default-data-protection",
            "com.apple.developer.ubiquity-kvstore-identifier", "com.apple.developer.icloud-container-environment",
            "com.apple.developer.ClassKit-environment", "com.apple.developer.devicecheck.appattest-environment",
        ]
        let flags = [
            "get-task-allow", "beta-reports-active", "com.apple.developer.siri", "com.apple.developer.homekit",
            "com.apple.developer.healthkit", "com.apple.developer.networking.wifi-info",
            "com.apple.developer.networking.multipath", "com.apple.developer.networking.HotspotConfiguration",
            "com.apple.developer.on-demand-install-capable", "com.apple.developer.game-center",
            "com.apple.developer.usernotifications.time-sensitive", "com.apple.developer.usernotifications.communication",
            "com.apple.developer.kernel.increased-memory-limit", "com.apple.developer.family-controls",
            "com.apple.developer.authentication-services.autofill-credential-provider", "com.apple.developer.weatherkit",
            "com.apple.developer.group-session", "com.apple.developer.associated-domains.mdm-managed",
            "com.apple.developer.coremedia.hls.low-latency", "com.apple.external-accessory.wireless-configuration",
            "com.apple.developer.pushkit.unrestricted-voip", "inter-app-audio", "com.apple.developer.contacts.notes",
        ]
        let arrays = [
            "keychain-access-groups", "com.apple.security.application-groups", "com.apple.developer.associated-domains",
            "com.apple.developer.icloud-container-identifiers", "com.apple.developer.icloud-services",
            "com.apple.developer.ubiquity-container-identifiers", "com.apple.developer.icloud-container-development-container-identifiers",
            "com.apple.developer.in-app-payments", "com.apple.developer.healthkit.access",
            "com.apple.developer.networking.networkextension", "com.apple.developer.networking.vpn.api",
            "com.apple.developer.pass-type-identifiers", "com.apple.developer.nfc.readersession.formats",
            "com.apple.developer.applesignin", "com.apple.developer.parent-application-identifiers",
            "com.apple.developer.associated-appclip-app-identifiers",
        ]
        var table: [String: ValueType] = [:]
        for key in strings { table[key] = .string }
        for key in flags { table[key] = .bool }
        for key in arrays { table[key] = .stringArray }
        return table
    }()

    /// Why an entitlement is refused.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// Its value is not of the type Apple gives it (`actual` is the plist type found).
        case wrongType(key: String, expected: ValueType, actual: String)
        /// `application-identifier` is not the profile's App ID resolved for the bundle.
        case applicationIdentifier(signed: String, expected: String?)
        /// The profile does not grant the key, or not this value.
        case notGranted(key: String)

        public var key: String {
            switch self {
            case .wrongType(let key, _, _), .notGranted(let key): key
            case .applicationIdentifier: "application-identifier"
            }
        }

        public var description: String {
            switch self {
            case .wrongType(let key, let expected, let actual):
                "\(key) is \(EntitlementRules.withArticle(actual)), not \(EntitlementRules.withArticle(expected.rawValue))"
            case .applicationIdentifier(let signed, let expected):
                "application-identifier is \(signed), not \(expected ?? "one the profile's App ID allows")"
            case .notGranted(let key): "\(key) is not granted by the profile (or not with this value)"
            }
        }
    }

    /// "a string", "an integer", "an array of strings".
    public static func withArticle(_ noun: String) -> String {
        (noun.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + noun
    }

    /// The entitlements of `entitlements` whose value is not of Apple's type. A profile may
    /// grant an array-typed entitlement with the wildcard string `*` (`profileWildcards`).
    public static func typeProblems(in entitlements: PropertyListDictionary, profileWildcards: Bool = false) -> [Problem] {
        var problems: [Problem] = []
        for (key, value) in entitlements.sorted(by: { $0.key < $1.key }) {
            guard let expected = types[key], !expected.accepts(value) else { continue }
            if profileWildcards, expected == .stringArray, value.string == "*" { continue }
            problems.append(.wrongType(key: key, expected: expected, actual: value.typeName))
        }
        return problems
    }

    /// Everything a device refuses in entitlements signed for `bundleIdentifier` under `profile`:
    /// values of the wrong type, an `application-identifier` other than the profile's App ID
    /// resolved for the bundle, and every key or value the profile does not grant (`grants`).
    public static func problems(
        signed: PropertyListDictionary, profile: ProvisioningProfile, bundleIdentifier: String?
    ) -> [Problem] {
        problems(
            signed: signed, granted: profile.entitlements,
            applicationIdentifier: bundleIdentifier.flatMap { profile.applicationIdentifier.resolved(for: $0) })
    }

    /// The same, against a profile's entitlements `granted` and the `application-identifier`
    /// its App ID gives the bundle (nil: none).
    public static func problems(
        signed: PropertyListDictionary, granted: PropertyListDictionary, applicationIdentifier expected: String?
    ) -> [Problem] {
        var problems = typeProblems(in: signed)
        let wrongTypes = Set(problems.map(\.key))
        for (key, value) in signed.sorted(by: { $0.key < $1.key }) where !wrongTypes.contains(key) {
            if key == "application-identifier" || key == "com.apple.application-identifier" {
                if value.string != expected { problems.append(.applicationIdentifier(signed: value.string ?? "", expected: expected)) }
                continue
            }
            guard let granted = granted[key], grants(granted, value) else {
                problems.append(.notGranted(key: key))
                continue
            }
        }
        return problems
    }

    /// Whether a profile's entitlement value allows a signed one: equal; `false` for a boolean the
    /// profile grants (and `true` only where it grants `true`); each item of a signed array (or a
    /// signed string) granted by an item of the profile's array; or a `*`-suffixed wildcard
    /// string (`TEAM.*`, `*`) matching it by prefix.
    public static func grants(_ granted: PropertyListValue, _ signed: PropertyListValue) -> Bool {
        if granted == signed { return true }
        if let flag = signed.bool, let allowed = granted.bool { return !flag || allowed }
        if let grantedArray = granted.array {
            let wanted = signed.array ?? [signed]
            return wanted.allSatisfy { item in item.array == nil && grantedArray.contains { grants($0, item) } }
        }
        if let pattern = granted.string, pattern.hasSuffix("*") {
            let stem = String(pattern.dropLast())
            let wanted = signed.array ?? [signed]
            return wanted.allSatisfy { $0.string?.hasPrefix(stem) == true }
        }
        return false
    }
}
