import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import MachO
import PropertyList
import ProvisioningProfile

/// Where a bundle's profile came from (the report's `profiles[].source`).
public enum ProfileSource: String, Sendable, Codable {
    /// `--profile PATH` (the app) or `--profile BUNDLE_ID=PATH`.
    case option
    /// Matched by App ID from `--profiles-dir`.
    case directory
    /// The bundle's own `embedded.mobileprovision`.
    case embedded
}

/// The profile a bundle is judged with, and where it came from.
public struct ProfileAssignment: Sendable {
    public let bundle: BundleInfo
    public let profile: ProvisioningProfile
    public let source: ProfileSource
    /// The profile file: the path given on the command line (or in the folder), or the archive
    /// path of an embedded profile.
    public let file: String
}

/// Provisioning-profile findings and the report's `profiles` section.
///
/// Every bundle that is signed with a profile of its own (the app, each extension, watch app and
/// app clip) gets one, in this order: `--profile BUNDLE_ID=PATH` (or `--profile PATH` for the
/// app), the best match from `--profiles-dir` (an exact App ID, then the longest partial
/// wildcard, then `*`), its own `embedded.mobileprovision`. Each assignment is then checked
/// against the bundle (App ID, expiry, platform, certificates, the executable's entitlements),
/// and the assignments against each other (one team, extension identifiers under the app's).
enum ProfileChecks {
    /// A profile that expires within this many days is `PROFILE_EXPIRING`.
    static let expiringWindowDays = 30
    static let dataProtectionKey = "com.apple.developer.default-data-protection"

    @discardableResult
    static func apply(_ context: CheckContext, to report: inout Report) throws -> [ProfileAssignment] {
        let inputs = try ProfileInputs(context.options)
        var findings: [Finding] = []
        let assignments = try assign(context, inputs, findings: &findings)
        report.profiles = assignments.map { assignment in
            let profile = assignment.profile
            return Report.Profile(
                bundlePath: assignment.bundle.path, source: assignment.source.rawValue,
                appIdentifier: profile.applicationIdentifier.rawValue, wildcard: profile.applicationIdentifier.isWildcard,
                teamId: profile.teamIdentifier, expirationDate: iso(profile.expirationDate),
                kind: profile.distribution.rawValue, file: assignment.file)
        }
        for assignment in assignments {
            findings += profileFindings(
                assignment.profile, file: assignment.file, bundle: assignment.bundle, now: context.now,
                allowWildcard: context.options.allowWildcard)
            findings += appIDFindings(assignment)
            findings += entitlementFindings(assignment, context: context)
        }
        if let app = assignments.first(where: { $0.bundle.kind == .app }) {
            findings += dataProtectionFindings(app)
        }
        findings += teamFindings(assignments, app: context.archive.app)
        findings += prefixFindings(context.archive)
        report.findings += findings
        return assignments
    }

    // MARK: Assignment

