import Checks
import FormatSupport
import Foundation
import ProvisioningProfile
import Reporting
import Testing
import TestSupport

/// `ProfileSet`: the profiles of `--profile` and `--profiles-dir`, read once for a whole run,
/// with the limits and codes a profile file always had.
struct ProfileSetTests {
    typealias S = ProfileScenario

    @Test func everyInspectionAssignsTheLoadedBytesWithoutReadingAgain() throws {
        let checked = S.fixture(.app)
        let folder = try S.folder(["app.mobileprovision": checked, "notes.txt": Array("not a profile".utf8)])
        let profiles = try ProfileSet(directory: folder.path)
        #expect(profiles.directoryProfiles.map(\.path) == [folder.path("app.mobileprovision")])
        #expect(profiles.directoryProfiles.first?.bytes == checked)
        // Gone before any input is inspected: a batch's inputs are judged with what was loaded.
        try FileManager.default.removeItem(atPath: folder.path)

        let scratch = try ScratchDirectory("profile-set")
        for name in ["A.ipa", "B.ipa"] {
            let input = try scratch.write(name, S.app(app: nil).bytes())
            let inspection = try Inspector.inspect(
                path: input, options: CheckOptions(profiles: profiles, evaluationDate: S.now), toolData: BinaryFixture.shippedData(),
                tool: Report.Tool(name: "ipawrap", version: "test"))
            let app = try #require(inspection.profileAssignments.first { $0.bundle.path == S.appPath })
            #expect(app.source == .directory)
            #expect(app.bytes == checked)
            // An embedded profile stays: signing keeps the one in the archive.
            #expect(inspection.profileAssignments.filter { $0.source == .embedded }.allSatisfy { $0.bytes == nil })
            #expect(inspection.report.profile(for: S.appPath)?.file == folder.path("app.mobileprovision"))
        }
    }

    @Test func aPathGivenTwiceIsOneLoadedProfile() throws {
        let folder = try S.folder(["app.mobileprovision": S.fixture(.app)])
        let path = folder.path("app.mobileprovision")
        let profiles = try ProfileSet(appProfile: path, bundleProfiles: [S.appID: path])
        #expect(profiles.app?.path == path)
        #expect(profiles.byBundleID[S.appID]?.bytes == profiles.app?.bytes)
        #expect(!profiles.isEmpty && ProfileSet().isEmpty)
    }

    @Test func aFileOverTheSizeLimitIsRefusedBeforeItIsRead() throws {
        let folder = try S.folder(["large.mobileprovision": [UInt8](repeating: 0x30, count: ProvisioningProfile.maximumSize + 1)])
        let error = #expect(throws: ProfileError.self) {
            try ProfileSet(bundleProfiles: [S.appID: folder.path("large.mobileprovision")])
        }
        #expect(error?.code == "PROFILE_TOO_LARGE")
        #expect(error?.category == .invalidInput)
        #expect(error?.description.contains("large.mobileprovision") == true)
    }
}
