import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import MachO
import PropertyList
import ProvisioningProfile
import Reporting

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
    static let dataProtectionKey = "com.apple.developer.default-data-protection"

    @discardableResult
    static func apply(_ context: CheckContext, to report: inout Report) throws -> [ProfileAssignment] {
        let inputs = try ProfileInputs(context.options)
        var findings: [Finding] = []
        let assignments = try assign(context, inputs, findings: &findings)
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
        switch ProfileExpiry(expiration: profile.expirationDate, at: now) {
        case .expired:
            findings.append(Finding(
                .profileExpired,
                message: "\(subject)\(user) expired on \(expiry)", path: file))
        case .expiring(let seconds):
            let days = Int((seconds / 86_400).rounded(.down))
            let when = days == 0 ? "in less than a day" : "in \(days) day\(days == 1 ? "" : "s")"
            findings.append(Finding(
                .profileExpiring,
                message: "\(subject)\(user) expires on \(expiry), \(when)", path: file))
        case .valid:
            break
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
    static func appIDFindings(_ assignment: ProfileAssignment) -> [Finding] {
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

    // MARK: Across bundles

    /// `TEAM_MISMATCH`: the profiles must all name one team (the app's, when it has a profile).
    static func teamFindings(_ assignments: [ProfileAssignment], app: BundleInfo) -> [Finding] {
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
    static func prefixFindings(_ archive: AppArchive) -> [Finding] {
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
        ReportJSON.timestamp(date)
    }

    static func kindName(_ kind: BundleKind) -> String {
        switch kind {
        case .app: "app"
        case .appex: "app extension"
        case .watch: "watch app"
        case .appclip: "app clip"
        case .framework: "framework"
        }
    }

    static func article(_ noun: String) -> String {
        noun.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    static func suggestedSuffix(_ bundle: BundleInfo) -> String {
        let name = bundle.folderName
        guard let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot])
    }

    static func mostCommon(_ values: [String]) -> String {
        var counts: [String: Int] = [:]
        for value in values { counts[value, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
    }
}
