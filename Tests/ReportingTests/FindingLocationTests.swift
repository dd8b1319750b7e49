import Foundation
@testable import Reporting
import Testing

/// A finding's location is an archive path or a file on disk: SARIF tells them apart by the kind,
/// and JSON, which writes only the path, reads the kind back in the one documented way.
@Suite struct FindingLocationTests {
    static let date = Date(timeIntervalSince1970: 1_767_225_600)
    static let profile = ProfileReference(name: "P", file: "dist.mobileprovision")

    /// The artifact URI and index of each result, in order.
    static func locations(_ findings: [Finding]) throws -> (uris: [String?], indexes: [Int?], artifacts: [String]) {
        var report = ReportJSONTests.report(judgedAt: nil, expiration: nil)
        report.findings = findings
        let text = try SARIFRendering.render(
            [ReportSubject(path: "/builds/a.ipa", name: "a.ipa", outcome: .report(report))], tool: Report.Tool(name: "ipawrap", version: "9.9"),
            catalogue: FindingCode.all)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let run = try #require((root["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        let artifactLocations = results.map { result in
            let location = (result["locations"] as? [[String: Any]])?.first
            return (location?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any]
        }
        let artifacts = (run["artifacts"] as? [[String: Any]] ?? []).compactMap { ($0["location"] as? [String: Any])?["uri"] as? String }
        return (artifactLocations.map { $0?["uri"] as? String }, artifactLocations.map { $0?["index"] as? Int }, artifacts)
    }

    @Test func sarifPlacesAnArchivePathInTheInputAndAFileOnDiskByItself() throws {
        let expired = FindingDetail.profile(.expired(profile: Self.profile, bundlePath: nil, expiration: Self.date))
        let located = try Self.locations([
            Finding(.icon(.notFound(appPath: "Payload/A.app")), at: .archive("Payload/A.app")),
            Finding(expired, at: .file("/profiles/dist.mobileprovision")),
            // A relative file given on the command line is a file, not a path inside the IPA.
            Finding(expired, at: .file("dist.mobileprovision")),
            Finding(expired),
        ])
        #expect(located.uris == ["Payload/A.app", "file:///profiles/dist.mobileprovision", "dist.mobileprovision", "file:///builds/a.ipa"])
        // The archive path is an artifact nested in the input's (index 1, after the input's 0); files have none.
        #expect(located.indexes == [1, nil, nil, 0])
        #expect(located.artifacts == ["file:///builds/a.ipa", "Payload/A.app"])
    }

    @Test func jsonWritesThePathAndReadsTheKindBackFromIt() throws {
        let expired = FindingDetail.profile(.expired(profile: Self.profile, bundlePath: nil, expiration: Self.date))
        for location in [FindingLocation.archive("Payload/A.app/embedded.mobileprovision"), .file("/profiles/dist.mobileprovision")] {
            let finding = Finding(expired, at: location)
            let data = try ReportJSON.encoder(.compact).encode(finding)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(json["path"] as? String == location.path)
            let read = try ReportJSON.decoder().decode(Finding.self, from: data)
            #expect(read == finding)
            #expect(read.location == location)
            #expect(read.findingCode == .profileExpired && read.severity == finding.severity && read.remedy == finding.remedy)
        }
        // The one guess: a relative path reads back as an archive path.
        #expect(FindingLocation(recordedPath: "dist.mobileprovision") == .archive("dist.mobileprovision"))
    }
}
