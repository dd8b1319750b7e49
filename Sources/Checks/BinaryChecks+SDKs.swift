import AppBundle
import Reporting
import ToolData

/// The management SDKs of the catalog in the app: `sdks[]`, the MDX version findings, static
/// linking, two management SDKs in one app, and Intune multi-identity.
struct SDKDetection {
    let catalog: SDKCatalog
    let context: CheckContext
    let binaries: [BinaryEvidence]

    /// A catalog framework bundle found in the app.
    struct FoundFramework {
        let family: SDKCatalog.Family
        /// The bundle name without `.framework`.
        let name: String
        let bundle: BundleInfo
        var version: String? { bundle.shortVersion }
    }

    func apply(toolkitVersion: ToolkitVersion, to report: inout Report) {
        let frameworks = foundFrameworks()
        report.sdks = frameworks.map { found in
            Report.SDK(family: found.family.name, framework: found.name, version: found.version, path: found.bundle.path)
        }
        var present: [(family: SDKCatalog.Family, evidence: [String])] = []
        for family in catalog.families {
            let ownFrameworks = frameworks.filter { $0.family.name == family.name }
            let statics = staticBinaries(of: family, frameworks: ownFrameworks)
            if family.matchesToolkitVersion {
                versionFindings(family, frameworks: ownFrameworks, toolkit: toolkitVersion, to: &report)
                for (binary, classes) in statics {
                    report.findings.append(Finding(
                        .binary(.sdkStatic(
                            binaryPath: binary.path, family: family.name, classes: classes, toolkit: toolkitVersion)),
                        at: .archive(binary.path)))
                }
            }
            let evidence = self.evidence(of: family, frameworks: ownFrameworks, statics: statics)
            if !evidence.isEmpty { present.append((family, evidence)) }
        }
        let management = present.filter(\.family.isManagement)
        if management.count >= 2 {
            report.findings.append(Finding(
                .binary(.multipleManagementSDKs(
                    appPath: context.archive.app.path,
                    families: management.map { BinaryDetail.SDKEvidence(family: $0.family.name, evidence: $0.evidence) })),
                at: .archive(context.archive.app.path)))
        }
        multiIdentity(to: &report)
    }

    /// Catalog frameworks among the nested bundles, in path order.
    func foundFrameworks() -> [FoundFramework] {
        context.archive.nestedBundles.compactMap { bundle -> FoundFramework? in
            guard bundle.kind == .framework, let name = Self.frameworkName(bundle),
                let family = catalog.family(ofFramework: name)
            else { return nil }
            return FoundFramework(family: family, name: name, bundle: bundle)
        }
        .sorted { $0.bundle.path < $1.bundle.path }
    }

    /// `X` for a bundle folder `X.framework`.
    static func frameworkName(_ bundle: BundleInfo) -> String? {
        let folder = bundle.folderName
        guard folder.hasSuffix(".framework"), folder.count > ".framework".count else { return nil }
        return String(folder.dropLast(".framework".count))
    }

    /// Binaries that define the family's classes without being one of its frameworks: the SDK
    /// is linked into them.
    private func staticBinaries(of family: SDKCatalog.Family, frameworks: [FoundFramework]) -> [(BinaryEvidence, [String])] {
        let ownPaths = Set(frameworks.map(\.bundle.path))
        return binaries.compactMap { binary in
            guard !ownPaths.contains(binary.bundle.path) else { return nil }
            let classes = family.markerClasses.filter { binary.definedClasses.contains($0) }
            return classes.isEmpty ? nil : (binary, classes)
        }
    }

    /// `SDK_VERSION_MISMATCH`, `SDK_VERSION_UNKNOWN` and `SDK_VERSION_INCONSISTENT`.
    private func versionFindings(
        _ family: SDKCatalog.Family, frameworks: [FoundFramework], toolkit: ToolkitVersion, to report: inout Report
    ) {
        var versions: [(FoundFramework, SDKVersion)] = []
        for found in frameworks {
            guard let text = found.version, let version = SDKVersion(text) else {
                report.findings.append(Finding(
                    .binary(.sdkVersionUnknown(
                        frameworkPath: found.bundle.path, family: family.name, version: found.version, toolkit: toolkit)),
                    at: .archive(found.bundle.path)))
                continue
            }
            versions.append((found, version))
            if version != toolkit.version {
                report.findings.append(Finding(
                    .binary(.sdkVersionMismatch(
                        frameworkPath: found.bundle.path, family: family.name, version: text, toolkit: toolkit)),
                    at: .archive(found.bundle.path)))
            }
        }
        if Set(versions.map(\.1)).count > 1 {
            report.findings.append(Finding(
                .binary(.sdkVersionInconsistent(
                    appPath: context.archive.app.path, family: family.name,
                    frameworks: versions.map { BinaryDetail.FrameworkVersion(name: $0.0.name, version: $0.0.version) })),
                at: .archive(context.archive.app.path)))
        }
    }

    /// Why the family counts as present, for messages: frameworks, static or imported classes,
    /// linked framework paths and Info.plist keys.
    private func evidence(
        of family: SDKCatalog.Family, frameworks: [FoundFramework], statics: [(BinaryEvidence, [String])]
    ) -> [String] {
        var evidence = frameworks.map { "\($0.bundle.path)" + ($0.version.map { " \($0)" } ?? "") }
        for (binary, classes) in statics {
            evidence.append("\(binary.path) defines \(classes.joined(separator: ", "))")
        }
        let linkedNames = Set(family.frameworks.map { "\($0).framework/\($0)" })
        for binary in binaries {
            let classes = family.markerClasses.filter { binary.referencedClasses[$0] != nil }
            if !classes.isEmpty, frameworks.isEmpty {
                evidence.append("\(binary.path) uses \(classes.joined(separator: ", "))")
            }
            if frameworks.isEmpty,
                let linked = binary.linkedLibraries.first(where: { path in linkedNames.contains { path.hasSuffix("/" + $0) } })
            {
                evidence.append("\(binary.path) links \(linked)")
            }
        }
        for bundle in context.archive.allBundles where bundle.kind != .framework {
            for key in family.infoPlistKeys where bundle.info?[key] != nil {
                evidence.append("\(bundle.path)/Info.plist has \(key)")
            }
        }
        return evidence
    }

    /// `INTUNE_MULTI_IDENTITY` for every bundle whose Info.plist sets it.
    private func multiIdentity(to report: inout Report) {
        for bundle in context.archive.allBundles where bundle.kind != .framework {
            guard let settings = bundle.info?["IntuneMAMSettings"]?.dictionary,
                settings["MultiIdentity"]?.lenientBool == true
            else { continue }
            report.findings.append(Finding(
                .binary(.intuneMultiIdentity(bundlePath: bundle.path)),
                at: .archive(bundle.path + "/Info.plist")))
        }
    }
}
