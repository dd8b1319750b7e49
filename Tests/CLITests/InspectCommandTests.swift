import Foundation
import Testing
import TestSupport

@Suite struct InspectCommandTests {
    private func sampleApp() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.addSymlink("Default.png", to: "AppIcon60x60@2x.png")
        return builder
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theJSONReportHasEveryRequiredField() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        let path = try scratch.write("Sample.ipa", sampleApp().bytes())
        let result = try Command.ipawrap(["inspect", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(Set(report.keys) == ["schemaVersion", "tool", "input", "app", "icon", "bundles", "sdks", "profiles", "findings", "judgedAt"])
        #expect(report["schemaVersion"] as? Int == 2)
        let tool = try #require(report["tool"] as? [String: Any])
        #expect(Set(tool.keys) == ["name", "version"])
        let input = try #require(report["input"] as? [String: Any])
        #expect(Set(input.keys) == ["path", "size", "sha256", "entries", "rootItems"])
        #expect(input["sha256"] is NSNull)
        #expect(input["rootItems"] as? [String] == [])
        let app = try #require(report["app"] as? [String: Any])
        #expect(Set(app.keys) == ["path", "bundleId", "name", "version", "build", "minimumOS", "infoPlistFormat", "executable", "platform"])
        #expect(app["platform"] as? String == "iOS")
        #expect(app["bundleId"] as? String == "com.example.sample")
        #expect(app["infoPlistFormat"] as? String == "xml")
        let executable = try #require(app["executable"] as? [String: Any])
        #expect(Set(executable.keys) == ["path", "architectures", "encrypted", "minOS", "sdk", "linkedLibraries"])
        #expect(executable["architectures"] as? [String] == ["arm64"])
        #expect(executable["encrypted"] as? Bool == false)
        #expect(executable["minOS"] as? String == "15.0")
        let icon = try #require(report["icon"] as? [String: Any])
        #expect(Set(icon.keys) == ["path", "source", "width", "height", "format", "trace"])
        #expect(icon["source"] as? String == "CFBundleIcons")
        #expect(icon["format"] as? String == "cgbi")
        let bundles = try #require(report["bundles"] as? [[String: Any]])
        #expect(bundles.map { $0["kind"] as? String } == ["app", "framework", "appex"])
        #expect(bundles.allSatisfy { Set($0.keys) == ["path", "kind", "bundleId", "version", "signature"] })
    }

    @Test func itemsBesideTheAppAreReported() throws {
        var builder = sampleApp()
        builder.rootFiles["SwiftSupport/iphoneos/libswiftCore.dylib"] = .init(data: [0xCA, 0xFE, 0xBA, 0xBE], mode: 0o100755)
        builder.rootFiles["Symbols/0A1B2C3D.symbols"] = .init(data: [0], mode: 0o100644)
        builder.rootFiles["iTunesMetadata.plist"] = .init(data: Array("<plist/>".utf8), mode: 0o100644)
        builder.rootFiles["META-INF/com.apple.ZipMetadata.plist"] = .init(data: Array("<plist/>".utf8), mode: 0o100644)
        let scratch = try ScratchDirectory("cli-inspect")
        let path = try scratch.write("Sample.ipa", builder.bytes())
        let expected = ["META-INF/", "SwiftSupport/", "Symbols/", "iTunesMetadata.plist"]
        let result = try Command.ipawrap(["inspect", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let input = try #require(try json(result.stdout)["input"] as? [String: Any])
        #expect(input["rootItems"] as? [String] == expected)
        let text = try Command.ipawrap(["inspect", path])
        #expect(text.stdout.contains("Beside app " + expected.joined(separator: ", ")), "\(text.stdout)")
    }

    @Test func sha256IsComputedOnRequest() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        let bytes = try sampleApp().bytes()
        let path = try scratch.write("Sample.ipa", bytes)
        let result = try Command.ipawrap(["inspect", path, "--json", "--sha256"])
        let input = try #require(try json(result.stdout)["input"] as? [String: Any])
        let expected = try Command.run("sha256sum", [path]).stdout.split(separator: " ").first.map(String.init)
        #expect(input["sha256"] as? String == expected)
    }

    @Test func theSameInputGivesTheSameJSON() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        let path = try scratch.write("Sample.ipa", sampleApp().bytes())
        // With --at, byte for byte; without, only `judgedAt` differs (RealAppTests).
        let first = try Command.ipawrap(["inspect", path, "--json", "--at", "2026-06-01"]).stdout
        let second = try Command.ipawrap(["inspect", path, "--json", "--at", "2026-06-01"]).stdout
        #expect(first == second)
        #expect(first.contains("\"judgedAt\" : \"2026-06-01T00:00:00Z\""), "\(first)")
    }

    @Test func checkExitsOneOnAnErrorFinding() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        let good = try scratch.write("Good.ipa", sampleApp().bytes())
        let noIcon = try scratch.write("NoIcon.ipa", IPABuilder().bytes())
        #expect(try Command.ipawrap(["check", good]).status == 0)
        let failed = try Command.ipawrap(["check", noIcon])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("ICON_NOT_FOUND"))
        #expect(!failed.stdout.contains("\u{1B}["))  // NO_COLOR and not a terminal
        // inspect reports the same finding but succeeds.
        #expect(try Command.ipawrap(["inspect", noIcon]).status == 0)
    }

    @Test func badInputsGiveSixtyFiveAndMissingFilesSeventyFour() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        try Self.expectRefused(try scratch.write("NotAnApp.ipa", HostileArchives.notAnApp()), scratch: scratch)
    }

    /// The same with a zip another project made, isign's `NotAnApp.ipa` (`../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func isignsNotAnAppGivesSixtyFive() throws {
        let scratch = try ScratchDirectory("cli-inspect")
        try Self.expectRefused(IsignFixture.path("NotAnApp.ipa"), scratch: scratch)
    }

    static func expectRefused(_ notAnApp: String, scratch: ScratchDirectory) throws {
        let before = try Fixtures.bytesAt(notAnApp)
        for command in ["inspect", "check", "icon"] {
            var arguments = [command, notAnApp]
            if command == "icon" { arguments += ["-o", scratch.path("icon.png")] }
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 65)
            #expect(result.stderr.contains("error[ARCHIVE_NO_APP]"))
            let missing = try Command.ipawrap([command, scratch.path("absent.ipa")] + arguments.dropFirst(2))
            #expect(missing.status == 74)
        }
        #expect(scratch.listing().allSatisfy { $0 == "NotAnApp.ipa" })
        #expect(try Fixtures.bytesAt(notAnApp) == before)
    }

    @Test func iconWritesAStandardPNGThatAnIndependentDecoderAccepts() throws {
        let scratch = try ScratchDirectory("cli-icon")
        let path = try scratch.write("Sample.ipa", sampleApp().bytes())
        let output = scratch.path("icon.png")
        let result = try Command.ipawrap(["icon", path, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("180x180"))
        #expect(result.stdout.contains("AppIcon60x60@3x.png"))
        let oracle = try Command.run("python3", [Fixtures.path("png/oracle.py"), output, scratch.path("icon.rgba")])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        #expect(!oracle.stdout.contains("CgBI"))
        #expect(try Fixtures.bytesAt(scratch.path("icon.rgba")).count == 180 * 180 * 4)

        let none = try Command.ipawrap(["icon", try scratch.write("NoIcon.ipa", IPABuilder().bytes()), "-o", scratch.path("none.png")])
        #expect(none.status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("none.png")))
    }
}