    static func assign(
        _ context: CheckContext, _ inputs: ProfileInputs, findings: inout [Finding]
    ) throws -> [ProfileAssignment] {
        var assignments: [ProfileAssignment] = []
        var usedBundleIDs: Set<String> = []
        let signed = context.archive.allBundles.filter { $0.kind.needsProfile }
        for bundle in signed {
            let identifier = bundle.bundleIdentifier
            let isApp = bundle.path == context.archive.app.path
            if let identifier, let given = inputs.byBundleID[identifier] {
                usedBundleIDs.insert(identifier)
                if isApp, let plain = inputs.app {
                    findings.append(Finding(
                        .profileOptionUnused,
                        message: "--profile \(plain.path) was not used: --profile \(identifier)=\(given.path) also names "
                            + "the app, and the form with the bundle ID wins",
                        path: plain.path))
                }
                assignments.append(ProfileAssignment(bundle: bundle, profile: given.profile, source: .option, file: given.path))
                continue
            }
            if isApp, let plain = inputs.app {
                assignments.append(ProfileAssignment(bundle: bundle, profile: plain.profile, source: .option, file: plain.path))
                continue
            }
            let team = isApp ? nil : assignments.first { $0.bundle.path == context.archive.app.path }?.profile.teamIdentifier
            if let identifier, let chosen = bestMatch(
                for: identifier, in: inputs, bundle: bundle, team: team, now: context.now, findings: &findings) {
                assignments.append(ProfileAssignment(bundle: bundle, profile: chosen.profile, source: .directory, file: chosen.path))
                continue
            }
            if let path = bundle.embeddedProfilePath {
                if let profile = try embeddedProfile(at: path, of: bundle, in: context, findings: &findings) {
                    assignments.append(ProfileAssignment(bundle: bundle, profile: profile, source: .embedded, file: path))
                }
                continue
            }
            findings.append(missingFinding(bundle, identifier: identifier, inputs: inputs))
        }
        for (identifier, given) in inputs.byBundleID.sorted(by: { $0.key < $1.key }) where !usedBundleIDs.contains(identifier) {
            let known = signed.compactMap(\.bundleIdentifier)
            findings.append(Finding(
                .profileOptionUnused,
                message: "--profile \(identifier)=\(given.path) names no bundle in the archive that takes a profile "
                    + "(their bundle IDs: \(known.isEmpty ? "none" : known.joined(separator: ", ")))",
                path: given.path))
        }
        return assignments
    }

    /// The folder's best profile for a bundle ID. The App ID match decides (exact, then the
    /// longest partial wildcard, then `*`); among equal matches, a profile for iOS, of the app's
    /// team, not expired at `now`, with a developer certificate still valid, expiring last, and
    /// finally the first file name.
    private static func bestMatch(
        for identifier: String, in inputs: ProfileInputs, bundle: BundleInfo, team: String?, now: Date,
        findings: inout [Finding]
    ) -> ProfileInputs.Loaded? {
        struct Candidate {
            let loaded: ProfileInputs.Loaded
            let match: AppIdentifier.Match
            /// Preferences after the match, each true when better.
            let preferences: [Bool]
        }
        let candidates = inputs.directoryProfiles.compactMap { loaded -> Candidate? in
            let profile = loaded.profile
            guard let match = profile.applicationIdentifier.match(identifier) else { return nil }
            return Candidate(loaded: loaded, match: match, preferences: [
                profile.isForIOS,
                team == nil || profile.teamIdentifier == team,
                !profile.isExpired(at: now),
                profile.developerCertificates.contains { !$0.isExpired(at: now) },
            ])
        }
        func precedes(_ lhs: Candidate, _ rhs: Candidate) -> Bool {
            if lhs.match != rhs.match { return lhs.match > rhs.match }
            for (left, right) in zip(lhs.preferences, rhs.preferences) where left != right { return left }
            let lhsDate = lhs.loaded.profile.expirationDate, rhsDate = rhs.loaded.profile.expirationDate
            if lhsDate != rhsDate { return lhsDate > rhsDate }
            return lhs.loaded.path < rhs.loaded.path
        }
        let ranked = candidates.sorted(by: precedes)
        guard let best = ranked.first else { return nil }
        let tied = ranked.dropFirst().filter { $0.match == best.match }
        if !tied.isEmpty {
            let shown = tied.prefix(5).map(\.loaded.path).joined(separator: ", ")
            findings.append(Finding(
                .profileAmbiguous,
                message: "\(tied.count + 1) profiles in \(inputs.directory ?? "the folder") match \(bundle.path) "
                    + "(\(identifier)) equally well by App ID; used \(describe(best.loaded.profile, file: best.loaded.path)) "
                    + "(preferred: for iOS, of the app's team, not expired, with a valid certificate, expiring last); "
                    + "also matching: \(shown)" + (tied.count > 5 ? " and \(tied.count - 5) more" : ""),
                path: bundle.path))
        }
        return best.loaded
    }

