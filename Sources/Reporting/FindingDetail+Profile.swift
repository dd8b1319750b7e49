import AppBundle
import Foundation

/// A provisioning profile as findings name it: "profile 'NAME' (FILE)", or "profile FILE" when
/// it has no name.
public struct ProfileReference: Sendable, Hashable, CustomStringConvertible {
    public var name: String?
    /// The path given on the command line (or in the folder), or the archive path of an embedded profile.
    public var file: String

    public init(name: String?, file: String) {
        self.name = name
        self.file = file
    }

    public var description: String {
        if let name { return "profile '\(name)' (\(file))" }
        return "profile \(file)"
    }
}

/// The facts of the provisioning-profile findings.
public enum ProfileDetail: Sendable, Hashable {
    /// `APP_ID_WILDCARD`. `teamPrefix` is the App ID's prefix; `bundleIdentifier` the bundle's (nil
    /// for `ipawrap profile show`, or a bundle without one); `stem` is nil for `*`; `accepted` with
    /// `--allow-wildcard`.
    case wildcardAppID(
        profile: ProfileReference, bundlePath: String?, appID: String, teamPrefix: String, bundleIdentifier: String?,
        stem: String?, accepted: Bool, grantsPushNotifications: Bool)
    /// `PROFILE_EXPIRED`.
    case expired(profile: ProfileReference, bundlePath: String?, expiration: Date)
    /// `PROFILE_EXPIRING`: within the expiry window; `days` whole days left.
    case expiring(profile: ProfileReference, bundlePath: String?, expiration: Date, days: Int)
    /// `PROFILE_NOT_FOR_IOS`.
    case notForIOS(profile: ProfileReference, bundlePath: String?, platforms: [String])
    /// `PROFILE_CERTIFICATE_EXPIRED`: `certificates` of the profile's `total` have expired.
    case certificatesExpired(profile: ProfileReference, certificates: [ExpiredCertificate], total: Int)
    /// `PROFILE_CERTIFICATE_INVALID`: the certificates' problems (none: it lists no certificate).
    case certificatesInvalid(profile: ProfileReference, problems: [String])
    /// `PROFILE_ENTITLEMENT_TYPE`: the entitlements of wrong type, as "key is a T, not a U".
    case entitlementTypes(profile: ProfileReference, problems: [String])
    /// `APP_ID_MISMATCH`.
    case appIDMismatch(
        bundlePath: String, bundleIdentifier: String, profile: ProfileReference, appID: String, wildcard: Bool,
        differsOnlyInCase: Bool, source: ProfileSource)
    /// `TEAM_MISMATCH`: the bundles whose profile's team is not the app's.
    case teamMismatch(appTeam: String, others: [BundleTeam])
    /// `EXTENSION_ID_NOT_PREFIXED`: the bundle ID (of a bundle of `kind`) is not under its container's.
    case extensionIDNotPrefixed(
        bundlePath: String, bundleIdentifier: String, kind: BundleKind, containerKind: BundleKind, containerIdentifier: String)
    /// `PROFILE_OPTION_UNUSED`: `--profile PATH` loses to `--profile BUNDLE_ID=GIVEN` for the app.
    case optionShadowed(path: String, bundleIdentifier: String, givenPath: String)
    /// `PROFILE_OPTION_UNUSED`: `--profile BUNDLE_ID=PATH` names no bundle that takes a profile.
    case optionUnmatched(bundleIdentifier: String, path: String, knownIdentifiers: [String])
    /// `PROFILE_AMBIGUOUS`: profiles of `--profiles-dir` that match as well as the one used.
    case ambiguous(
        directory: String?, bundlePath: String, bundleIdentifier: String, chosen: ProfileReference, alsoMatching: [String])
    /// `PROFILE_UNREADABLE`: an embedded profile that does not decode (`code`: the error's, if it has one).
    case embeddedUnreadable(path: String, bundlePath: String, reason: String, code: String?)
    /// `PROFILE_MISSING`.
    case missing(bundlePath: String, bundleIdentifier: String?, kind: BundleKind, directory: String?, directoryProfileCount: Int)
    /// `SIGNED_ENTITLEMENTS_UNREADABLE`: the code signature itself cannot be read.
    case signatureUnreadable(executablePath: String, architecture: String, reason: String)
    /// `SIGNED_ENTITLEMENTS_UNREADABLE`: the signature's entitlements cannot be read.
    case signedEntitlementsUnreadable(executablePath: String, reason: String)
    /// `ENTITLEMENT_NOT_IN_PROFILE`.
    case entitlementsNotGranted(executablePath: String, profile: ProfileReference, entitlements: [String])
    /// `DATA_PROTECTION_NOT_ENABLED`: the app's profile (for the App ID `appID`) sets `key` to a weaker class, `value`.
    case dataProtectionWeaker(profile: ProfileReference, appID: String, key: String, value: String)
    /// `DATA_PROTECTION_NOT_ENABLED`: the app's profile (for the App ID `appID`) does not grant `key`.
    case dataProtectionNotGranted(profile: ProfileReference, appID: String, key: String)

