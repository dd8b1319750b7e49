import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import Reporting
import Zip

/// The profile a bundle is judged with, and where it came from.
public struct ProfileAssignment: Sendable {
    public let bundle: BundleInfo
    public let profile: ProvisioningProfile
    public let source: ProfileSource
    /// The profile file: the path given on the command line (or in the folder), or the archive
    /// path of an embedded profile.
    public let file: String
    /// Where `file` is: in the archive for an embedded profile, on disk for one given.
    public var location: FindingLocation { source == .embedded ? .archive(file) : .file(file) }
    /// The bytes `profile` was decoded from, for a profile given on the command line (what
    /// signing embeds); nil for an embedded one, which stays as it is.
    public let bytes: [UInt8]?

    init(bundle: BundleInfo, profile: ProvisioningProfile, source: ProfileSource, file: String, bytes: [UInt8]?) {
        self.bundle = bundle
        self.profile = profile
        self.source = source
        self.file = file
        self.bytes = bytes
    }

    init(bundle: BundleInfo, given: ProfileSet.Loaded, source: ProfileSource) {
        self.init(bundle: bundle, profile: given.profile, source: source, file: given.path, bytes: given.bytes)
    }
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
    static let dataProtectionKey = "com.apple.developer.default-data-protection"

    @discardableResult
    static func apply(_ context: CheckContext, to report: inout Report) throws -> [ProfileAssignment] {
        var findings: [Finding] = []
        let assignments = try assign(context, context.options.profiles, findings: &findings)
        report.profiles = assignments.map { assignment in
            let profile = assignment.profile
            return Report.Profile(
                bundlePath: assignment.bundle.path, source: assignment.source,
                appIdentifier: profile.applicationIdentifier.rawValue, wildcard: profile.applicationIdentifier.isWildcard,
                teamId: profile.teamIdentifier, expirationDate: profile.expirationDate,
                kind: profile.distribution, file: assignment.file)
        }
        for assignment in assignments {
            findings += profileFindings(
                assignment.profile, file: assignment.location, bundle: assignment.bundle, now: context.now,
                allowWildcard: context.options.allowWildcard)
            findings += appIDFindings(assignment)
            findings += entitlementFindings(assignment, context: context)
        }
        if let app = assignments.first(where: { $0.bundle.kind == .app }) {
            findings += dataProtectionFindings(app)
        }
        findings += teamFindings(assignments, app: context.archive.app)
        report.findings += findings
        return assignments
    }

    // MARK: One profile

    /// Findings about a profile on its own: a wildcard App ID, expiry, the platform and the
    /// developer certificates. `bundle` is nil for `ipawrap profile show`.
    static func profileFindings(
        _ profile: ProvisioningProfile, file: FindingLocation, bundle: BundleInfo?, now: Date, allowWildcard: Bool
    ) -> [Finding] {
        var findings: [Finding] = []
        let reference = describe(profile, file: file.path)
        let appID = profile.applicationIdentifier

        if appID.isWildcard {
            findings.append(Finding(
                .profile(.wildcardAppID(
                    profile: reference, bundlePath: bundle?.path, appID: appID.rawValue, teamPrefix: appID.prefix,
                    bundleIdentifier: bundle?.bundleIdentifier, stem: appID.kind == .fullWildcard ? nil : appID.wildcardStem,
                    accepted: allowWildcard, grantsPushNotifications: profile.entitlements["aps-environment"] != nil)),
                at: file, severity: allowWildcard ? .warning : .error))
        }

        switch ProfileExpiry(expiration: profile.expirationDate, at: now) {
        case .expired:
            findings.append(Finding(
                .profile(.expired(profile: reference, bundlePath: bundle?.path, expiration: profile.expirationDate)), at: file))
        case .expiring(let seconds):
            findings.append(Finding(
                .profile(.expiring(
                    profile: reference, bundlePath: bundle?.path, expiration: profile.expirationDate,
                    days: Int((seconds / 86_400).rounded(.down)))),
                at: file))
        case .valid:
            break
        }

        if !profile.isForIOS {
            findings.append(Finding(
                .profile(.notForIOS(profile: reference, bundlePath: bundle?.path, platforms: profile.platforms)),
                at: file))
        }

        let certificates = profile.developerCertificates
        let expired = certificates.filter { $0.isExpired(at: now) }
        if !expired.isEmpty {
            let listed = expired.map {
                ProfileDetail.ExpiredCertificate(
                    name: $0.commonName ?? $0.subject, serialNumber: $0.serialNumber, expiration: $0.notValidAfter)
            }
            findings.append(Finding(
                .profile(.certificatesExpired(profile: reference, certificates: listed, total: certificates.count)),
                at: file, severity: expired.count == certificates.count ? .warning : .info))
        }
        let wrongTypes = EntitlementRules.typeProblems(in: profile.entitlements, profileWildcards: true)
        if !wrongTypes.isEmpty {
            findings.append(Finding(
                .profile(.entitlementTypes(profile: reference, problems: wrongTypes.map(\.description))),
                at: file))
        }
        if certificates.isEmpty || !profile.certificateProblems.isEmpty {
            findings.append(Finding(
                .profile(.certificatesInvalid(profile: reference, problems: profile.certificateProblems)),
                at: file))
        }
        return findings
    }

    /// `APP_ID_MISMATCH`: the profile's App ID against the bundle's identifier.
    static func appIDFindings(_ assignment: ProfileAssignment) -> [Finding] {
        let bundle = assignment.bundle
        let appID = assignment.profile.applicationIdentifier
        guard let identifier = bundle.bundleIdentifier, !appID.matches(identifier) else { return [] }
        return [Finding(
            .profile(.appIDMismatch(
                bundlePath: bundle.path, bundleIdentifier: identifier,
                profile: describe(assignment.profile, file: assignment.file), appID: appID.rawValue,
                wildcard: appID.isWildcard, differsOnlyInCase: appID.bundlePattern.lowercased() == identifier.lowercased(),
                source: assignment.source)),
            at: .archive(bundle.path))]
    }

    // MARK: Across bundles

    /// `TEAM_MISMATCH`: the profiles must all name one team (the app's, when it has a profile).
    static func teamFindings(_ assignments: [ProfileAssignment], app: BundleInfo) -> [Finding] {
        let teams = assignments.compactMap { assignment in assignment.profile.teamIdentifier.map { (assignment, $0) } }
        guard Set(teams.map(\.1)).count > 1 else { return [] }
        let reference = teams.first { $0.0.bundle.kind == .app }?.1 ?? mostCommon(teams.map(\.1))
        let odd = teams.filter { $0.1 != reference }
        let others = odd.map { ProfileDetail.BundleTeam(bundlePath: $0.0.bundle.path, team: $0.1, profileFile: $0.0.file) }
        return [Finding(.profile(.teamMismatch(appTeam: reference, others: others)), at: .archive(app.path))]
    }

    // MARK: Helpers

    /// The profile as findings name it.
    static func describe(_ profile: ProvisioningProfile, file: String) -> ProfileReference {
        ProfileReference(name: profile.name, file: file)
    }


    static func mostCommon(_ values: [String]) -> String {
        var counts: [String: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
    }
}
