import AppBundle
import Reporting

/// Icon findings and the report's `icon` section (docs/commands.md, "`icon`: how the icon is found").
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
                .icon(.referenceMissing(
                    appPath: context.archive.app.path, source: missing.source, name: missing.name, candidates: missing.candidates)),
                at: .archive(context.archive.app.path + "/Info.plist")))
        }
        for unreadable in resolution.unreadable {
            report.findings.append(Finding(
                .icon(.unreadable(path: unreadable.path, reason: unreadable.reason)),
                at: .archive(unreadable.path)))
        }
        if resolution.icon == nil {
            report.findings.append(Finding(
                .icon(.notFound(appPath: context.archive.app.path)), at: .archive(context.archive.app.path)))
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
                .bundle(.platformUnsupported(appPath: context.archive.app.path, platform: context.platform)),
                at: .archive(context.archive.app.path)))
        }
        for bundle in context.archive.nestedBundles {
            if let reason = bundle.noCodeReason {
                report.findings.append(Finding(
                    .bundle(.noCode(bundlePath: bundle.path, kind: bundle.kind, reason: reason)),
                    at: .archive(bundle.path)))
            } else if let problem = bundle.infoPlistProblem {
                // An extension, watch app or app clip without one cannot be signed or installed.
                report.findings.append(Finding(
                    .bundle(.nestedBundleUnreadable(bundlePath: bundle.path, problem: problem.description)),
                    at: .archive(bundle.path + "/Info.plist"), severity: bundle.kind.needsProfile ? .error : nil))
            }
        }
        for bundle in context.archive.allBundles {
            let plistPath = bundle.path + "/Info.plist"
            if let problem = bundle.bundleIdentifierProblem, bundle.noCodeReason == nil {
                report.findings.append(Finding(
                    .bundle(.bundleIdentifierInvalid(bundlePath: bundle.path, problem: problem)),
                    at: .archive(plistPath)))
            }
            switch bundle.executableProblem {
            case nil:
                break
            case .notNamed? where bundle.kind.mayHoldNoCode:
                break  // BUNDLE_HAS_NO_CODE above
            case .notNamed?:
                report.findings.append(Finding(
                    .bundle(.executableNotNamed(bundlePath: bundle.path)), at: .archive(plistPath)))
            case .invalidName(let reason)?:
                report.findings.append(Finding(
                    .bundle(.executableInvalid(bundlePath: bundle.path, reason: reason)), at: .archive(plistPath)))
            case .fileMissing(let name, let path)? where bundle.kind == .framework && context.archive.entry(path) == nil
                && !context.isLoadedWithoutItsBinary(framework: bundle, executable: name):
                report.findings.append(Finding(.bundle(.codeMerged(bundlePath: bundle.path, name: name)), at: .archive(bundle.path)))
            case .fileMissing(let name, let path)?:
                report.findings.append(Finding(
                    .bundle(.executableFileMissing(bundlePath: bundle.path, name: name, path: path)),
                    at: .archive(path)))
            }
        }
    }
}
