import AppBundle
import Crypto
import FormatSupport
import Foundation
import IPAArchive
import Installation
import Reporting
import Verification
import ToolData
import Zip

/// The result of inspecting an IPA: the report, and the model it was built from (so `wrap` can
/// use it without reading the archive again).
public struct Inspection {
    public let report: Report
    public let archive: AppArchive
    public let icon: IconResolution
    /// The profile each bundle was judged with (what `sign` signs it with).
    public let profileAssignments: [ProfileAssignment]
}

/// Builds the report of `inspect`, `check` and `wrap`: reads the bundle model, resolves the icon
/// and runs every check area in a fixed order, so the same input gives the same report.
public enum Inspector {
    public static func inspect(
        path: String, options: CheckOptions = CheckOptions(), toolData: ToolData, limits: ArchiveLimits = .default,
        folderPacking: AppFolder.Packing = .stored, tool: Report.Tool
    ) throws -> Inspection {
        try inspect(
            IPAArchive(path: path, limits: limits, folderPacking: folderPacking), path: path, options: options, toolData: toolData,
            tool: tool)
    }

    /// Inspects an archive already opened from `path` (`wrap` starts copying it meanwhile).
    public static func inspect(
        _ opened: IPAArchive, path: String, options: CheckOptions = CheckOptions(), toolData: ToolData, tool: Report.Tool
    ) throws -> Inspection {
        let archive = try AppArchive(archive: opened)
        let icon = archive.resolveIcon()
        try archive.checkLimits()
        let context = CheckContext(archive: archive, options: options, toolData: toolData, icon: icon)
        let digest = options.computeSHA256 ? try sha256(of: archive.archive.zip) : nil
        var report = Report(
            tool: tool,
            input: Report.Input(
                path: path, size: archive.archive.zip.fileSize, sha256: digest,
                entries: archive.archive.zip.entries.count, rootItems: archive.rootItems),
            app: appSection(context))
        IconChecks.apply(context, to: &report)
        BundleChecks.apply(context, to: &report)
        BinaryChecks.apply(context, to: &report)
        report.bundles = archive.allBundles.map { bundle in
            Report.Bundle(
                path: bundle.path, kind: bundle.kind, bundleId: bundle.bundleIdentifier, version: bundle.shortVersion,
                signature: context.signatureReading(of: bundle).summary)
        }
        try archive.checkLimits()
        let assignments = try ProfileChecks.apply(context, to: &report)
        // What a device would refuse: in the bundles always, for the device of --device/--os when given.
        let slices = context.executableSlices()
        report.findings += InstallRules.bundleFindings(archive, executables: slices)
        let profiles = Dictionary(assignments.map { ($0.bundle.path, $0.profile) }, uniquingKeysWith: { first, _ in first })
        report.findings += InstallRules.deviceFindings(archive, profiles: profiles, executables: slices, options: options.install)
        if !report.profiles.isEmpty || context.options.evaluationDate != nil {
            // To the second, as it is written.
            report.judgedAt = Date(timeIntervalSince1970: context.now.timeIntervalSince1970.rounded(.down))
        }
        // A limit hit by a read that became a finding refuses the input all the same.
        try archive.checkLimits()
        if options.purpose == .signing {
            for index in report.findings.indices where report.findings[index].severity == .error {
                if report.findings[index].findingCode?.isWrappingRule == true {
                    report.findings[index].severity = .warning
                }
            }
        }
        report.findings.sort(by: Finding.reportOrder)
        return Inspection(report: report, archive: archive, icon: icon, profileAssignments: assignments)
    }

    private static func appSection(_ context: CheckContext) -> Report.App {
        let app = context.archive.app
        var executable: Report.Executable?
        if let path = app.executablePath, case .success(let file)? = context.executable(of: app) {
            let slice = file.slices.first
            executable = Report.Executable(
                path: path, architectures: file.architectureNames,
                encrypted: file.slices.contains { $0.isEncrypted },
                minOS: slice?.buildVersion?.minimumOS.description,
                // Old linkers stored sdk 0 in LC_VERSION_MIN_IPHONEOS: unknown, not "0.0".
                sdk: slice?.buildVersion.flatMap { $0.sdk.rawValue == 0 ? nil : $0.sdk.description },
                linkedLibraries: slice?.linkedLibraries.map(\.path) ?? [])
        }
        return Report.App(
            path: app.path, bundleId: app.bundleIdentifier, name: app.displayName, version: app.shortVersion,
            build: app.buildVersion, minimumOS: app.minimumOSVersion,
            infoPlistFormat: app.infoPlist?.format ?? .xml, executable: executable,
            platform: context.platform)
    }

    /// SHA-256 of the whole input file, read in large chunks.
    static func sha256(of zip: ZipArchive) throws -> String {
        var hasher = SHA256()
        let source = try FileByteSource(path: zip.path)
        var offset: UInt64 = 0
        while offset < source.size {
            try zip.checkLimits()
            let count = Int(min(UInt64(8 << 20), source.size - offset))
            hasher.update(data: try source.read(offset: offset, count: count))
            offset += UInt64(count)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
