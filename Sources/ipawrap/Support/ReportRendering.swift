import Foundation
import Reporting

/// How `wrap` and `sign` print their outcome (the renderers are `Reporting`'s).
enum ReportRendering {
    /// What `wrap` and `sign` print: the report (text or JSON), then `summary` when an output was
    /// written (on standard error beside JSON), else which error findings stopped it.
    static func printOutcome(_ report: Report, json: Bool, input: String, summary: String?, notDone: String) throws {
        if json {
            print(try ReportJSON.string(report))
        } else {
            print(TextRendering.report(report))
        }
        if let summary {
            if json { Terminal.standardError(summary) } else { print("\n" + summary) }
        } else {
            stoppedByFindings(input, report.findings, "\(notDone) because of", after: "; nothing was written")
        }
    }

    /// The code of the line every command that exits 1 on error findings prints last on stderr
    /// (`check`, `wrap`, `sign`, `verify`, `profile show --check`), so that a script greps one
    /// form, `ipawrap: error[CODE]: FILE: …`, for every failure.
    static let findingsCode = "ERROR_FINDINGS"

    /// `ipawrap: error[ERROR_FINDINGS]: FILE: <what> CODES<after>`, the error findings' codes
    /// once each, in the report's order.
    static func stoppedByFindings(_ input: String, _ findings: [Finding], _ what: String, after: String = "") {
        var codes: [String] = []
        for finding in findings where finding.severity == .error && !codes.contains(finding.code) {
            codes.append(finding.code)
        }
        Terminal.error(code: findingsCode, "\(input): \(what) \(codes.joined(separator: ", "))\(after)")
    }
}
