import Batch
import Checks
import Foundation
@testable import Reporting
import Testing

@Suite struct BatchSummaryTests {
    private func result(_ exit: Int32, findings: [Severity] = []) -> BatchResult {
        var report = Report(
            tool: .init(name: "ipawrap", version: "t"), input: .init(path: "a", size: 1, sha256: nil, entries: 1),
            app: .init(path: "Payload/A.app", bundleId: nil, name: nil, version: nil, build: nil, minimumOS: nil,
                       infoPlistFormat: .xml, executable: nil))
        report.findings = findings.map { Finding(code: "X_\($0.rawValue.uppercased())", severity: $0, message: "m") }
        return BatchResult(input: BatchInput(path: "a.ipa", name: "a.ipa"), exitCode: exit,
                           outcome: exit == 65 ? .failure(.init(code: "ARCHIVE_CORRUPT", message: "bad")) : .report(report),
                           output: nil, seconds: 0.5)
    }

    @Test func statusFollowsTheExitCodeThenTheFindings() {
        #expect(result(0).status == .ok)
        #expect(result(0, findings: [.info]).status == .ok)
        #expect(result(0, findings: [.warning, .info]).status == .findings)
        #expect(result(0, findings: [.error]).status == .findings, "inspect reports errors without failing")
        #expect(result(1, findings: [.error]).status == .failed)
        #expect(result(65).status == .failed)
        let counted = result(1, findings: [.error, .error, .warning, .info])
        #expect((counted.errors, counted.warnings, counted.infos) == (2, 1, 1))
    }

    @Test func theBatchFailsWhenAnyInputFails() {
        var summary = BatchSummary(total: 4)
        summary.add(result(0))
        summary.add(result(0, findings: [.warning]))
        #expect(summary.exitCode == 0)
        summary.add(result(65))
        summary.add(result(1, findings: [.error]))
        #expect(summary.exitCode == 1)
        #expect(summary.finished == 4)
        #expect(summary.line(elapsed: 2) == "4 inputs: 1 ok, 1 with findings, 2 failed (1 exit 1, 1 exit 65) in 2.0 s, 2.0/s")
        var interrupted = BatchSummary(total: 10)
        interrupted.add(result(0))
        #expect(interrupted.line(elapsed: 90, interrupted: true)
            == "interrupted after 1 of 10 inputs: 1 ok, 0 with findings, 0 failed in 1 min 30 s, 0.7/min; 9 not done (unfinished outputs were discarded)")
    }

    static let run = BatchRun(
        command: "check", tool: .init(name: "ipawrap", version: "t"), evaluationDate: nil, options: ["--out-dir": ["out"]],
        inputs: [BatchInput(path: "a.ipa", name: "a.ipa")], shard: nil, shardInputs: 1)

    @Test func recordsAreOneLineOfJSONWithEveryKey() throws {
        let line = try BatchRecord(result(65), run: Self.run).jsonLine()
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(Set(object.keys) == ["schemaVersion", "input", "name", "index", "status", "exitCode", "errors", "warnings", "infos",
                                     "seconds", "output", "failure", "report", "signed", "icon", "run"])
        #expect(object["report"] is NSNull)
        #expect(object["signed"] is NSNull && object["icon"] is NSNull)
        #expect(object["status"] as? String == "failed")
        #expect((object["failure"] as? [String: Any])?["code"] as? String == "ARCHIVE_CORRUPT")
        let run = try #require(object["run"] as? [String: Any])
        #expect(Set(run.keys) == ["command", "tool", "evaluationDate", "options", "inputs", "inputsDigest", "shard", "shardInputs"])
        #expect(run["shard"] is NSNull)
        let decoded = try ReportJSON.decoder().decode(BatchRecord.self, from: Data(line))
        #expect(decoded == BatchRecord(result(65), run: Self.run))
        // Read back, the record is the result it was written from.
        #expect(BatchRecord(try #require(decoded.result), run: Self.run) == decoded)
    }

    @Test func progressFitsTheTerminalAndColoursOnlyTheFailures() {
        var progress = ProgressLine(total: 120)
        progress.finished = 7
        progress.failed = 2
        progress.running = ["Alpha.ipa", "team/Beta.ipa"]
        #expect(progress.render(elapsed: 0.2, width: 80) == "[  7/120] 2 failed · Alpha.ipa, team/Beta.ipa")
        #expect(progress.render(elapsed: 3.5, width: 80) == "[  7/120] 2 failed · 2.0/s · ETA 57 s · Alpha.ipa, team/Beta.ipa")
        let narrow = progress.render(elapsed: 3.5, width: 30)
        #expect(narrow.count == 29)
        #expect(narrow.hasSuffix("…"))
        #expect(progress.render(elapsed: 0, width: 80, colour: { "<\($0)>" }) == "[  7/120] <2 failed> · Alpha.ipa, team/Beta.ipa")
        progress.failed = 0
        #expect(progress.render(elapsed: 0, width: 80, colour: { "<\($0)>" }) == "[  7/120] · Alpha.ipa, team/Beta.ipa")
    }

    @Test func durationsAndRatesReadNaturally() {
        #expect(ProgressLine.duration(0.42) == "0.4 s")
        #expect(ProgressLine.duration(12.4) == "12 s")
        #expect(ProgressLine.duration(185) == "3 min 5 s")
        #expect(ProgressLine.duration(7260) == "2 h 1 min")
        #expect(ProgressLine.duration(.infinity) == "?")
        #expect(ProgressLine.rate(3.14) == "3.1/s")
        #expect(ProgressLine.rate(0.5) == "30.0/min")
    }
}
