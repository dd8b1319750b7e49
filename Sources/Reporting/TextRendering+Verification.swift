import Foundation

extension TextRendering {
    /// `verify`'s report for people: each signed unit, innermost first, with its state and its
    /// signature's facts, then the findings. Strings from the archive (paths, identifiers, teams,
    /// certificate names) are escaped for the terminal.
    public static func verification(_ report: VerificationReport, style: Style = .standardOutput) -> String {
        var lines: [String] = [style.bold("Signatures") + "  \(escaped(report.input)), certificates judged at \(ReportJSON.timestamp(report.verifiedAt))"]
        for bundle in report.bundles {
            let signature = bundle.facts
            let state = !signature.signed ? style.red("unsigned") : bundle.intact ? style.green("intact") : style.red("broken")
            // Padded, never cut: `padding(toLength:)` truncates, and "executable" is one longer.
            let kind = bundle.kind.name
            var text = "  \(kind.padding(toLength: max(9, kind.count), withPad: " ", startingAt: 0)) \(escaped(bundle.path))  \(state)"
            if signature.signed {
                text += "  " + ((bundle.identifier.map { [escaped($0)] } ?? []) + signatureParts(signature)).joined(separator: ", ")
            }
            lines.append(text)
            if let certificate = signature.certificate {
                lines.append("            " + style.dim("signed by \(escaped(certificate.commonName ?? certificate.subject)), expires \(ReportJSON.timestamp(certificate.notValidAfter))"))
            }
        }
        lines.append("")
        // Messages quote file names from the archive: escaped like every human-readable output.
        lines.append(contentsOf: findings(report.findings, style: style))
        return lines.joined(separator: "\n")
    }
}
