import AppBundle

/// Icon findings and the report's `icon` section (README, "`icon`: how the icon is found").
enum IconChecks {
    static func apply(_ context: CheckContext, to report: inout Report) {
        let resolution = context.icon
        if let icon = resolution.icon {
            report.icon = Report.Icon(
                path: icon.path, source: icon.source.rawValue, width: icon.width, height: icon.height,
                format: icon.format.rawValue, trace: resolution.trace)
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

/// Findings about the bundles themselves.
enum BundleChecks {
    static func apply(_ context: CheckContext, to report: inout Report) {
        for bundle in context.archive.nestedBundles {
            if let problem = bundle.infoPlistProblem {
                report.findings.append(Finding(
                    .nestedBundleUnreadable, message: "\(bundle.path): \(problem)", path: bundle.path + "/Info.plist"))
            }
        }
    }
}