    private static func embeddedProfile(
        at path: String, of bundle: BundleInfo, in context: CheckContext, findings: inout [Finding]
    ) throws -> ProvisioningProfile? {
        do {
            guard let bytes = try context.archive.read(path, maximumSize: UInt64(ProvisioningProfile.maximumSize)) else {
                throw ProfileError(.fileUnreadable, "it is not a file")
            }
            return try ProvisioningProfile(bytes: bytes)
        } catch let error as CodedError {
            // Trouble reading the archive itself is not about the profile.
            if error.category == .io, !(error is ProfileError) { throw error }
            findings.append(Finding(
                .profileUnreadable,
                message: "\(path), the profile of \(bundle.path), cannot be decoded: \(error) [\(error.code)]",
                path: path))
            return nil
        } catch {
            findings.append(Finding(
                .profileUnreadable, message: "\(path), the profile of \(bundle.path), cannot be decoded: \(error)",
                path: path))
            return nil
        }
    }

    private static func missingFinding(_ bundle: BundleInfo, identifier: String?, inputs: ProfileInputs) -> Finding {
        var places: [String] = []
        if let directory = inputs.directory {
            places.append("none of the \(inputs.directoryProfiles.count) profiles in \(directory) has an App ID matching it")
        }
        places.append("no --profile option names it")
        places.append("it has no embedded.mobileprovision")
        let name = identifier.map { "\(bundle.path) (\($0))" } ?? bundle.path
        let remedy = identifier.map {
            "Pass --profile \($0)=PATH, put the profile for App ID TEAM.\($0) in --profiles-dir, or embed it as "
                + "\(bundle.folderName)/embedded.mobileprovision."
        }
        return Finding(
            .profileMissing,
            message: "\(name) is \(article(kindName(bundle.kind))) \(kindName(bundle.kind)) that must be signed with a "
                + "provisioning profile, but has none: "
                + places.joined(separator: ", "),
            path: bundle.path, remedy: remedy)
    }

    // MARK: One profile

    /// Findings about a profile on its own: a wildcard App ID, expiry, the platform and the
    /// developer certificates. `bundle` is nil for `ipawrap profile show`.
    static func profileFindings(
        _ profile: ProvisioningProfile, file: String, bundle: BundleInfo?, now: Date, allowWildcard: Bool
    ) -> [Finding] {
        var findings: [Finding] = []
        let subject = describe(profile, file: file)
        let user = bundle.map { " for \($0.path)" } ?? ""
        let appID = profile.applicationIdentifier

        if appID.isWildcard {
            let scope = appID.kind == .fullWildcard ? "every bundle ID" : "every bundle ID starting with \(appID.wildcardStem ?? "")"
            var message = "\(subject)\(user) has the wildcard App ID \(appID.rawValue) (\(scope)); wrapping needs an "
                + "explicit App ID and one profile per App ID"
            var remedy: String?
            if let identifier = bundle?.bundleIdentifier {
                remedy = "Register the explicit App ID \(appID.prefix).\(identifier), create a profile for it and pass it "
                    + "with --profile \(identifier)=PATH or --profiles-dir."
            }
            if allowWildcard {
                message += " (accepted with --allow-wildcard)"
                if let identifier = bundle?.bundleIdentifier {
                    remedy = "When re-signing, set application-identifier to \(appID.prefix).\(identifier), not "
                        + "\(appID.rawValue): iOS 14 and later reject the wildcard itself in a signature."
                }
            }
            if profile.entitlements["aps-environment"] != nil {
                message += "; it also grants aps-environment, which a wildcard App ID cannot have"
            }
            findings.append(Finding(
                .appIDWildcard, message: message, path: file, severity: allowWildcard ? .warning : .error, remedy: remedy))
        }

        let expiry = iso(profile.expirationDate)
        if profile.isExpired(at: now) {
            findings.append(Finding(
                .profileExpired,
                message: "\(subject)\(user) expired on \(expiry)", path: file))
        } else {
            let seconds = profile.expirationDate.timeIntervalSince(now)
            let window = Double(expiringWindowDays) * 86_400
            if seconds <= window {
                let days = Int((seconds / 86_400).rounded(.down))
                let when = days == 0 ? "in less than a day" : "in \(days) day\(days == 1 ? "" : "s")"
                findings.append(Finding(
                    .profileExpiring,
                    message: "\(subject)\(user) expires on \(expiry), \(when)", path: file))
            }
        }

        if !profile.isForIOS {
            findings.append(Finding(
                .profileNotForIOS,
                message: "\(subject)\(user) is for \(profile.platforms.joined(separator: ", ")), not iOS", path: file))
        }

        let certificates = profile.developerCertificates
        let expired = certificates.filter { $0.isExpired(at: now) }
        if !expired.isEmpty {
            let all = expired.count == certificates.count
            let list = expired.map { "'\($0.commonName ?? $0.subject)' (serial \($0.serialNumber), expired \(iso($0.notValidAfter)))" }
            findings.append(Finding(
                .profileCertificateExpired,
                message: Self.expiredCertificatesPhrase(expired: expired.count, of: certificates.count) + " in \(subject) "
                    + "\(expired.count == 1 ? "has" : "have") expired: \(list.joined(separator: ", "))"
                    + (all ? "; nothing can be signed with this profile" : ""),
                path: file, severity: all ? .warning : .info))
        }
        if certificates.isEmpty || !profile.certificateProblems.isEmpty {
            let detail = profile.certificateProblems.isEmpty
                ? "lists no developer certificate" : profile.certificateProblems.joined(separator: "; ")
            findings.append(Finding(.profileCertificateInvalid, message: "\(subject): \(detail)", path: file))
        }
        return findings
    }