    /// An expired developer certificate of a profile.
    public struct ExpiredCertificate: Sendable, Hashable {
        /// The common name, else the whole subject.
        public var name: String
        public var serialNumber: String
        public var expiration: Date

        public init(name: String, serialNumber: String, expiration: Date) {
            self.name = name
            self.serialNumber = serialNumber
            self.expiration = expiration
        }
    }

    /// A bundle and the team of its profile.
    public struct BundleTeam: Sendable, Hashable {
        public var bundlePath: String
        public var team: String
        public var profileFile: String

        public init(bundlePath: String, team: String, profileFile: String) {
            self.bundlePath = bundlePath
            self.team = team
            self.profileFile = profileFile
        }
    }

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .wildcardAppID: .appIDWildcard
        case .expired: .profileExpired
        case .expiring: .profileExpiring
        case .notForIOS: .profileNotForIOS
        case .certificatesExpired: .profileCertificateExpired
        case .certificatesInvalid: .profileCertificateInvalid
        case .entitlementTypes: .profileEntitlementType
        case .appIDMismatch: .appIDMismatch
        case .teamMismatch: .teamMismatch
        case .extensionIDNotPrefixed: .extensionIDNotPrefixed
        case .optionShadowed, .optionUnmatched: .profileOptionUnused
        case .ambiguous: .profileAmbiguous
        case .embeddedUnreadable: .profileUnreadable
        case .missing: .profileMissing
        case .signatureUnreadable, .signedEntitlementsUnreadable: .signedEntitlementsUnreadable
        case .entitlementsNotGranted: .entitlementNotInProfile
        case .dataProtectionWeaker, .dataProtectionNotGranted: .dataProtectionNotEnabled
        }
    }

    public var message: String {
        switch self {
        case .wildcardAppID(let profile, let bundlePath, let appID, _, _, let stem, let accepted, let grantsPushNotifications):
            let scope = stem.map { "every bundle ID starting with \($0)" } ?? "every bundle ID"
            return "\(Self.subject(profile, bundlePath)) has the wildcard App ID \(appID) (\(scope)); wrapping needs an "
                + "explicit App ID and one profile per App ID"
                + (accepted ? " (accepted with --allow-wildcard)" : "")
                + (grantsPushNotifications ? "; it also grants aps-environment, which a wildcard App ID cannot have" : "")
        case .expired(let profile, let bundlePath, let expiration):
            return "\(Self.subject(profile, bundlePath)) expired on \(ReportJSON.timestamp(expiration))"
        case .expiring(let profile, let bundlePath, let expiration, let days):
            let when = days == 0 ? "in less than a day" : "in \(days) day\(days == 1 ? "" : "s")"
            return "\(Self.subject(profile, bundlePath)) expires on \(ReportJSON.timestamp(expiration)), \(when)"
        case .notForIOS(let profile, let bundlePath, let platforms):
            return "\(Self.subject(profile, bundlePath)) is for \(platforms.joined(separator: ", ")), not iOS"
        case .certificatesExpired(let profile, let certificates, let total):
            let list = certificates.map {
                "'\($0.name)' (serial \($0.serialNumber), expired \(ReportJSON.timestamp($0.expiration)))"
            }
            return Self.expiredCertificatesPhrase(expired: certificates.count, of: total) + " in \(profile) "
                + "\(certificates.count == 1 ? "has" : "have") expired: \(list.joined(separator: ", "))"
                + (certificates.count == total ? "; nothing can be signed with this profile" : "")
        case .certificatesInvalid(let profile, let problems):
            return "\(profile): " + (problems.isEmpty ? "lists no developer certificate" : problems.joined(separator: "; "))
        case .entitlementTypes(let profile, let problems):
            return "\(profile) grants entitlements of the wrong type: " + problems.joined(separator: "; ")
        case .appIDMismatch(let bundlePath, let bundleIdentifier, let profile, let appID, let wildcard, let differsOnlyInCase, let source):
            let target = wildcard
                ? "is for App IDs matching \(appID)"
                : "is for the App ID \(appID)"
                    + (differsOnlyInCase ? " (they differ only in letter case, and bundle IDs are compared exactly)" : "")
            let given: String = switch source {
            case .option: "given with --profile"
            case .directory: "matched in --profiles-dir"
            case .embedded: "embedded in the bundle"
            }
            return "\(bundlePath) has the bundle ID \(bundleIdentifier), but \(profile) \(target), \(given)"
        case .teamMismatch(let appTeam, let others):
            let list = others.map { "\($0.bundlePath) has team \($0.team) (\($0.profileFile))" }
            return "the bundles' profiles name different teams: the app's team is \(appTeam), but "
                + list.joined(separator: "; ")
        case .extensionIDNotPrefixed(let bundlePath, let bundleIdentifier, _, let containerKind, let containerIdentifier):
            return "\(bundlePath) has the bundle ID \(bundleIdentifier), which does not start with its containing "
                + "\(containerKind.noun)'s bundle ID \(containerIdentifier) and a dot; iOS refuses to install it"
        case .optionShadowed(let path, let bundleIdentifier, let givenPath):
            return "--profile \(path) was not used: --profile \(bundleIdentifier)=\(givenPath) also names "
                + "the app, and the form with the bundle ID wins"
        case .optionUnmatched(let bundleIdentifier, let path, let knownIdentifiers):
            return "--profile \(bundleIdentifier)=\(path) names no bundle in the archive that takes a profile "
                + "(their bundle IDs: \(knownIdentifiers.isEmpty ? "none" : knownIdentifiers.joined(separator: ", ")))"
        case .ambiguous(let directory, let bundlePath, let bundleIdentifier, let chosen, let alsoMatching):
            let shown = alsoMatching.prefix(5).joined(separator: ", ")
            return "\(alsoMatching.count + 1) profiles in \(directory ?? "the folder") match \(bundlePath) "
                + "(\(bundleIdentifier)) equally well by App ID; used \(chosen) "
                + "(preferred: for iOS, of the app's team, not expired, with a valid certificate, expiring last); "
                + "also matching: \(shown)" + (alsoMatching.count > 5 ? " and \(alsoMatching.count - 5) more" : "")
        case .embeddedUnreadable(let path, let bundlePath, let reason, let code):
            return "\(path), the profile of \(bundlePath), cannot be decoded: \(reason)" + (code.map { " [\($0)]" } ?? "")
        case .missing(let bundlePath, let bundleIdentifier, let kind, let directory, let directoryProfileCount):
            var places: [String] = []
            if let directory {
                places.append("none of the \(directoryProfileCount) profiles in \(directory) has an App ID matching it")
            }
            places.append("no --profile option names it")
            places.append("it has no embedded.mobileprovision")
            let name = bundleIdentifier.map { "\(bundlePath) (\($0))" } ?? bundlePath
            let noun = kind.noun
            return "\(name) is \(Self.article(noun)) \(noun) that must be signed with a provisioning profile, but has none: "
                + places.joined(separator: ", ")
        case .signatureUnreadable(let executablePath, let architecture, let reason):
            return "the code signature of \(executablePath) (\(architecture)) cannot be read: \(reason)"
        case .signedEntitlementsUnreadable(let executablePath, let reason):
            return "the entitlements in the code signature of \(executablePath) cannot be read: \(reason)"
        case .entitlementsNotGranted(let executablePath, let profile, let entitlements):
            return "\(executablePath) is signed with "
                + "\(entitlements.count == 1 ? "an entitlement" : "\(entitlements.count) entitlements") "
                + "that \(profile) does not grant: " + entitlements.joined(separator: ", ")
        case .dataProtectionWeaker(let profile, _, let key, let value):
            return "\(profile), the app's profile, sets \(key) to \(value), a weaker class than NSFileProtectionComplete"
        case .dataProtectionNotGranted(let profile, _, let key):
            return "\(profile), the app's profile, does not grant \(key), so the app's files are not "
                + "protected with NSFileProtectionComplete by default"
        }
    }

    /// What to do: the code's remedy, or one that names the bundle ID, App ID or file these facts give.
    public var remedy: String {
        switch self {
        case .wildcardAppID(_, _, let appID, let teamPrefix, let bundleIdentifier?, _, let accepted, _):
            accepted
                ? "When re-signing, set application-identifier to \(teamPrefix).\(bundleIdentifier), not \(appID): iOS 14 and "
                    + "later reject the wildcard itself in a signature."
                : "Register the explicit App ID \(teamPrefix).\(bundleIdentifier), create a profile for it and pass it with "
                    + "--profile \(bundleIdentifier)=PATH or --profiles-dir."
        case .appIDMismatch(_, let bundleIdentifier, _, _, _, _, _):
            "Use the profile made for \(bundleIdentifier) (--profile \(bundleIdentifier)=PATH), or change CFBundleIdentifier "
                + "to match the App ID."
        case .missing(let bundlePath, let bundleIdentifier?, _, _, _):
            "Pass --profile \(bundleIdentifier)=PATH, put the profile for App ID TEAM.\(bundleIdentifier) in --profiles-dir, "
                + "or embed it as \(BundleInfo.folderName(of: bundlePath))/embedded.mobileprovision."
        case .dataProtectionWeaker(_, let appID, _, _), .dataProtectionNotGranted(_, let appID, _):
            "Enable Data Protection (Complete Protection) for the App ID \(appID) in the Apple Developer portal and "
                + "regenerate the profile."
        case .extensionIDNotPrefixed(let bundlePath, _, _, _, let containerIdentifier):
            "Set its CFBundleIdentifier to \(containerIdentifier).\(Self.suggestedSuffix(bundlePath)) (or another name under "
                + "\(containerIdentifier).) and use a profile for that App ID."
        default:
            code.remedy
        }
    }

    /// The error a device gives: a watch app's prefix error is not an extension's.
    public var installError: InstallError? {
        if case .extensionIDNotPrefixed(_, _, let kind, _, _) = self {
            return kind == .watch ? .watchAppNotPrefixed : .extensionNotPrefixed
        }
        return code.installError
    }

    /// The folder name without its extension (`Share` for `Share.appex`): a name to suggest under the container's ID.
    static func suggestedSuffix(_ bundlePath: String) -> String {
        let name = BundleInfo.folderName(of: bundlePath)
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    /// "profile 'NAME' (FILE) for BUNDLE" (no bundle for `ipawrap profile show`).
    private static func subject(_ profile: ProfileReference, _ bundlePath: String?) -> String {
        "\(profile)" + (bundlePath.map { " for \($0)" } ?? "")
    }

    /// "the developer certificate", "both developer certificates", "all 3 developer certificates",
    /// "1 of the 2 developer certificates": the subject of the expiry sentence, in number.
    static func expiredCertificatesPhrase(expired: Int, of total: Int) -> String {
        switch (expired, total) {
        case (1, 1): "the developer certificate"
        case (2, 2): "both developer certificates"
        case _ where expired == total: "all \(total) developer certificates"
        default: "\(expired) of the \(total) developer certificates"
        }
    }

    static func article(_ noun: String) -> String {
        noun.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }
}

extension BundleKind {
    /// The kind as findings name it: "app", "app extension", "watch app"...
    public var noun: String {
        switch self {
        case .app: "app"
        case .appex: "app extension"
        case .watch: "watch app"
        case .appclip: "app clip"
        case .framework: "framework"
        case .xctest: "test bundle"
        case .bundle: "loadable bundle"
        case .xpc: "XPC service"
        }
    }
}
