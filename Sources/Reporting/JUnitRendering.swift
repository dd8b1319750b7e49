import XMLSupport

/// Renders reports as JUnit XML (`--report-format junit`), for CI test-result views: one
/// testsuite per IPA, one testcase per area of checks (the finding catalogue's areas), a failure
/// for each testcase with error findings (all of them, with remedies, in its text), warnings and
/// notes as its system-out; an input that could not be read is one testcase `archive` with an
/// error. A pure function of its inputs: the same reports give the same bytes.
public enum JUnitRendering {
    /// `command` is `check` or `wrap`: the wrap area is a testcase only for `wrap`. `catalogue`
    /// is every code by area (`FindingCode.areas`).
    public static func render(_ subjects: [ReportSubject], command: String, catalogue: [(name: String, codes: [FindingCode])]) -> String {
        var areaOfCode: [String: String] = [:]
        for (area, codes) in catalogue {
            for code in codes where areaOfCode[code.rawValue] == nil { areaOfCode[code.rawValue] = area }
        }
        // The areas the command runs: `signature` codes come from `verify` alone, `wrap` ones from wrap.
        let areas = catalogue.map(\.name).filter { $0 != "signature" && (command == "wrap" || $0 != "wrap") }
        var suites: [String] = []
        var totals = (tests: 0, failures: 0, errors: 0)
        for subject in subjects {
            var cases: [String] = []
            var failures = 0
            var errors = 0
            // A failure is the one testcase, `archive`, even after a report: the input did not pass.
            switch subject.outcome {
            case .failure(let failure), .failedAfterReport(_, let failure):
                errors = 1
                cases.append(
                    "    <testcase name=\"archive\" classname=\(attribute(subject.name))>\n"
                        + "      <error type=\(attribute(failure.code)) message=\(attribute(failure.message))>"
                        + MarkupText.escaped("\(failure.code): \(failure.message)") + "</error>\n"
                        + "    </testcase>")
            case .report(let report):
                var byArea: [String: [Finding]] = [:]
                for finding in report.findings {
                    byArea[areaOfCode[finding.code] ?? "other", default: []].append(finding)
                }
                let named = areas + (byArea["other"] == nil ? [] : ["other"])
                for area in named {
                    let findings = byArea[area] ?? []
                    let failing = findings.filter { $0.severity == .error }
                    var text = "    <testcase name=\(attribute(area)) classname=\(attribute(subject.name))>\n"
                    if let first = failing.first {
                        failures += 1
                        let message = failing.count == 1 ? "\(first.code): \(first.message)"
                            : "\(failing.count) errors: " + failing.map(\.code).joined(separator: ", ")
                        text += "      <failure type=\(attribute(first.code)) message=\(attribute(message))>"
                            + MarkupText.escaped(failing.map(describe).joined(separator: "\n")) + "</failure>\n"
                    }
                    let others = findings.filter { $0.severity != .error }
                    if !others.isEmpty {
                        text += "      <system-out>" + MarkupText.escaped(others.map(describe).joined(separator: "\n"))
                            + "</system-out>\n"
                    }
                    cases.append(text + "    </testcase>")
                }
            }
            totals.tests += cases.count
            totals.failures += failures
            totals.errors += errors
            suites.append(
                "  <testsuite name=\(attribute(subject.name)) tests=\"\(cases.count)\" failures=\"\(failures)\" "
                    + "errors=\"\(errors)\" skipped=\"0\">\n" + cases.joined(separator: "\n") + "\n  </testsuite>")
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<testsuites name=\(attribute("ipawrap \(command)")) tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" "
            + "errors=\"\(totals.errors)\">\n"
            + suites.map { $0 + "\n" }.joined()
            + "</testsuites>\n"
    }

    /// `error CODE at PATH: message → remedy`, one line.
    private static func describe(_ finding: Finding) -> String {
        var line = "\(finding.severity.rawValue) \(finding.code)"
        if let path = finding.path { line += " at \(path)" }
        line += ": \(finding.message)"
        if let remedy = finding.remedy { line += " → \(remedy)" }
        return line
    }

    private static func attribute(_ value: String) -> String {
        "\"" + MarkupText.escaped(value) + "\""
    }
}
