import AppBundle
import Checks
import Foundation

/// Renders reports: JSON for pipelines (sorted keys, so the same report gives the same bytes),
/// and a short text form for people.
enum ReportRendering {
    static func json(_ report: Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self)
    }

    static func text(_ report: Report, style: Style = .standardOutput) -> String {
        var lines: [String] = []
        let app = report.app
        let name = app.name ?? app.path.split(separator: "/").last.map(String.init) ?? app.path
        var title = style.bold(name)
        if let id = app.bundleId { title += "  \(id)" }
        if let version = app.version { title += "  \(version)" + (app.build.map { " (\($0))" } ?? "") }
        let platform = AppPlatform(rawValue: app.platform) ?? .iOS
        if let minimum = app.minimumOS {
            title += "  \(platform.osName) \(minimum)+" + (platform == .iPadOSOnly ? " (iPad only)" : "")
        } else if platform != .iOS {
            title += "  \(platform.rawValue)"
        }
        lines.append(title)
        lines.append(row("Archive", "\(report.input.path), \(report.input.entries) entries, \(report.input.size) bytes"
            + (report.input.sha256.map { ", sha256 \($0)" } ?? "")))
        lines.append(row("App", "\(app.path) (Info.plist: \(app.infoPlistFormat))"))
        if !report.input.rootItems.isEmpty {
            lines.append(row("Beside app", report.input.rootItems.joined(separator: ", ")))
        }
        if let executable = app.executable {
            var text = "\(executable.path.split(separator: "/").last ?? "")  \(executable.architectures.joined(separator: ", "))"
            if let minOS = executable.minOS { text += "  min \(platform.osName) \(minOS)" }
            if executable.minOS != nil { text += ", SDK \(executable.sdk ?? "unknown")" }
            text += executable.encrypted ? "  " + style.red("App Store encrypted") : "  not encrypted"
            lines.append(row("Executable", text))
        }
        if let icon = report.icon {
            lines.append(row("Icon", "\(icon.path)  \(icon.width)x\(icon.height) \(icon.format), from \(icon.source)"))
        } else {
            lines.append(row("Icon", style.red("none")))
        }
        let nested = report.bundles.filter { $0.kind != "app" }
        lines.append(row("Bundles", nested.isEmpty ? "no nested bundles" : "\(nested.count) nested"))
        for bundle in nested {
            lines.append("    \(bundle.kind.padding(toLength: 9, withPad: " ", startingAt: 0)) \(bundle.path)"
                + (bundle.bundleId.map { "  \($0)" } ?? "") + (bundle.version.map { "  \($0)" } ?? ""))
        }
        if !report.sdks.isEmpty {
            lines.append(row("SDKs", report.sdks.map { "\($0.framework) \($0.version ?? "?") (\($0.family))" }.joined(separator: ", ")))
        }
        for profile in report.profiles {
            var text = "\(profile.bundlePath.split(separator: "/").last ?? ""): \(profile.appIdentifier ?? "?")"
            if let kind = profile.kind { text += ", \(kind)" }
            if let expiry = profile.expirationDate { text += ", expires \(expiry)" }
            text += " (\(profile.source))"
            lines.append(row("Profile", text))
        }
        lines.append("")
        lines.append(contentsOf: findings(report.findings, style: style))
        return lines.joined(separator: "\n")
    }

    static func findings(_ findings: [Finding], style: Style) -> [String] {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.filter { $0.severity == .warning }.count
        var lines = [style.bold("Findings: ") + (findings.isEmpty ? style.green("none")
            : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")]
        for finding in findings {
            let label: String = switch finding.severity {
            case .error: style.red("error  ")
            case .warning: style.yellow("warning")
            case .info: style.dim("info   ")
            }
            lines.append("  \(label) \(style.bold(finding.code)): \(finding.message)")
            if let remedy = finding.remedy { lines.append("          " + style.dim("→ " + remedy)) }
        }
        return lines
    }

    private static func row(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 11, withPad: " ", startingAt: 0) + value
    }
}
