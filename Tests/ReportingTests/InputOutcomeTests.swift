import Foundation
@testable import Reporting
import Testing

/// Each shape of `InputOutcome` as the CI renderers write it: a report's findings, a failure
/// alone, and a failure after a report (its JSON or output could not be written).
@Suite("InputOutcome rendered")
struct InputOutcomeTests {
    static let catalogue: [(name: String, codes: [FindingCode])] = [
        ("alpha", [FindingCode("ALPHA_BROKEN", .error, summary: "alpha is broken", remedy: "Mend alpha.")]),
    ]
    static let failure = InputFailure(code: "OUTPUT_WRITE_FAILED", message: "cannot write out/a.json")

    static func report() -> Report {
        var report = ReportJSONTests.report(judgedAt: nil, expiration: nil)
        report.findings = [Finding(code: "ALPHA_BROKEN", severity: .error, message: "alpha is broken", remedy: "Mend alpha.")]
        return report
    }

    static func subject(_ outcome: InputOutcome) -> ReportSubject {
        ReportSubject(path: "/builds/a.ipa", name: "a.ipa", outcome: outcome)
    }

    @Test func theTwoOptionalsOfARecordAreOneOutcome() {
        let report = Self.report()
        #expect(InputOutcome(report: report, failure: nil) == .report(report))
        #expect(InputOutcome(report: nil, failure: Self.failure) == .failure(Self.failure))
        #expect(InputOutcome(report: report, failure: Self.failure) == .failedAfterReport(report, Self.failure))
        #expect(InputOutcome(report: nil, failure: nil) == nil)
        for outcome in [InputOutcome.report(report), .failure(Self.failure), .failedAfterReport(report, Self.failure)] {
            #expect(InputOutcome(report: outcome.report, failure: outcome.failure) == outcome)
        }
    }

    static func junit(_ outcome: InputOutcome) -> String {
        JUnitRendering.render([subject(outcome)], command: "check", catalogue: catalogue)
    }

    @Test func junitWritesAReportByArea() {
        #expect(Self.junit(.report(Self.report())) == """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="ipawrap check" tests="1" failures="1" errors="0">
              <testsuite name="a.ipa" tests="1" failures="1" errors="0" skipped="0">
                <testcase name="alpha" classname="a.ipa">
                  <failure type="ALPHA_BROKEN" message="ALPHA_BROKEN: alpha is broken">error ALPHA_BROKEN: alpha is broken → Mend alpha.</failure>
                </testcase>
              </testsuite>
            </testsuites>

            """)
    }

    @Test func junitWritesAFailureAsTheArchiveCaseWithOrWithoutAReport() {
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="ipawrap check" tests="1" failures="0" errors="1">
              <testsuite name="a.ipa" tests="1" failures="0" errors="1" skipped="0">
                <testcase name="archive" classname="a.ipa">
                  <error type="OUTPUT_WRITE_FAILED" message="cannot write out/a.json">OUTPUT_WRITE_FAILED: cannot write out/a.json</error>
                </testcase>
              </testsuite>
            </testsuites>

            """
        #expect(Self.junit(.failure(Self.failure)) == expected)
        #expect(Self.junit(.failedAfterReport(Self.report(), Self.failure)) == expected)
    }

    /// The codes of SARIF's results and of its notifications, and whether the run succeeded.
    static func sarif(_ outcome: InputOutcome) throws -> (results: [String], notifications: [String], successful: Bool?) {
        let text = try SARIFRendering.render(
            [subject(outcome)], tool: Report.Tool(name: "ipawrap", version: "9.9"), catalogue: catalogue.flatMap(\.codes))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let run = try #require((root["runs"] as? [[String: Any]])?.first)
        let results = (run["results"] as? [[String: Any]] ?? []).compactMap { $0["ruleId"] as? String }
        let invocation = (run["invocations"] as? [[String: Any]])?.first
        let notifications = (invocation?["toolExecutionNotifications"] as? [[String: Any]] ?? [])
            .compactMap { ($0["descriptor"] as? [String: Any])?["id"] as? String }
        return (results, notifications, invocation?["executionSuccessful"] as? Bool)
    }

    @Test func sarifWritesEachShape() throws {
        let report = try Self.sarif(.report(Self.report()))
        #expect(report.results == ["ALPHA_BROKEN"] && report.notifications.isEmpty && report.successful == true)
        let failure = try Self.sarif(.failure(Self.failure))
        #expect(failure.results.isEmpty && failure.notifications == ["OUTPUT_WRITE_FAILED"] && failure.successful == false)
        // A failure after the report: the report's results stay, and the failure is a notification.
        let both = try Self.sarif(.failedAfterReport(Self.report(), Self.failure))
        #expect(both.results == ["ALPHA_BROKEN"] && both.notifications == ["OUTPUT_WRITE_FAILED"] && both.successful == false)
    }
}
