@testable import Checks
import Foundation
import Reporting
import Testing
import TestSupport

/// Findings carry their facts as typed values (`FindingDetail`), and their message is computed
/// from them; JSON writes the message, and a finding read back says the same.
@Suite struct FindingDetailTests {
    private typealias S = ProfileScenario

    @Test func anExpiredProfileFindingCarriesTheProfileAndItsDateAsValues() throws {
        let report = try S.inspect(S.app(app: S.fixture(.expired)))
        let finding = try #require(report.findings("PROFILE_EXPIRED").first)
        guard case .profile(.expired(let profile, let bundlePath, let expiration)) = finding.detail else {
            Issue.record("PROFILE_EXPIRED has the detail \(finding.detail)")
            return
        }
        #expect(bundlePath == S.appPath)
        #expect(profile.file == S.appPath + "/embedded.mobileprovision")
        #expect(expiration == report.profile(for: S.appPath)?.expirationDate)
        #expect(expiration < S.now)
        #expect(finding.message == "\(profile) for \(S.appPath) expired on \(ReportJSON.timestamp(expiration))")
    }

    @Test func theMessageIsComputedFromTheFacts() {
        let profile = ProfileReference(name: "Sample", file: "a.mobileprovision")
        let expiry = S.date("2026-06-10T12:00:00Z")
        func expiring(_ days: Int) -> Finding {
            Finding(.profile(.expiring(profile: profile, bundlePath: nil, expiration: expiry, days: days)))
        }
        #expect(expiring(0).message == "profile 'Sample' (a.mobileprovision) expires on 2026-06-10T12:00:00Z, in less than a day")
        #expect(expiring(1).message.hasSuffix(", in 1 day"))
        #expect(expiring(9).message.hasSuffix(", in 9 days"))
        #expect(ProfileReference(name: nil, file: "b.mobileprovision").description == "profile b.mobileprovision")
        let encrypted = Finding(.binary(.encrypted(binaryPath: "Payload/A.app/A", architectures: ["arm64", "armv7"])))
        #expect(encrypted.message.hasPrefix("Payload/A.app/A: the arm64, armv7 slices are App Store encrypted"))
        #expect(encrypted.severity == FindingCode.appEncrypted.severity)
        #expect(encrypted.remedy == FindingCode.appEncrypted.remedy)
    }

    @Test func jsonWritesTheMessageAndAFindingReadBackSaysTheSame() throws {
        let finding = Finding(
            .wrapping(.alreadyWrapped(appPath: "Payload/A.app", policyFolder: "MDXPolicy.bundle")),
            at: .archive("Payload/A.app/MDXPolicy.bundle"))
        let data = try ReportJSON.encoder(.compact).encode(finding)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["code", "severity", "message", "path", "remedy"])
        #expect(json["message"] as? String == "Payload/A.app already holds MDXPolicy.bundle")
        let read = try ReportJSON.decoder().decode(Finding.self, from: data)
        #expect(read == finding)
        // Read back, the facts are gone but the code is the catalogue's again.
        guard case .recorded(let recorded) = read.detail else {
            Issue.record("a finding read back has the detail \(read.detail)")
            return
        }
        #expect(recorded.message == "Payload/A.app already holds MDXPolicy.bundle")
        #expect(read.findingCode == .alreadyWrapped && read.findingCode?.remedy == FindingCode.alreadyWrapped.remedy)
    }

    @Test func signatureFindingsNameTheCodeAndListTheFirstDifferences() {
        let code = CodeReference(path: "Payload/A.app/A", architecture: "arm64")
        let directory = CodeDirectoryReference(hashType: "SHA-256", slot: 0x1000)
        let pages = Finding(
            .signature(.pagesDiffer(code: code, directory: directory, pages: Array(0..<7), pageCount: 40)))
        #expect(pages.message == "Payload/A.app/A (arm64): 7 of 40 code pages differ from the SHA-256 CodeDirectory (slot 0x1000) (page 0, 1, 2, 3, 4, …)")
        let swapped = SignatureDetail.nestedCodeSwapped(
            bundle: "Payload/A.app", nested: "Frameworks/K.framework", differences: ["a", "b", "c", "d", "e"])
        #expect(swapped.message == "Payload/A.app: Frameworks/K.framework is validly signed but is not the code this bundle sealed (a; b; c; 2 more)")
        #expect(SignatureDetail.teamMismatch(bundle: "Payload/A.app/PlugIns/E.appex", team: "T1", appTeam: nil).message
            == "Payload/A.app/PlugIns/E.appex is signed by team T1, the app by team ?")
        #expect(CodeReference(path: "Payload/A.app/A").description == "Payload/A.app/A")
    }
}
