import AppBundle
import FormatSupport
import Foundation

/// The report for people: a short text form, control characters escaped so an app's strings
/// cannot rewrite the terminal. Reads the typed report only; colour comes from `Style`.
public enum TextRendering {
    /// The report for people. Every string from the app (names, paths, messages quoting
    /// Info.plist values) has its control characters escaped where it is written, so it cannot
    /// rewrite the terminal; the report's own enums and numbers need none.
    public static func report(_ report: Report, style: Style = .standardOutput) -> String {
        let e = escaped as (String) -> String
        var lines: [String] = []
        let app = report.app
        var title = style.bold(e(app.displayName))
        if let id = app.bundleId { title += "  \(e(id))" }
        if let version = app.version { title += "  \(e(version))" + (app.build.map { " (\(e($0)))" } ?? "") }
        let platform = app.platform
        if let minimum = app.minimumOS {
            title += "  \(platform.osName) \(e(minimum))+" + (platform == .iPadOSOnly ? " (iPad only)" : "")
        } else if platform != .iOS {
            title += "  \(platform.rawValue)"
        }
        lines.append(title)
        lines.append(row("Archive", "\(e(report.input.path)), \(report.input.entries) entries, \(report.input.size) bytes"
            + (report.input.sha256.map { ", sha256 \($0)" } ?? "")))
        lines.append(row("App", "\(e(app.path)) (Info.plist: \(app.infoPlistFormat.rawValue))"))
        if !report.input.rootItems.isEmpty {
            lines.append(row("Beside app", e(report.input.rootItems.joined(separator: ", "))))
        }
        if let executable = app.executable {
            var text = "\(e(String(executable.path.split(separator: "/").last ?? "")))  \(e(executable.architectures.joined(separator: ", ")))"
            if let minOS = executable.minOS { text += "  min \(platform.osName) \(e(minOS))" }
            if executable.minOS != nil { text += ", SDK \(e(executable.sdk ?? "unknown"))" }
            text += executable.encrypted ? "  " + style.red("App Store encrypted") : "  not encrypted"
            lines.append(row("Executable", text))
        }
        if let icon = report.icon {
            lines.append(row("Icon", "\(e(icon.path))  \(icon.width)x\(icon.height) \(icon.format.rawValue), from \(icon.source.rawValue)"))
        } else {
            lines.append(row("Icon", style.red("none")))
        }
        if let signature = report.bundles.first(where: { $0.kind == .app })?.signature {
            lines.append(row("Signature", describe(signature)))
        }
        let nested = report.bundles.filter { $0.kind != .app }
        lines.append(row("Bundles", nested.isEmpty ? "no nested bundles" : "\(nested.count) nested"))
        for bundle in nested {
            lines.append("    \(bundle.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(e(bundle.path))"
                + (bundle.bundleId.map { "  \(e($0))" } ?? "") + (bundle.version.map { "  \(e($0))" } ?? "")
                + (bundle.signature.map { "  (\(describe($0)))" } ?? ""))
        }
        if !report.sdks.isEmpty {
            lines.append(row("SDKs", e(report.sdks.map { "\($0.framework) \($0.version ?? "?") (\($0.family))" }.joined(separator: ", "))))
        }
        for profile in report.profiles {
            var text = e("\(profile.bundlePath.split(separator: "/").last ?? ""): \(profile.appIdentifier ?? "?")")
            if let kind = profile.kind { text += ", \(kind.rawValue)" }
            if let expiry = profile.expirationDate { text += ", expires \(ReportJSON.timestamp(expiry))" }
            text += " (\(profile.source.rawValue))"
            lines.append(row("Profile", text))
        }
        lines.append("")
        lines.append(contentsOf: findings(report.findings, style: style))
        return lines.joined(separator: "\n")
    }

    /// The findings block: a count, then each finding and its remedy, escaped for the terminal.
    public static func findings(_ findings: [Finding], style: Style) -> [String] {
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
            lines.append("  \(label) \(style.bold(escaped(finding.code))): \(escaped(finding.message))")
            if let remedy = finding.remedy { lines.append("          " + style.dim("→ " + escaped(remedy))) }
            if let error = finding.installError {
                lines.append("          " + style.dim("device: \(escaped(error.code)) \(escaped(error.message))"))
            }
        }
        return lines
    }

    /// "signed, team T, cdhash …, SHA-256, by CN (expires …)", "ad hoc, cdhash …" or "unsigned",
    /// escaped for the terminal.
    public static func describe(_ signature: SignatureFacts) -> String {
        guard signature.signed else { return "unsigned" }
        var parts = signatureParts(signature)
        if let certificate = signature.certificate {
            parts.append("by \(escaped(certificate.subject)) (expires \(ReportJSON.timestamp(certificate.notValidAfter)))")
        }
        return (signature.adHoc ? "" : "signed, ") + parts.joined(separator: ", ")
    }

    /// "team T" or "ad hoc", then "cdhash …" and the hash types ("SHA-1+SHA-256"), escaped.
    static func signatureParts(_ signature: SignatureFacts) -> [String] {
        var parts = [signature.adHoc ? "ad hoc" : "team \(escaped(signature.teamId ?? "?"))"]
        if let cdhash = signature.cdhash { parts.append("cdhash \(cdhash)") }
        if !signature.hashTypes.isEmpty { parts.append(signature.hashTypes.joined(separator: "+")) }
        return parts
    }

    /// "  label      value", the label padded to `width`.
    static func row(_ label: String, _ value: String, width: Int = 11) -> String {
        "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + value
    }

    /// `text` safe to print on a terminal: C0 and C1 control characters and DEL (escape
    /// sequences, bells, carriage returns, line breaks) shown as `\u{1B}`, so an app's strings
    /// cannot rewrite the user's terminal or forge lines; and a path's bytes that are not UTF-8
    /// (`PathEncoding`) as `\xFF`.
    public static func escaped(_ text: String) -> String {
        let text = PathEncoding.displayed(text)
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
