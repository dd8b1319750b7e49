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
            let errors = report.findings.filter { $0.severity == .error }.map(\.code)
            Terminal.standardError("ipawrap: \(input): \(notDone) because of \(errors.joined(separator: ", ")); nothing was written")
        }
    }
}
