import Batch
import Foundation
@testable import Reporting
import Testing
import XMLSupport

/// A batch input's `InputOutcome` through JSON lines (written and read back by `batch report`)
/// and the HTML report: a report, a failure, and a failure after the report.
@Suite struct BatchOutcomeTests {
    static let input = BatchMergeTests.inputs[0]
    static let failure = InputFailure(code: "OUTPUT_WRITE_FAILED", message: "cannot write /out/App1.json")

    static func report() -> Report {
        HTMLReportTests.report(
            name: "App1", id: "com.example.one",
            findings: [Finding(code: "ICON_NOT_FOUND", severity: .error, message: "no icon", remedy: "Add one.")])
    }

    static func outcomes() -> [InputOutcome] {
        [.report(report()), .failure(failure), .failedAfterReport(report(), failure)]
    }

    static func result(_ outcome: InputOutcome, input: BatchInput = input) -> BatchResult {
        BatchResult(input: input, exitCode: outcome.failure == nil ? 1 : 74, outcome: outcome, output: nil, seconds: 0.5)
    }

    @Test func eachShapeIsWrittenAndReadBack() throws {
        let run = BatchMergeTests.run(nil)
        for outcome in Self.outcomes() {
            let line = try BatchRecord(Self.result(outcome), run: run).jsonLine()
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            // The two keys stay, each null when its part is absent.
            #expect((object["report"] is NSNull) == (outcome.report == nil))
            #expect((object["failure"] is NSNull) == (outcome.failure == nil))
            let record = try ReportJSON.decoder().decode(BatchRecord.self, from: Data(line))
            #expect(record.outcome == outcome)
            #expect(record.result?.outcome == outcome)
        }
    }

    @Test func aRecordWithNeitherIsNotBatchOutput() throws {
        var record = BatchRecord(Self.result(.failure(Self.failure)), run: BatchMergeTests.run(nil))
        record.failure = nil
        #expect(record.outcome == nil && record.result == nil)
        let error = try BatchMergeTests.refusal([try record.jsonLine()])
        #expect("\(String(describing: error))".contains("its report and failure are both null"))
    }

    @Test func theHTMLReportListsTheFailureThenTheReportsFindings() throws {
        let results = zip(Self.outcomes(), BatchMergeTests.inputs).map { Self.result($0, input: $1) }
        let page = HTMLReportTests.page(results)
        let root = try #require(try XMLDocument(bytes: Array(page.utf8)).root)
        let rows = try #require(HTMLReportTests.tbody(root)).children.filter { $0.name == "tr" }
        let codes = rows.map { row in
            row.children.filter { $0.name == "td" && $0.attribute("class") == "findings" }
                .flatMap { HTMLReportTests.elements($0, named: "code").map(HTMLReportTests.allText) }
        }
        #expect(codes == [
            ["ICON_NOT_FOUND"],
            ["OUTPUT_WRITE_FAILED"],
            ["OUTPUT_WRITE_FAILED", "ICON_NOT_FOUND"],
        ])
    }
}