    /// `APP_ID_MISMATCH`: the profile's App ID against the bundle's identifier.
    private static func appIDFindings(_ assignment: ProfileAssignment) -> [Finding] {
        let bundle = assignment.bundle
        let appID = assignment.profile.applicationIdentifier
        guard let identifier = bundle.bundleIdentifier, !appID.matches(identifier) else { return [] }
        var message = "\(bundle.path) has the bundle ID \(identifier), but \(describe(assignment.profile, file: assignment.file))"
        if appID.isWildcard {
            message += " is for App IDs matching \(appID.rawValue)"
        } else {
            message += " is for the App ID \(appID.rawValue)"
            if appID.bundlePattern.lowercased() == identifier.lowercased() {
                message += " (they differ only in letter case, and bundle IDs are compared exactly)"
            }
        }
        let source: String = switch assignment.source {
        case .option: "given with --profile"
        case .directory: "matched in --profiles-dir"
        case .embedded: "embedded in the bundle"
        }
        message += ", \(source)"
        return [Finding(
            .appIDMismatch, message: message, path: bundle.path,
            remedy: "Use the profile made for \(identifier) (--profile \(identifier)=PATH), or change CFBundleIdentifier "
                + "to match the App ID.")]
    }

    /// `ENTITLEMENT_NOT_IN_PROFILE`: keys the executable is signed with that the profile lacks.
    private static func entitlementFindings(_ assignment: ProfileAssignment, context: CheckContext) -> [Finding] {
        let bundle = assignment.bundle
        guard let path = bundle.executablePath, let entry = context.archive.entry(path),
              case .success(let file)? = context.executable(of: bundle) else { return [] }
        var source = context.archive.archive.zip.byteSource(for: entry)
        var signed: PropertyListDictionary?
        for slice in file.slices where slice.codeSignatureRange != nil {
            let signature: EmbeddedSignature?
            do {
                if let range = slice.codeSignatureRange {
                    try context.archive.archive.zip.reserveMemory(UInt64(range.size), for: "the code signature of '\(path)'")
                }
                signature = try slice.readCodeSignature(from: &source)
            } catch {
                // A damaged signature hides what the bundle is entitled to: say so rather than
                // report a clean bundle.
                return [Finding(
                    .signedEntitlementsUnreadable,
                    message: "the code signature of \(path) (\(slice.architecture.name)) cannot be read: "
                        + BinaryScanner.reason(error),
                    path: path)]
            }
            guard let signature else { continue }
            do {
                signed = try entitlements(of: signature)
            } catch {
                return [Finding(
                    .signedEntitlementsUnreadable,
                    message: "the entitlements in the code signature of \(path) cannot be read: \(error)", path: path)]
            }
            if signed != nil { break }
        }
        guard let signed else { return [] }
        let missing = signed.keys.filter { assignment.profile.entitlements[$0] == nil }.sorted()
        guard !missing.isEmpty else { return [] }
        return [Finding(
            .entitlementNotInProfile,
            message: "\(path) is signed with \(missing.count == 1 ? "an entitlement" : "\(missing.count) entitlements") "
                + "that \(describe(assignment.profile, file: assignment.file)) does not grant: "
                + missing.joined(separator: ", "),
            path: path)]
    }

