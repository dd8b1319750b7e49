import Foundation
import PropertyList
import Testing
import TestSupport

/// The binary checks through the command line: the SDK gate of `check`, `--toolkit-version`, the
/// Templates folder's toolkit version and SDK catalog, and their errors.
@Suite struct BinaryCheckCommandTests {
    /// An app with an icon and an MDX framework of `version`.
    static func mdxApp(version: String) throws -> [UInt8] {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.dylibs.append(.init("@rpath/CTXMAMCore.framework/CTXMAMCore")) }
        var info = IPABuilder.infoPlist(name: "CTXMAMCore", bundleIdentifier: "com.citrix.mam.core", version: version, packageType: "FMWK")
        info["CFBundleDisplayName"] = nil
        builder.nested.append(.init(
            path: "Frameworks/CTXMAMCore.framework", info: info,
            executable: IPABuilder.executable(fileType: 6) { $0.installName = .init("@rpath/CTXMAMCore.framework/CTXMAMCore") }))
        return try builder.bytes()
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func codes(_ report: [String: Any]) -> [String] {
        (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    static func hasErrors(_ report: [String: Any]) -> Bool {
        (report["findings"] as? [[String: Any]] ?? []).contains { $0["severity"] as? String == "error" }
    }

    /// A catalog unlike the shipped one: it knows one SDK, OtherKit, and not the MDX frameworks.
    static let otherCatalog = """
        {"FormatVersion": 1, "Families": [{"Name": "Other", "Management": true, "MatchesToolkitVersion": true,
          "Frameworks": ["OtherKit"], "MarkerClasses": [], "InfoPlistKeys": []}]}
        """

    /// A copy of the checkout's Templates folder, to change one file.
    static func templatesCopy(in scratch: ScratchDirectory) throws -> String {
        let target = scratch.path("Templates")
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot.appendingPathComponent("Templates").path, toPath: target)
        return target
    }

    @Test func checkFailsOnAnSDKThatDoesNotMatchTheToolkit() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        let result = try Command.ipawrap(["check", input, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect(Self.codes(report).contains("SDK_VERSION_MISMATCH"))
        let sdks = try #require(report["sdks"] as? [[String: Any]])
        #expect(sdks.count == 1)
        #expect(sdks.first?["family"] as? String == "Citrix MDX")
        #expect(sdks.first?["framework"] as? String == "CTXMAMCore")
        #expect(sdks.first?["version"] as? String == "20.9.0")
        #expect(sdks.first?["path"] as? String == "Payload/Sample.app/Frameworks/CTXMAMCore.framework")
        let finding = try #require((report["findings"] as? [[String: Any]])?.first { $0["code"] as? String == "SDK_VERSION_MISMATCH" })
        #expect(finding["severity"] as? String == "error")
        #expect((finding["remedy"] as? String)?.contains("--toolkit-version 20.9.0") == true)
    }

    @Test func toolkitVersionOptionMakesTheSDKMatch() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        let result = try Command.ipawrap(["check", input, "--json", "--toolkit-version", "20.9.0"])
        let report = try Self.json(result.stdout)
        #expect(!Self.codes(report).contains { $0.hasPrefix("SDK_") }, "\(Self.codes(report))")
        // The gate follows the findings: exit 1 only for an error finding (other areas may add some).
        #expect(result.status == (Self.hasErrors(report) ? 1 : 0), "\(result.stderr)")
    }

    @Test func inspectReportsTheSDKAndExitsZero() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        let result = try Command.ipawrap(["inspect", input])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("CTXMAMCore 20.9.0 (Citrix MDX)"))
        #expect(result.stdout.contains("SDK_VERSION_MISMATCH"))
    }

    @Test func invalidToolkitVersionIsAUsageError() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.10.5"))
        let result = try Command.ipawrap(["check", input, "--toolkit-version", "latest"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("error[TOOLKIT_VERSION_INVALID]"))
        #expect(result.stderr.contains("'latest'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func templatesToolkitVersionIsTheDefault() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        let templates = try Self.templatesCopy(in: scratch)
        try scratch.write("Templates/toolkit.json", Array("{\"ToolkitVersion\": \"20.9.0\"}\n".utf8))
        let matching = try Command.ipawrap(["check", input, "--json"], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(!Self.codes(try Self.json(matching.stdout)).contains("SDK_VERSION_MISMATCH"), "\(matching.stderr)")
        // The option still wins over the file.
        let overridden = try Command.ipawrap(
            ["check", input, "--json", "--toolkit-version", "20.10.5"], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(Self.codes(try Self.json(overridden.stdout)).contains("SDK_VERSION_MISMATCH"))
    }

    @Test func catalogFromTheTemplatesDecidesWhatIsAnSDK() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        let templates = try Self.templatesCopy(in: scratch)
        try scratch.write("Templates/sdk-catalog.json", Array(Self.otherCatalog.utf8))
        let result = try Command.ipawrap(["inspect", input, "--json"], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.json(result.stdout)
        #expect((report["sdks"] as? [Any])?.isEmpty == true)
        #expect(!Self.codes(report).contains("SDK_VERSION_MISMATCH"))
    }

    @Test func brokenOrMissingCatalogIsAnError() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.10.5"))
        let templates = try Self.templatesCopy(in: scratch)
        try scratch.write("Templates/sdk-catalog.json", Array("{\"FormatVersion\": 1, \"Families\": [{}]}".utf8))
        let broken = try Command.ipawrap(["inspect", input], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(broken.status == 65)
        #expect(broken.stderr.contains("error[SDK_CATALOG_INVALID]"))
        #expect(broken.stderr.contains("sdk-catalog.json"))

        try FileManager.default.removeItem(atPath: scratch.path("Templates/sdk-catalog.json"))
        let missing = try Command.ipawrap(["inspect", input], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(missing.status == 74)
        #expect(missing.stderr.contains("error[SDK_CATALOG_UNREADABLE]"))
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test func wrapAndBatchWrapUseTheCatalogOfTheirTemplatesOption() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        // With the shipped catalog CTXMAMCore is the MDX SDK, of another version than the toolkit's:
        // wrap refuses.
        let shipped = try Command.ipawrap(["wrap", input, "-o", scratch.path("shipped.ipa"), "--json"])
        #expect(shipped.status == 1, "\(shipped.stderr)")
        #expect(Self.codes(try Self.json(shipped.stdout)).contains("SDK_VERSION_MISMATCH"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("shipped.ipa")))

        // --templates names a folder whose catalog does not know CTXMAMCore: no SDK, the app is wrapped.
        let templates = try Self.templatesCopy(in: scratch)
        try scratch.write("Templates/sdk-catalog.json", Array(Self.otherCatalog.utf8))
        let custom = try Command.ipawrap(["wrap", input, "-o", scratch.path("custom.ipa"), "--json", "--templates", templates])
        #expect(custom.status == 0, "\(custom.stderr)")
        let report = try Self.json(custom.stdout)
        #expect((report["sdks"] as? [Any])?.isEmpty == true)
        #expect(!Self.codes(report).contains { $0.hasPrefix("SDK_") }, "\(Self.codes(report))")
        #expect(FileManager.default.fileExists(atPath: scratch.path("custom.ipa")))

        let batch = try Command.ipawrap(["batch", "wrap", input, "--out-dir", scratch.path("out"), "--templates", templates])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("out/App.ipa")))
    }

    @Test func wrapNamesWhereTheToolkitVersionCameFrom() throws {
        let scratch = try ScratchDirectory("cli-sdk")
        let input = try scratch.write("App.ipa", Self.mdxApp(version: "20.9.0"))
        func mismatch(_ extra: [String]) throws -> String {
            let result = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.ipa"), "--json"] + extra)
            #expect(result.status == 1, "\(result.stderr)")
            let findings = try Self.json(result.stdout)["findings"] as? [[String: Any]] ?? []
            return try #require(findings.first { $0["code"] as? String == "SDK_VERSION_MISMATCH" }?["message"] as? String)
        }
        // Without the option the version is toolkit.json's, and the message says so.
        #expect(try mismatch([]).contains("the toolkit version is 20.10.5 (Templates/toolkit.json)"))
        #expect(try mismatch(["--toolkit-version", "20.11.0"]).contains("the toolkit version is 20.11.0 (--toolkit-version)"))
    }
}
