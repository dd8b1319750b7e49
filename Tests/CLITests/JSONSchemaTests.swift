import Foundation
import Testing
import TestSupport

/// The JSON Schemas in `Templates/schema/` (draft 2020-12) against ipawrap's real output, with
/// Python's `jsonschema`. (Every `--json` and `--json-lines` run of the suite is validated too,
/// by `Command.ipawrap`; these tests show the schemas are strict enough to catch drift.)
@Suite(.enabled(if: JSONSchemaOracle.isEnabled, "needs jsonschema in the Python oracle (Scripts/test makes it)"))
struct JSONSchemaTests {
    static let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path

    private func sampleReport() throws -> [String: Any] {
        let result = try Command.ipawrap(["inspect", Self.sample, "--json", "--sha256", "--at", "2026-06-01"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    private func text(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func aReportWithAnUnknownOrMissingKeyIsRejected() throws {
        var report = try sampleReport()
        try JSONSchemaOracle.validate(try text(report), against: .report)

        report["extra"] = true
        #expect(throws: JSONSchemaOracle.Violation.self) { try JSONSchemaOracle.validate(try text(report), against: .report) }
        report["extra"] = nil
        var app = try #require(report["app"] as? [String: Any])
        app["bundleId"] = nil
        report["app"] = app
        #expect(throws: JSONSchemaOracle.Violation.self) { try JSONSchemaOracle.validate(try text(report), against: .report) }
    }

    @Test func aFindingWithAnUnknownSeverityIsRejected() throws {
        var report = try sampleReport()
        // The sample has no findings on that date: give it one, valid first, then with a bad severity.
        var finding: [String: Any] = ["code": "ICON_NOT_FOUND", "severity": "error", "message": "no icon"]
        report["findings"] = [finding]
        try JSONSchemaOracle.validate(try text(report), against: .report)
        finding["severity"] = "fatal"
        report["findings"] = [finding]
        let error = #expect(throws: JSONSchemaOracle.Violation.self) {
            try JSONSchemaOracle.validate(try text(report), against: .report)
        }
        #expect(error?.description.contains("findings/0/severity") == true, "\(String(describing: error))")
    }

    @Test func batchRecordsAndTheirErrorObjectsMatch() throws {
        let scratch = try ScratchDirectory("cli-schema")
        try scratch.write("apps/Broken.ipa", Array("not a zip archive".utf8))
        try FileManager.default.copyItem(atPath: Self.sample, toPath: scratch.path("apps/Sample.ipa"))
        // Command.ipawrap validates each line against batch-record.schema.json.
        let result = try Command.ipawrap(["batch", "check", scratch.path("apps"), "--json-lines", "--at", "2026-06-01"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stdout)")
        let records = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let failure = try #require(records.compactMap { $0["failure"] as? [String: Any] }.first)
        #expect(records.contains { $0["report"] is [String: Any] })
        // The single command's --json error object (validated by Command.ipawrap) has the same failure.
        let single = try Command.ipawrap(["inspect", scratch.path("apps/Broken.ipa"), "--json"])
        #expect(single.status == 65)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == failure["code"] as? String)
        object["input"] = nil
        #expect(throws: JSONSchemaOracle.Violation.self) { try JSONSchemaOracle.validate(try text(object), against: .error) }
    }
}
