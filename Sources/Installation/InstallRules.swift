import AppBundle
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import Reporting

/// The checks a device's installd and amfid make, judged from the bundle model, each bundle's
/// profile and executable, and the device asked about. `check`, `sign` and `wrap` run them on
/// the profiles they assign; `verify` on the embedded ones and the signature's team. Each finding
/// names the error a device would give (`FindingCode.installError`). Sources: docs/install-checks.md.
public enum InstallRules {
    // MARK: The bundles themselves (any device)

    /// What installd refuses in the bundles on any device: a Simulator build, a nested app-like
    /// bundle whose ID is not under its container's, a watch app not marked as one or naming
    /// another companion, an extension without an extension point, an app-like bundle without
    /// `CFBundleVersion`, an architecture `UIRequiredDeviceCapabilities` asks for and the code
    /// lacks. `executables`: the slices of each bundle's executable, by bundle path.
    public static func bundleFindings(_ archive: AppArchive, executables: [String: [ExecutableSlice]]) -> [Finding] {
        var findings: [Finding] = []
        let app = archive.app
        if let evidence = SimulatorBuild.evidence(slices: executables[app.path] ?? [], info: app.info) {
            findings.append(Finding(.bundle(.simulatorBuild(appPath: app.path, evidence: evidence)), at: .archive(app.path)))
        }
        let byPath = Dictionary(archive.allBundles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for bundle in archive.allBundles where bundle.kind.needsProfile && bundle.info != nil {
            let parent = bundle.parentPath.flatMap { byPath[$0] }
            findings += prefixFindings(bundle, parent: parent)
            if bundle.kind == .watch, let parent { findings += watchFindings(bundle, companion: parent) }
            if bundle.kind == .appex && !declaresExtensionPoint(bundle) {
                findings.append(Finding(
                    .install(.extensionPointMissing(bundle: bundle.path)),
                    at: .archive(bundle.path + "/Info.plist")))
            }
            if bundle.buildVersion?.isEmpty ?? true {
                findings.append(Finding(
                    .install(.bundleVersionMissing(bundle: bundle.path)),
                    at: .archive(bundle.path + "/Info.plist")))
            }
            if let slices = executables[bundle.path], !slices.isEmpty, requiredCapabilities(bundle).contains("arm64"),
                !slices.contains(where: \.isARM64)
            {
                findings.append(Finding(
                    .install(.capabilityUnmet(bundle: bundle.path, capability: "arm64", architectures: slices.map(\.architecture.name))),
                    at: .archive(bundle.path + "/Info.plist")))
            }
        }
        return findings
    }

    /// `EXTENSION_ID_NOT_PREFIXED`: a nested app-like bundle's ID must start with its
    /// container's and a dot.
    static func prefixFindings(_ bundle: BundleInfo, parent: BundleInfo?) -> [Finding] {
        guard let parent, let identifier = bundle.bundleIdentifier, let parentID = parent.bundleIdentifier,
            !identifier.hasPrefix(parentID + ".")
        else { return [] }
        return [Finding(
            .profile(.extensionIDNotPrefixed(
                bundlePath: bundle.path, bundleIdentifier: identifier, kind: bundle.kind, containerKind: parent.kind,
                containerIdentifier: parentID)),
            at: .archive(bundle.path))]
    }

    /// A watch app must say it is one and name its companion.
    static func watchFindings(_ watch: BundleInfo, companion: BundleInfo) -> [Finding] {
        var findings: [Finding] = []
        let info = watch.info
        if info?["WKWatchKitApp"]?.bool != true && info?["WKApplication"]?.bool != true {
            findings.append(Finding(
                .install(.watchKitAppInvalid(bundle: watch.path)), at: .archive(watch.path + "/Info.plist")))
        }
        // A single-target watch app (WKApplication) may stand alone; a companion it names must be this app.
        let named = info?["WKCompanionAppBundleIdentifier"]?.string
        if let container = companion.bundleIdentifier, named != container, named != nil || info?["WKApplication"]?.bool != true {
            findings.append(Finding(
                .install(.watchCompanionMismatch(bundle: watch.path, value: named, container: container)),
                at: .archive(watch.path + "/Info.plist")))
        }
        return findings
    }

    /// Whether an extension names its extension point, as NSExtension (app extensions) or
    /// EXAppExtensionAttributes (ExtensionKit) does.
    static func declaresExtensionPoint(_ bundle: BundleInfo) -> Bool {
        let info = bundle.info
        if info?["NSExtension"]?.dictionary?["NSExtensionPointIdentifier"]?.string?.isEmpty == false { return true }
        return info?["EXAppExtensionAttributes"]?.dictionary?["EXExtensionPointIdentifier"]?.string?.isEmpty == false
    }

    /// `UIRequiredDeviceCapabilities` as names: an array of strings, or a dictionary whose true
    /// values are required.
    static func requiredCapabilities(_ bundle: BundleInfo) -> Set<String> {
        guard let value = bundle.info?["UIRequiredDeviceCapabilities"] else { return [] }
        if let items = value.array { return Set(items.compactMap(\.string)) }
        if let dictionary = value.dictionary { return Set(dictionary.filter { $0.value.bool == true }.map(\.key)) }
        return []
    }

    // MARK: The device asked about

    /// What installd refuses on the device of `options`: a development or ad hoc profile that
    /// does not list a `--device`, an App Store profile, an app that needs a later iOS than `--os`,
    /// and (iOS 11 and later) an app or extension executable without arm64 code. `profiles`: each
    /// app-like bundle's profile, by bundle path.
    public static func deviceFindings(
        _ archive: AppArchive, profiles: [String: ProvisioningProfile], executables: [String: [ExecutableSlice]],
        options: InstallOptions
    ) -> [Finding] {
        var findings: [Finding] = []
        let appLike = archive.allBundles.filter { $0.kind.needsProfile && $0.holdsCode }
        if !options.devices.isEmpty {
            for bundle in appLike {
                guard let profile = profiles[bundle.path] else { continue }
                let name = profile.name ?? "(unnamed)"
                switch profile.distribution {
                case .appstore:
                    findings.append(Finding(
                        .install(.appStoreProfile(bundle: bundle.path, profileName: name)), at: .archive(bundle.path)))
                case .enterprise:
                    continue
                default:
                    if profile.provisionsAllDevices { continue }
                    let listed = Set((profile.provisionedDevices ?? []).map { $0.lowercased() })
                    let missing = options.devices.filter { !listed.contains($0.lowercased()) }
                    if !missing.isEmpty {
                        findings.append(Finding(
                            .install(.devicesNotProvisioned(
                                bundle: bundle.path, profileName: name, kind: profile.distribution.rawValue, devices: missing,
                                provisioned: listed.count)),
                            at: .archive(bundle.path + "/embedded.mobileprovision")))
                    }
                }
            }
        }
        if let os = options.osVersion {
            let app = archive.app
            if let text = app.minimumOSVersion, let minimum = InstallOptions.OSVersion(text), os < minimum {
                findings.append(Finding(
                    .install(.osTooOld(bundle: app.path, minimum: minimum.description, os: os.description)),
                    at: .archive(app.path + "/Info.plist")))
            }
            if os.major >= 11 {
                for bundle in appLike {
                    guard let slices = executables[bundle.path], !slices.isEmpty, !slices.contains(where: \.isARM64),
                        let executable = bundle.executablePath
                    else { continue }
                    findings.append(Finding(
                        .install(.noARM64(executable: executable, architectures: slices.map(\.architecture.name), os: os.description)),
                        at: .archive(executable)))
                }
            }
        }
        return findings
    }

    // MARK: A signed app's embedded profiles

    /// What `verify` judges of a signed bundle's embedded profile beside its signature: in date at
    /// `date`, of the signature's team, and (the app's only, without `--device`) which devices it
    /// installs on.
    public static func signedProfileFindings(
        _ bundle: BundleInfo, profile: ProvisioningProfile, signingTeam: String?, at date: Date, isApp: Bool,
        options: InstallOptions
    ) -> [Finding] {
        var findings: [Finding] = []
        let name = profile.name ?? "(unnamed)"
        let path = bundle.path + "/embedded.mobileprovision"
        if profile.isExpired(at: date) {
            findings.append(Finding(
                .install(.profileExpired(bundle: bundle.path, profileName: name, expiration: profile.expirationDate)), at: .archive(path)))
        }
        if let team = profile.teamIdentifier, let signingTeam, team != signingTeam {
            findings.append(Finding(
                .install(.profileTeamMismatch(bundle: bundle.path, profileName: name, profileTeam: team, signingTeam: signingTeam)),
                at: .archive(path)))
        }
        if isApp && options.devices.isEmpty {
            findings.append(Finding(
                .install(.profileDevices(
                    bundle: bundle.path, profileName: name, kind: profile.distribution.rawValue,
                    provisionsAll: profile.provisionsAllDevices, count: profile.provisionedDevices?.count ?? 0)),
                at: .archive(path)))
        }
        return findings
    }
}