    /// The XML entitlements of a signature, else its DER entitlements; nil when it has neither.
    static func entitlements(of signature: EmbeddedSignature) throws -> PropertyListDictionary? {
        if let xml = signature.entitlementsXML {
            let root = try PropertyList(bytes: xml).root
            guard let dictionary = root.dictionary else {
                throw ProfileError(.entitlementsInvalid, "the XML entitlements' root is \(root.typeName), not a dictionary")
            }
            return dictionary
        }
        if let der = signature.entitlementsDER {
            return try DEREntitlements(derEncoded: der).dictionary
        }
        return nil
    }

    /// `DATA_PROTECTION_NOT_ENABLED` for the app's profile (seeds-digest §3).
    private static func dataProtectionFindings(_ assignment: ProfileAssignment) -> [Finding] {
        let profile = assignment.profile
        let value = profile.entitlements[dataProtectionKey]
        if value?.string == "NSFileProtectionComplete" { return [] }
        let subject = describe(profile, file: assignment.file)
        let remedy = "Enable Data Protection (Complete Protection) for the App ID \(profile.applicationIdentifier.rawValue) "
            + "in the Apple Developer portal and regenerate the profile."
        if let value {
            return [Finding(
                .dataProtectionNotEnabled,
                message: "\(subject), the app's profile, sets \(dataProtectionKey) to \(value), a weaker class than "
                    + "NSFileProtectionComplete", path: assignment.file, severity: .info, remedy: remedy)]
        }
        return [Finding(
            .dataProtectionNotEnabled,
            message: "\(subject), the app's profile, does not grant \(dataProtectionKey), so the app's files are not "
                + "protected with NSFileProtectionComplete by default", path: assignment.file, remedy: remedy)]
    }

    // MARK: Across bundles

    /// `TEAM_MISMATCH`: the profiles must all name one team (the app's, when it has a profile).
    private static func teamFindings(_ assignments: [ProfileAssignment], app: BundleInfo) -> [Finding] {
        let teams = assignments.compactMap { assignment in assignment.profile.teamIdentifier.map { (assignment, $0) } }
        guard Set(teams.map(\.1)).count > 1 else { return [] }
        let reference = teams.first { $0.0.bundle.kind == .app }?.1 ?? mostCommon(teams.map(\.1))
        let odd = teams.filter { $0.1 != reference }
        let list = odd.map { "\($0.0.bundle.path) has team \($0.1) (\($0.0.file))" }
        return [Finding(
            .teamMismatch,
            message: "the bundles' profiles name different teams: the app's team is \(reference), but "
                + list.joined(separator: "; "),
            path: app.path)]
    }

