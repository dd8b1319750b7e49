import Foundation
@testable import Reporting
import Testing
import Verification

/// `verify --json` reports `Reporting.Finding`s, written with every key (docs/commands.md, `verify`):
/// `path` and `remedy` are `null` when absent, where the inspect/check report leaves them out.
@Suite("verify's JSON findings")
struct VerificationReportJSONTests {
    static let pathless = Finding(.signatureTeamMismatch, message: "Payload/A.app is signed by team B")
    static let bare = Finding(code: "SIGNATURE_AD_HOC", severity: .info, message: "signed ad hoc")

    static func report(_ findings: [Finding]) -> VerificationReport {
        VerificationReport(input: "A.ipa", verifiedAt: Date(timeIntervalSince1970: 1_767_312_000), bundles: [], findings: findings)
    }

    @Test func absentPathAndRemedyAreWrittenAsNull() throws {
        let json = try ReportJSON.string(Self.report([Self.bare]))
        #expect(json == """
            {
              "bundles" : [

              ],
              "findings" : [
                {
                  "code" : "SIGNATURE_AD_HOC",
                  "installError" : null,
                  "message" : "signed ad hoc",
                  "path" : null,
                  "remedy" : null,
                  "severity" : "info"
                }
              ],
              "input" : "A.ipa",
              "schemaVersion" : 2,
              "verifiedAt" : "2026-01-02T00:00:00Z"
            }
            """)
    }

    @Test func everyKeyIsPresentAndTheReportReadsBack() throws {
        let report = Self.report([Self.pathless, Self.bare, Finding(.signatureSealBroken, message: "changed", path: "Payload/A.app/x")])
        let data = Data(try ReportJSON.string(report).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.map { Set($0.keys) } == Array(repeating: ["code", "severity", "message", "path", "remedy", "installError"], count: 3))
        // The device's error where one is known (a broken seal: 0xe8008017), else null.
        #expect((findings[2]["installError"] as? [String: Any])?["code"] as? String == "0xe8008017")
        #expect(findings[1]["installError"] is NSNull)
        #expect(findings[0]["path"] is NSNull)
        #expect(findings[0]["remedy"] as? String == FindingCode.signatureTeamMismatch.remedy)
        #expect(findings[2]["path"] as? String == "Payload/A.app/x")
        #expect(try ReportJSON.decoder().decode(VerificationReport.self, from: data) == report)
    }

    @Test func theCheckReportStillLeavesThemOut() throws {
        let json = try ReportJSON.string(Self.bare)
        #expect(!json.contains("path") && !json.contains("remedy") && !json.contains("installError"))
    }
}
