import Foundation
@testable import Reporting
import Testing

/// The typed report's JSON: `@ExplicitNull` and the one date form.
@Suite struct ReportJSONTests {
    static func report(judgedAt: Date?, expiration: Date?) -> Report {
        var report = Report(
            tool: Report.Tool(name: "ipawrap", version: "1.0"),
            input: Report.Input(path: "a.ipa", size: 10, sha256: nil, entries: 2),
            app: Report.App(
                path: "Payload/A.app", bundleId: "com.example.a", name: nil, version: nil, build: nil, minimumOS: nil,
                infoPlistFormat: .binary, executable: nil, platform: .iPadOSOnly))
        report.bundles = [Report.Bundle(path: "Payload/A.app", kind: .app, bundleId: nil, version: nil)]
        report.profiles = [Report.Profile(
            bundlePath: "Payload/A.app", source: .directory, appIdentifier: nil, wildcard: false, teamId: nil,
            expirationDate: expiration, kind: .enterprise, file: nil)]
        report.judgedAt = judgedAt
        return report
    }

    private static func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try ReportJSON.encoder(.compact).encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func absentOptionalsAreNullNotLeftOut() throws {
        let json = try Self.object(Self.report(judgedAt: nil, expiration: nil))
        #expect(json["judgedAt"] is NSNull)
        #expect(json["icon"] is NSNull)
        let app = try #require(json["app"] as? [String: Any])
        for key in ["name", "version", "build", "minimumOS", "executable"] {
            #expect(app[key] is NSNull, "app.\(key)")
        }
        let input = try #require(json["input"] as? [String: Any])
        #expect(input["sha256"] is NSNull)
        let profile = try #require((json["profiles"] as? [[String: Any]])?.first)
        #expect(profile["expirationDate"] is NSNull)
        #expect(profile["file"] is NSNull)
        // Findings keep leaving out an absent path and remedy, as they always have.
        let finding = try Self.object(Finding(code: "X", severity: .info, message: "m"))
        #expect(Set(finding.keys) == ["code", "severity", "message"])
    }

    @Test func typedValuesAreWrittenAsTheirContractStrings() throws {
        let json = try Self.object(Self.report(judgedAt: Date(timeIntervalSince1970: 1_781_049_600.75), expiration: nil))
        #expect(json["judgedAt"] as? String == "2026-06-10T00:00:00Z")
        let app = try #require(json["app"] as? [String: Any])
        #expect(app["platform"] as? String == "iPadOS-only")
        #expect(app["infoPlistFormat"] as? String == "binary")
        #expect((json["bundles"] as? [[String: Any]])?.first?["kind"] as? String == "app")
        let profile = try #require((json["profiles"] as? [[String: Any]])?.first)
        #expect(profile["source"] as? String == "directory")
        #expect(profile["kind"] as? String == "enterprise")
    }

    @Test func aReportReadsBackEqual() throws {
        let report = Self.report(
            judgedAt: Date(timeIntervalSince1970: 1_781_049_600), expiration: Date(timeIntervalSince1970: 2_082_758_399))
        let data = try ReportJSON.encoder().encode(report)
        #expect(try ReportJSON.decoder().decode(Report.self, from: data) == report)
        // A key left out reads as nil, as a plain optional would.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["judgedAt"] = nil
        let trimmed = try JSONSerialization.data(withJSONObject: object)
        #expect(try ReportJSON.decoder().decode(Report.self, from: trimmed).judgedAt == nil)
    }

    @Test func datesAreWrittenToTheSecondInUTC() {
        #expect(ReportJSON.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ReportJSON.timestamp(Date(timeIntervalSince1970: 1.999)) == "1970-01-01T00:00:01Z")
        #expect(ReportJSON.timestamp(Date(timeIntervalSince1970: 2_082_758_399)) == "2035-12-31T23:59:59Z")
    }
}