    /// `EXTENSION_ID_NOT_PREFIXED`: a nested signed bundle's identifier must start with its
    /// containing app's identifier and a dot.
    private static func prefixFindings(_ archive: AppArchive) -> [Finding] {
        var findings: [Finding] = []
        let byPath = Dictionary(archive.allBundles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for bundle in archive.nestedBundles where bundle.kind.needsProfile {
            guard let identifier = bundle.bundleIdentifier, let parentPath = bundle.parentPath,
                  let parent = byPath[parentPath], let parentID = parent.bundleIdentifier,
                  !identifier.hasPrefix(parentID + ".") else { continue }
            findings.append(Finding(
                .extensionIDNotPrefixed,
                message: "\(bundle.path) has the bundle ID \(identifier), which does not start with its containing "
                    + "\(parent.kind == .app && parent.parentPath == nil ? "app" : kindName(parent.kind))'s bundle ID "
                    + "\(parentID) and a dot; iOS refuses to install it",
                path: bundle.path,
                remedy: "Set its CFBundleIdentifier to \(parentID).\(suggestedSuffix(bundle)) (or another name under "
                    + "\(parentID).) and use a profile for that App ID."))
        }
        return findings
    }

    // MARK: Helpers

    /// "profile 'NAME' (FILE)".
    static func describe(_ profile: ProvisioningProfile, file: String) -> String {
        if let name = profile.name { return "profile '\(name)' (\(file))" }
        return "profile \(file)"
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

    static func iso(_ date: Date) -> String {
        PropertyListDate(secondsSince1970: date.timeIntervalSince1970).iso8601
    }

    private static func kindName(_ kind: BundleKind) -> String {
        switch kind {
        case .app: "app"
        case .appex: "app extension"
        case .watch: "watch app"
        case .appclip: "app clip"
        case .framework: "framework"
        }
    }

    private static func article(_ noun: String) -> String {
        noun.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    private static func suggestedSuffix(_ bundle: BundleInfo) -> String {
        let name = bundle.folderName
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    private static func mostCommon(_ values: [String]) -> String {
        var counts: [String: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
    }
}

/// The profiles given on the command line, each file read once. A file that cannot be read is
/// an I/O error (exit 74); one that is not a profile is invalid input (exit 65).
struct ProfileInputs {
    struct Loaded {
        let path: String
        let profile: ProvisioningProfile
    }

    /// More `.mobileprovision` files than any team keeps; bounds the folder scan.
    static let maximumDirectoryProfiles = 4096

    var app: Loaded?
    var byBundleID: [String: Loaded] = [:]
    var directory: String?
    var directoryProfiles: [Loaded] = []

    init(_ options: CheckOptions) throws(ProfileError) {
        var cache: [String: ProvisioningProfile] = [:]
        func load(_ path: String) throws(ProfileError) -> Loaded {
            if let cached = cache[path] { return Loaded(path: path, profile: cached) }
            let profile = try ProvisioningProfile(contentsOfFile: path)
            cache[path] = profile
            return Loaded(path: path, profile: profile)
        }
        if let path = options.appProfile { app = try load(path) }
        for (identifier, path) in options.bundleProfiles.sorted(by: { $0.key < $1.key }) {
            byBundleID[identifier] = try load(path)
        }
        if let folder = options.profilesDirectory {
            directory = folder
            for path in try Self.profileFiles(in: folder) { directoryProfiles.append(try load(path)) }
        }
    }

    /// The `.mobileprovision` files directly in `folder`, sorted by name.
    static func profileFiles(in folder: String) throws(ProfileError) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw ProfileError(.fileUnreadable, "the --profiles-dir folder does not exist", file: folder)
        }
        guard isFolder.boolValue else {
            throw ProfileError(.fileUnreadable, "--profiles-dir must name a folder, and this is a file", file: folder)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ProfileError(.fileUnreadable, "the --profiles-dir folder cannot be listed", file: folder)
        }
        let profiles = names.filter { $0.lowercased().hasSuffix(".mobileprovision") && !$0.hasPrefix(".") }.sorted()
        guard profiles.count <= maximumDirectoryProfiles else {
            throw ProfileError(
                .tooLarge, "the --profiles-dir folder holds \(profiles.count) profiles, more than the limit of "
                    + "\(maximumDirectoryProfiles)", file: folder)
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        return profiles.map { base + $0 }
    }
}

// MARK: - ipawrap profile show

/// `ipawrap profile show --json`: a decoded profile, field for field, and its findings. Dates are
/// ISO 8601 UTC; absent fields are `null`, never left out.
public struct ProfileSummary: Encodable, Sendable, Equatable {
    public var file: String
    public var name: String?
    public var uuid: String?
    public var appIdName: String?
    /// `application-identifier`, e.g. `ABCDE12345.com.example.app`.
    public var appIdentifier: String
    /// `explicit`, `partialWildcard` or `fullWildcard`.
    public var appIdKind: String
    public var wildcard: Bool
    public var applicationIdentifierPrefix: [String]
    public var teamId: String?
    public var teamName: String?
    public var platforms: [String]
    public var creationDate: String?
    public var expirationDate: String
    public var expired: Bool
    public var timeToLive: Int?
    /// `development`, `adhoc`, `enterprise` or `appstore`.
    public var kind: String
    public var deviceCount: Int
    public var devices: [String]
    public var provisionsAllDevices: Bool
    public var xcodeManaged: Bool?
    public var entitlements: JSONValue
    public var certificates: [Certificate]
    public var container: Container
    public var findings: [Finding]

    public struct Certificate: Encodable, Sendable, Equatable {
        /// The whole subject, RFC 4514 style.
        public var subject: String
        public var commonName: String?
        public var teamId: String?
        public var organization: String?
        public var issuer: String?
        public var serialNumber: String
        public var notValidBefore: String
        public var notValidAfter: String
        public var expired: Bool
        public var sha1: String

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(subject, forKey: .subject)
            try container.encode(commonName, forKey: .commonName)
            try container.encode(teamId, forKey: .teamId)
            try container.encode(organization, forKey: .organization)
            try container.encode(issuer, forKey: .issuer)
            try container.encode(serialNumber, forKey: .serialNumber)
            try container.encode(notValidBefore, forKey: .notValidBefore)
            try container.encode(notValidAfter, forKey: .notValidAfter)
            try container.encode(expired, forKey: .expired)
            try container.encode(sha1, forKey: .sha1)
        }

        enum CodingKeys: String, CodingKey {
            case subject, commonName, teamId, organization, issuer, serialNumber, notValidBefore, notValidAfter, expired, sha1
        }
    }

    /// The CMS container. The signature is not verified (that needs Apple's root certificate).
    public struct Container: Encodable, Sendable, Equatable {
        /// `DER`, or `BER` when indefinite lengths are used.
        public var encoding: String
        public var digestAlgorithms: [String]
        public var signerCount: Int
        /// Common names of the CMS signing chain.
        public var signedBy: [String]
        /// How many OCTET STRING pieces the content was carried in.
        public var contentChunks: Int
    }

    public init(_ profile: ProvisioningProfile, file: String, now: Date, allowWildcard: Bool = false) {
        let iso = ProfileChecks.iso
        self.file = file
        name = profile.name
        uuid = profile.uuid
        appIdName = profile.appIDName
        appIdentifier = profile.applicationIdentifier.rawValue
        appIdKind = profile.applicationIdentifier.kind.rawValue
        wildcard = profile.applicationIdentifier.isWildcard
        applicationIdentifierPrefix = profile.applicationIdentifierPrefixes
        teamId = profile.teamIdentifier
        teamName = profile.teamName
        platforms = profile.platforms
        creationDate = profile.creationDate.map(iso)
        expirationDate = iso(profile.expirationDate)
        expired = profile.isExpired(at: now)
        timeToLive = profile.timeToLive
        kind = profile.distribution.rawValue
        devices = profile.provisionedDevices ?? []
        deviceCount = devices.count
        provisionsAllDevices = profile.provisionsAllDevices
        xcodeManaged = profile.isXcodeManaged
        entitlements = JSONValue(.dictionary(profile.entitlements))
        certificates = profile.developerCertificates.map { certificate in
            Certificate(
                subject: certificate.subject, commonName: certificate.commonName, teamId: certificate.teamIdentifier,
                organization: certificate.organization, issuer: certificate.issuerCommonName,
                serialNumber: certificate.serialNumber, notValidBefore: iso(certificate.notValidBefore),
                notValidAfter: iso(certificate.notValidAfter), expired: certificate.isExpired(at: now),
                sha1: certificate.sha1Fingerprint)
        }
        container = Container(
            encoding: profile.signedData.usesIndefiniteLengths ? "BER" : "DER",
            digestAlgorithms: profile.signedData.digestAlgorithms, signerCount: profile.signedData.signerCount,
            signedBy: profile.signingCertificates.map { $0.commonName ?? $0.subject },
            contentChunks: profile.signedData.contentChunkCount)
        findings = ProfileChecks.profileFindings(profile, file: file, bundle: nil, now: now, allowWildcard: allowWildcard)
        findings.sort { ($0.severity, $0.code) < ($1.severity, $1.code) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(name, forKey: .name)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(appIdName, forKey: .appIdName)
        try container.encode(appIdentifier, forKey: .appIdentifier)
        try container.encode(appIdKind, forKey: .appIdKind)
        try container.encode(wildcard, forKey: .wildcard)
        try container.encode(applicationIdentifierPrefix, forKey: .applicationIdentifierPrefix)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(teamName, forKey: .teamName)
        try container.encode(platforms, forKey: .platforms)
        try container.encode(creationDate, forKey: .creationDate)
        try container.encode(expirationDate, forKey: .expirationDate)
        try container.encode(expired, forKey: .expired)
        try container.encode(timeToLive, forKey: .timeToLive)
        try container.encode(kind, forKey: .kind)
        try container.encode(deviceCount, forKey: .deviceCount)
        try container.encode(devices, forKey: .devices)
        try container.encode(provisionsAllDevices, forKey: .provisionsAllDevices)
        try container.encode(xcodeManaged, forKey: .xcodeManaged)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(certificates, forKey: .certificates)
        try container.encode(self.container, forKey: .container)
        try container.encode(findings, forKey: .findings)
    }

    enum CodingKeys: String, CodingKey {
        case file, name, uuid, appIdName, appIdentifier, appIdKind, wildcard, applicationIdentifierPrefix, teamId
        case teamName, platforms, creationDate, expirationDate, expired, timeToLive, kind, deviceCount, devices
        case provisionsAllDevices, xcodeManaged, entitlements, certificates, container, findings
    }
}

/// A property-list value as JSON: dates as ISO 8601 strings, data as base64, integers beyond
/// 64 bits as decimal strings.
public indirect enum JSONValue: Encodable, Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(_ value: PropertyListValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = number.int64.map(JSONValue.integer) ?? .string(number.description)
        case .real(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .date(let date): self = .string(date.iso8601)
        case .data(let bytes): self = .string(Data(bytes).base64EncodedString())
        case .uid(let number): self = .string(String(number))
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .dictionary(let dictionary):
            var object: [String: JSONValue] = [:]
            for (key, item) in dictionary { object[key] = JSONValue(item) }
            self = .object(object)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let number): try container.encode(number)
        case .number(let number):
            // JSON has no NaN or infinity.
            if number.isFinite { try container.encode(number) } else { try container.encode(String(number)) }
        case .bool(let flag): try container.encode(flag)
        case .array(let items): try container.encode(items)
        case .object(let object): try container.encode(object)
        }
    }
}
