import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import Reporting
import Zip

/// Which profile each bundle is judged with: `--profile`, the best match from `--profiles-dir`,
/// or its own `embedded.mobileprovision`.
extension ProfileChecks {
    static func assign(
        _ context: CheckContext, _ profiles: ProfileSet, findings: inout [Finding]
    ) throws -> [ProfileAssignment] {
        var assignments: [ProfileAssignment] = []
        var usedBundleIDs: Set<String> = []
        let signed = context.archive.allBundles.filter { $0.kind.needsProfile }
        for bundle in signed {
            let identifier = bundle.bundleIdentifier
            let isApp = bundle.path == context.archive.app.path
            if let identifier, let given = profiles.byBundleID[identifier] {
                usedBundleIDs.insert(identifier)
                if isApp, let plain = profiles.app {
                    findings.append(Finding(
                        .profile(.optionShadowed(path: plain.path, bundleIdentifier: identifier, givenPath: given.path)),
                        at: .file(plain.path)))
                }
                assignments.append(ProfileAssignment(bundle: bundle, given: given, source: .option))
                continue
            }
            if isApp, let plain = profiles.app {
                assignments.append(ProfileAssignment(bundle: bundle, given: plain, source: .option))
                continue
            }
            let team = isApp ? nil : assignments.first { $0.bundle.path == context.archive.app.path }?.profile.teamIdentifier
            if let identifier, let chosen = bestMatch(
                for: identifier, in: profiles, bundle: bundle, team: team, now: context.now, findings: &findings) {
                assignments.append(ProfileAssignment(bundle: bundle, given: chosen, source: .directory))
                continue
            }
            if let path = bundle.embeddedProfilePath {
                if let profile = try embeddedProfile(at: path, of: bundle, in: context, findings: &findings) {
                    assignments.append(ProfileAssignment(bundle: bundle, profile: profile, source: .embedded, file: path, bytes: nil))
                }
                continue
            }
            findings.append(missingFinding(bundle, identifier: identifier, profiles: profiles))
        }
        for (identifier, given) in profiles.byBundleID.sorted(by: { $0.key < $1.key }) where !usedBundleIDs.contains(identifier) {
            findings.append(Finding(
                .profile(.optionUnmatched(
                    bundleIdentifier: identifier, path: given.path, knownIdentifiers: signed.compactMap(\.bundleIdentifier))),
                at: .file(given.path)))
        }
        return assignments
    }

    /// The folder's best profile for a bundle ID. The App ID match decides (exact, then the
    /// longest partial wildcard, then `*`); among equal matches, a profile for iOS, of the app's
    /// team, not expired at `now`, with a developer certificate still valid, expiring last, and
    /// finally the first file name.
    static func bestMatch(
        for identifier: String, in profiles: ProfileSet, bundle: BundleInfo, team: String?, now: Date,
        findings: inout [Finding]
    ) -> ProfileSet.Loaded? {
        struct Candidate {
            let loaded: ProfileSet.Loaded
            let match: AppIdentifier.Match
            /// Preferences after the match, each true when better.
            let preferences: [Bool]
        }
        let candidates = profiles.directoryProfiles.compactMap { loaded -> Candidate? in
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
            findings.append(Finding(
                .profile(.ambiguous(
                    directory: profiles.directory, bundlePath: bundle.path, bundleIdentifier: identifier,
                    chosen: describe(best.loaded.profile, file: best.loaded.path), alsoMatching: tied.map(\.loaded.path))),
                at: .archive(bundle.path)))
        }
        return best.loaded
    }

    static func embeddedProfile(
        at path: String, of bundle: BundleInfo, in context: CheckContext, findings: inout [Finding]
    ) throws -> ProvisioningProfile? {
        do {
            guard let bytes = try context.archive.read(path, maximumSize: UInt64(ProvisioningProfile.maximumSize)) else {
                throw ProfileError(.fileUnreadable, "it is not a file")
            }
            return try ProvisioningProfile(
                bytes: bytes, plistLimits: PropertyListLimits(clock: context.archive.archive.zip.workClock()))
        } catch let error as CodedError {
            // Trouble reading the archive itself is not about the profile.
            if error.category == .io, !(error is ProfileError) { throw error }
            findings.append(Finding(
                .profile(.embeddedUnreadable(path: path, bundlePath: bundle.path, reason: "\(error)", code: error.code)),
                at: .archive(path)))
            return nil
        } catch {
            findings.append(Finding(
                .profile(.embeddedUnreadable(path: path, bundlePath: bundle.path, reason: "\(error)", code: nil)),
                at: .archive(path)))
            return nil
        }
    }

    static func missingFinding(_ bundle: BundleInfo, identifier: String?, profiles: ProfileSet) -> Finding {
        Finding(
            .profile(.missing(
                bundlePath: bundle.path, bundleIdentifier: identifier, kind: bundle.kind, directory: profiles.directory,
                directoryProfileCount: profiles.directoryProfiles.count)),
            at: .archive(bundle.path))
    }
}
