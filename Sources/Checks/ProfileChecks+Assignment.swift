import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import MachO
import PropertyList
import ProvisioningProfile
import Reporting

/// Which profile each bundle is judged with: `--profile`, the best match from `--profiles-dir`,
/// or its own `embedded.mobileprovision`.
extension ProfileChecks {
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
                        .profile(.optionShadowed(path: plain.path, bundleIdentifier: identifier, givenPath: given.path)),
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
            findings.append(Finding(
                .profileOptionUnused,
                .profile(.optionUnmatched(
                    bundleIdentifier: identifier, path: given.path, knownIdentifiers: signed.compactMap(\.bundleIdentifier))),
                path: given.path))
        }
        return assignments
    }

    /// The folder's best profile for a bundle ID. The App ID match decides (exact, then the
    /// longest partial wildcard, then `*`); among equal matches, a profile for iOS, of the app's
    /// team, not expired at `now`, with a developer certificate still valid, expiring last, and
    /// finally the first file name.
    static func bestMatch(
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
            findings.append(Finding(
                .profileAmbiguous,
                .profile(.ambiguous(
                    directory: inputs.directory, bundlePath: bundle.path, bundleIdentifier: identifier,
                    chosen: describe(best.loaded.profile, file: best.loaded.path), alsoMatching: tied.map(\.loaded.path))),
                path: bundle.path))
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
                .profileUnreadable,
                .profile(.embeddedUnreadable(path: path, bundlePath: bundle.path, reason: "\(error)", code: error.code)),
                path: path))
            return nil
        } catch {
            findings.append(Finding(
                .profileUnreadable,
                .profile(.embeddedUnreadable(path: path, bundlePath: bundle.path, reason: "\(error)", code: nil)),
                path: path))
            return nil
        }
    }

    static func missingFinding(_ bundle: BundleInfo, identifier: String?, inputs: ProfileInputs) -> Finding {
        let remedy = identifier.map {
            "Pass --profile \($0)=PATH, put the profile for App ID TEAM.\($0) in --profiles-dir, or embed it as "
                + "\(bundle.folderName)/embedded.mobileprovision."
        }
        return Finding(
            .profileMissing,
            .profile(.missing(
                bundlePath: bundle.path, bundleIdentifier: identifier, kind: bundle.kind, directory: inputs.directory,
                directoryProfileCount: inputs.directoryProfiles.count)),
            path: bundle.path, remedy: remedy)
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
        guard let kind = FileSystem.kind(of: folder, following: true) else {
            throw ProfileError(.fileUnreadable, "the --profiles-dir folder does not exist", file: folder)
        }
        guard kind == S_IFDIR else {
            throw ProfileError(.fileUnreadable, "--profiles-dir must name a folder, and this is a file", file: folder)
        }
        let names = try FileSystem.names(inFolder: folder, unreadable: { error in
            ProfileError(.fileUnreadable, "the --profiles-dir folder cannot be listed: \(error)", file: folder)
        })
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
