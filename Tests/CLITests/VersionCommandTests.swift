import Foundation
import Testing
import TestSupport

/// `ipawrap --version`: the tool's version and the toolkit version of the Templates folder it
/// finds, the same folder and value `wrap` and `check` use.
@Suite struct VersionCommandTests {
    /// `ToolkitVersion` of a `toolkit.json`, read with Foundation's JSON parser as the oracle.
    private func toolkitVersion(in templates: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: templates).appendingPathComponent("toolkit.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["ToolkitVersion"] as? String)
    }

    @Test func printsTheToolAndTheTemplatesToolkitVersion() throws {
        let templates = Fixtures.packageRoot.appendingPathComponent("Templates").path
        let result = try Command.ipawrap(["--version"], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("ipawrap ") == true)
        // The same version the JSON report names as its tool.
        let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let report = try Command.ipawrap(["inspect", sample, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let tool = try #require(object["tool"] as? [String: Any])
        #expect(lines.first == "ipawrap \(try #require(tool["version"] as? String))")
        #expect(lines.last == "toolkit \(try toolkitVersion(in: templates)) (templates: \(templates))")
    }

    @Test func followsTheTemplatesFolderItFinds() throws {
        let scratch = try ScratchDirectory("cli-version")
        let templates = try BinaryCheckCommandTests.templatesCopy(in: scratch)
        try scratch.write("Templates/toolkit.json", Array("{\"ToolkitVersion\": \"21.3.0\"}\n".utf8))
        let result = try Command.ipawrap(["--version"], environment: ["IPAWRAP_TEMPLATES": templates])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("toolkit 21.3.0 (templates: \(templates))\n"), "\(result.stdout)")
    }

    @Test func aBrokenInstallFailsWithTheTemplatesCode() throws {
        let scratch = try ScratchDirectory("cli-version")
        let missing = try Command.ipawrap(["--version"], environment: ["IPAWRAP_TEMPLATES": scratch.path("nowhere")])
        #expect(missing.status == 64)
        #expect(missing.stdout.hasPrefix("ipawrap "))
        #expect(missing.stderr.hasPrefix("ipawrap: error[TEMPLATES_NOT_FOUND]: "), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1)
    }

    @Test func withoutAnOptionTheToolPrintsItsHelp() throws {
        let result = try Command.ipawrap([])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: ipawrap "), "\(result.stdout)")
        #expect(result.stdout.contains("--version"))
        #expect(result.stdout.contains("SUBCOMMANDS:"))
    }
}
