import AppBundle
import Reporting

/// Icon findings and the report's `icon` section (README, "`icon`: how the icon is found").
enum IconChecks {
    static func apply(_ context: CheckContext, to report: inout Report) {
        let resolution = context.icon
        if let icon = resolution.icon {
            report.icon = Report.Icon(
                path: icon.path, source: icon.source, width: icon.width, height: icon.height,
                format: icon.format, trace: resolution.trace)
        }
        for missing in resolution.missingReferences {
            report.findings.append(Finding(
                .iconReferenceMissing,
                message: "Info.plist (\(missing.source.rawValue)) names the icon '\(missing.name)', but no file "
                    + "matching it is in \(context.archive.app.path)/ (looked for \(missing.candidates.prefix(4).joined(separator: ", ")), …)",
                path: context.archive.app.path + "/Info.plist"))
        }
        for unreadable in resolution.unreadable {
            report.findings.append(Finding(
                .iconUnreadable, message: "\(unreadable.path) cannot be used as the icon: \(unreadable.reason)",
                path: unreadable.path))
        }
        if resolution.icon == nil {
            report.findings.append(Finding(
                .iconNotFound,
                message: "\(context.archive.app.path) has no usable app icon; the trace in the report lists every "
                    + "place that was searched",
                path: context.archive.app.path))
        }
    }
}

/// Findings about the bundles themselves: an unreadable nested Info.plist, an unusable bundle ID,
/// and a main executable that is missing or named wrongly (without one, the binary checks have
/// nothing to read, so this says so instead of passing silently).
enum BundleChecks {
    static func apply(_ context: CheckContext, to report: inout Report) {
        if !context.platform.isWrappable {
            report.findings.append(Finding(
                .platformUnsupported,
                message: "\(context.archive.app.path) is a \(context.platform.rawValue) app; MDX wrapping is for iOS and "
                    + "iPadOS apps only, so the iOS checks below do not apply as they would there",
                path: context.archive.app.path))
        }
        for bundle in context.archive.nestedBundles {
            if let problem = bundle.infoPlistProblem {
                report.findings.append(Finding(
                    .nestedBundleUnreadable, message: "\(bundle.path): \(problem)", path: bundle.path + "/Info.plist"))
            }
        }
        for bundle in context.archive.allBundles {
            let plistPath = bundle.path + "/Info.plist"
            if let problem = bundle.bundleIdentifierProblem {
                report.findings.append(Finding(
                    .bundleIdentifierInvalid, message: "\(bundle.path): \(problem) in its Info.plist", path: plistPath))
            }
            switch bundle.executableProblem {
            case nil:
                break
            case .notNamed?:
                report.findings.append(Finding(
                    .executableMissing,
                    message: "\(bundle.path): its Info.plist names no main executable (CFBundleExecutable is missing); "
                        + "its binary checks (encryption, SDKs) cannot run",
                    path: plistPath))
            case .invalidName(let reason)?:
                report.findings.append(Finding(
                    .executableInvalid, message: "\(bundle.path): \(reason); its binary checks cannot run", path: plistPath))
            case .fileMissing(let name, let path)?:
                report.findings.append(Finding(
                    .executableMissing,
                    message: "\(bundle.path): CFBundleExecutable names '\(name)', but \(path) is not a file in the bundle "
                        + "(nor a symlink to one inside it); "
                        + "its binary checks (encryption, SDKs) cannot run",
                    path: path))
            }
        }
    }
}
