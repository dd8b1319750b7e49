import Foundation
import Testing
import TestSupport

/// `check` and `inspect` with profiles: the exit status, the report's `profiles[]` and the
/// options that give profiles (`--profile`, `--profile BUNDLE_ID=PATH`, `--profiles-dir`).
@Suite struct ProfileCheckCommandTests {
    static func fixture(_ fixture: ProfileBuilder.Fixture) -> [UInt8] {
        (try? ProfileBuilder.fixture(fixture)) ?? []
    }

    static func app(app: [UInt8]? = fixture(.app), share: [UInt8]? = fixture(.share), widget: [UInt8]? = fixture(.widget)) -> IPABuilder {
        var builder = IPABuilder(appName: "Sample", bundleIdentifier: "com.example.sample")
        builder.addPrimaryIcon()
        builder.profile = app
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested[builder.nested.count - 1].profile = share
        builder.addExtension("Widget", bundleIdentifier: "com.example.sample.widget")
        builder.nested[builder.nested.count - 1].profile = widget
        return builder
    }

    static func report(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func codes(_ report: [String: Any]) -> [String] {
        (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test func aCorrectlyProvisionedAppPassesAndListsItsProfiles() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let ipa = try scratch.write("Sample.ipa", try Self.app().bytes())
        let result = try Command.ipawrap(["check", ipa, "--json", "--at", "2026-06-01"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try Self.report(result.stdout)
        let profiles = try #require(report["profiles"] as? [[String: Any]])
        #expect(profiles.count == 3)
        let app = try #require(profiles.first)
        #expect(app["bundlePath"] as? String == "Payload/Sample.app")
        #expect(app["source"] as? String == "embedded")
        #expect(app["appIdentifier"] as? String == "ABCDE12345.com.example.sample")
        #expect(app["wildcard"] as? Bool == false)
        #expect(app["teamId"] as? String == "ABCDE12345")
        #expect(app["expirationDate"] as? String == "2036-01-01T00:00:00Z")
        #expect(app["kind"] as? String == "development")
        #expect(app["file"] as? String == "Payload/Sample.app/embedded.mobileprovision")

        let text = try Command.ipawrap(["check", ipa, "--at", "2026-06-01"])
        #expect(text.stdout.contains("Profile    Share.appex: ABCDE12345.com.example.sample.share, development"))
    }

    @Test func aMissingExtensionProfileFailsTheCheck() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let ipa = try scratch.write("Sample.ipa", try Self.app(widget: nil).bytes())
        let result = try Command.ipawrap(["check", ipa, "--at", "2026-06-01"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("PROFILE_MISSING: Payload/Sample.app/PlugIns/Widget.appex (com.example.sample.widget)"))
        // inspect reports the same finding but exits 0.
        #expect(try Command.ipawrap(["inspect", ipa, "--at", "2026-06-01"]).status == 0)
    }

    @Test func profilesFromOptionsAndAFolder() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let ipa = try scratch.write("Sample.ipa", try Self.app(app: nil, share: nil, widget: nil).bytes())
        try scratch.write("dir/app.mobileprovision", Self.fixture(.app))
        try scratch.write("dir/any.mobileprovision", Self.fixture(.wildcard))
        let share = try scratch.write("share.mobileprovision", Self.fixture(.share))
        let widget = try scratch.write("widget.mobileprovision", Self.fixture(.widget))
        let result = try Command.ipawrap([
            "check", ipa, "--json", "--at", "2026-06-01", "--profiles-dir", scratch.path("dir"),
            "--profile", "com.example.sample.share=\(share)", "--profile", "com.example.sample.widget=\(widget)",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let profiles = try #require(try Self.report(result.stdout)["profiles"] as? [[String: Any]])
        #expect(profiles.compactMap { $0["source"] as? String } == ["directory", "option", "option"])
        #expect(profiles.first?["file"] as? String == scratch.path("dir") + "/app.mobileprovision")

        // Without the options, the wildcard in the folder covers the extensions: an error…
        let wildcard = try Command.ipawrap(["check", ipa, "--json", "--at", "2026-06-01", "--profiles-dir", scratch.path("dir")])
        #expect(wildcard.status == 1)
        #expect(Self.codes(try Self.report(wildcard.stdout)).filter { $0 == "APP_ID_WILDCARD" }.count == 2)
        // …and a warning with --allow-wildcard.
        let allowed = try Command.ipawrap([
            "check", ipa, "--json", "--at", "2026-06-01", "--profiles-dir", scratch.path("dir"), "--allow-wildcard",
        ])
        #expect(allowed.status == 0, "\(allowed.stdout)")
    }

    @Test func profileOptionFilesThatCannotBeUsed() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let ipa = try scratch.write("Sample.ipa", try Self.app().bytes())
        let garbage = try scratch.write("garbage.mobileprovision", Array("garbage".utf8))
        let missing = scratch.path("missing.mobileprovision")

        let unreadable = try Command.ipawrap(["check", ipa, "--profile", missing])
        #expect(unreadable.status == 74)
        #expect(unreadable.stderr.hasPrefix("ipawrap: error[PROFILE_FILE_UNREADABLE]: \(missing)"))

        let notAProfile = try Command.ipawrap(["check", ipa, "--profile", "com.example.sample.share=\(garbage)"])
        #expect(notAProfile.status == 65)
        #expect(notAProfile.stderr.contains("error[PROFILE_"))
        #expect(notAProfile.stderr.contains(garbage))

        let noFolder = try Command.ipawrap(["inspect", ipa, "--profiles-dir", scratch.path("nope")])
        #expect(noFolder.status == 74)
        #expect(noFolder.stderr.contains("--profiles-dir"))
    }

    @Test func aDamagedEmbeddedProfileIsAFinding() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let damaged = Array(Self.fixture(.share).prefix(1_500))
        let ipa = try scratch.write("Sample.ipa", try Self.app(share: damaged).bytes())
        let inspect = try Command.ipawrap(["inspect", ipa, "--json", "--at", "2026-06-01"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try Self.report(inspect.stdout)
        let finding = try #require((report["findings"] as? [[String: Any]])?.first { $0["code"] as? String == "PROFILE_UNREADABLE" })
        #expect(finding["severity"] as? String == "error")
        #expect(finding["path"] as? String == "Payload/Sample.app/PlugIns/Share.appex/embedded.mobileprovision")
        #expect((finding["message"] as? String)?.contains("PROFILE_TRUNCATED") == true)
        #expect(try Command.ipawrap(["check", ipa, "--at", "2026-06-01"]).status == 1)
    }

    @Test func aSecondProfileForTheAppIsAUsageError() throws {
        let scratch = try ScratchDirectory("cli-profiles")
        let ipa = try scratch.write("Sample.ipa", try Self.app().bytes())
        let first = try scratch.write("first.mobileprovision", Self.fixture(.app))
        let second = try scratch.write("second.mobileprovision", Self.fixture(.app))
        for command in ["check", "inspect"] {
            let result = try Command.ipawrap([command, ipa, "--profile", first, "--profile", second])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("--profile PATH is given twice for the main app"), "\(result.stderr)")
            #expect(!result.stderr.contains("internal error"))
            #expect(result.stdout.isEmpty)
        }
    }
}
