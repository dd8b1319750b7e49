import AppBundle
import PropertyList
import Reporting
import ToolData

/// App Transport Security findings from the settings (`ATSSettings`, in Reporting) of each bundle.
extension ATSSettings {
    /// A bundle's `NSAppTransportSecurity`, read as iOS reads it (`YES`, `1` and `true` count); nil
    /// when Info.plist has none.
    init?(_ info: PropertyListDictionary?) {
        guard let ats = info?["NSAppTransportSecurity"]?.dictionary else { return nil }
        let present = Self.scopedKeys.map(\.key).filter { ats[$0] != nil }
        self.init(
            allowsArbitraryLoads: ats["NSAllowsArbitraryLoads"]?.lenientBool ?? false, scopedKeysPresent: present,
            scopedKeysEnabled: present.filter { ats[$0]?.lenientBool == true })
    }

    /// `ATS_ARBITRARY_LOADS` or `ATS_WEB_CONTENT_ONLY` for the app and every extension, watch app
    /// and app clip (frameworks' Info.plists do not configure ATS).
    static func apply(_ context: CheckContext, binaries: [BinaryEvidence], to report: inout Report) {
        for bundle in context.archive.allBundles where bundle.kind != .framework {
            guard let settings = ATSSettings(bundle.info) else { continue }
            let minimum = minimumOSMajor(bundle, context: context)
            // The detail names the code (ARBITRARY_LOADS or WEB_CONTENT_ONLY) from the same lift.
            guard settings.lift(minimumMajor: minimum) != nil else { continue }
            report.findings.append(Finding(
                .binary(.appTransportSecurity(bundlePath: bundle.path, settings: settings, minimumMajor: minimum)),
                at: .archive(bundle.path + "/Info.plist")))
        }
    }

    /// The deployment target's major version: `MinimumOSVersion`, else the executable's
    /// `LC_BUILD_VERSION`/`LC_VERSION_MIN_IPHONEOS`.
    static func minimumOSMajor(_ bundle: BundleInfo, context: CheckContext) -> Int? {
        if let text = bundle.minimumOSVersion, let version = SDKVersion(text) { return version.major }
        if case .success(let file)? = context.executable(of: bundle),
            let minimum = file.slices.lazy.compactMap(\.buildVersion).first?.minimumOS
        {
            return minimum.major
        }
        return nil
    }
}
