import Foundation
import Testing
import TestSupport

/// Options declared once and shared by every command that has them: `--templates` and
/// `--toolkit-version` in the check options.
@Suite struct SharedOptionTests {
    /// Every command that runs the checks, with what it needs besides the check options.
    static let checkCommands: [[String]] = [
        ["inspect", "App.ipa"], ["check", "App.ipa"], ["wrap", "App.ipa", "-o", "out.ipa"], ["sign", "App.ipa", "-o", "out.ipa"],
        ["batch", "inspect", "apps"], ["batch", "check", "apps"], ["batch", "wrap", "apps", "--out-dir", "out"],
        ["batch", "sign", "apps", "--out-dir", "out"],
    ]

    /// The help text of `option` in `command --help`, joined from its wrapped lines.
    static func help(of option: String, in command: [String]) throws -> String? {
        let words = command.filter { !$0.contains(".") && !$0.hasPrefix("-") && $0 != "apps" && $0 != "out" }
        let result = try Command.ipawrap(words + ["--help"], environment: ["COLUMNS": "200"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(option + " ") }) else { return nil }
        var text = [lines[start].trimmingCharacters(in: .whitespaces)]
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("-"), line.hasPrefix("      ") else { break }
            text.append(trimmed)
        }
        return text.joined(separator: " ").split(separator: " ").joined(separator: " ")
    }

    @Test func everyCheckCommandTakesTemplatesWithOneHelpText() throws {
        var texts: Set<String> = []
        for command in Self.checkCommands {
            let text = try #require(try Self.help(of: "--templates", in: command), "\(command.joined(separator: " ")) has no --templates")
            texts.insert(text)
        }
        // The policy commands read the Templates folder too, with the same option.
        texts.insert(try #require(try Self.help(of: "--templates", in: ["policy", "list"])))
        #expect(texts.count == 1, "\(texts)")
        #expect(texts.first?.contains("IPAWRAP_TEMPLATES") == true)
        #expect(texts.first?.contains("source checkout") == false)
    }

    @Test func templatesAndToolkitVersionWorkForInspectCheckAndTheBatchReports() throws {
        let scratch = try ScratchDirectory("shared-options")
        let input = try scratch.write("App.ipa", BinaryCheckCommandTests.mdxApp(version: "20.9.0"))
        let templates = try BinaryCheckCommandTests.templatesCopy(in: scratch)
        try scratch.write("Templates/sdk-catalog.json", Array(BinaryCheckCommandTests.otherCatalog.utf8))
        // With the repository's Templates (IPAWRAP_TEMPLATES) the MDX framework is found; --templates wins
        // over the variable, and its catalog knows no MDX.
        let shipped = try Command.ipawrap(["inspect", input, "--json"])
        #expect((try BinaryCheckCommandTests.json(shipped.stdout)["sdks"] as? [Any])?.count == 1)
        for command in [["inspect", input, "--json"], ["check", input, "--json"]] {
            let result = try Command.ipawrap(command + ["--templates", templates])
            #expect(result.status == 0, "\(command[0]): \(result.stderr)")
            #expect((try BinaryCheckCommandTests.json(result.stdout)["sdks"] as? [Any])?.isEmpty == true, "\(command[0])")
        }
        for command in ["inspect", "check"] {
            let result = try Command.ipawrap(["batch", command, input, "--json-lines", "--templates", templates])
            #expect(result.status == 0, "batch \(command): \(result.stderr)")
            // The line's report lists the framework among the bundles, but no SDK of this catalog.
            let line = try #require(result.stdout.split(separator: "\n").first.map(String.init), "batch \(command)")
            let report = try #require(try BinaryCheckCommandTests.json(line)["report"] as? [String: Any], "batch \(command)")
            #expect((report["sdks"] as? [Any])?.isEmpty == true, "batch \(command)")
        }
        // The toolkit version of the option decides the match, in a batch as alone.
        let matching = try Command.ipawrap(["batch", "check", input, "--toolkit-version", "20.9.0"])
        #expect(matching.status == 0, "\(matching.stdout)\(matching.stderr)")
        let mismatching = try Command.ipawrap(["batch", "check", input, "--toolkit-version", "20.10.5"])
        #expect(mismatching.status == 1)
    }

    @Test func anInvalidToolkitVersionKeepsItsCodeInEveryCommand() throws {
        for command in Self.checkCommands {
            let result = try Command.ipawrap(command + ["--toolkit-version", "20.x"])
            #expect(result.status == 64, "\(command)")
            #expect(result.stderr == "ipawrap: error[TOOLKIT_VERSION_INVALID]: --toolkit-version expects a version such as 20.10.5 "
                        + "(numbers separated by dots), got '20.x'\n", "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func templatesThatAreNoTemplatesFolderSayHowToPointAtThem() throws {
        let scratch = try ScratchDirectory("shared-options")
        let input = try scratch.write("App.ipa", BinaryCheckCommandTests.mdxApp(version: "20.10.5"))
        let option = try Command.ipawrap(["check", input, "--templates", scratch.path("nowhere")])
        #expect(option.status == 64)
        #expect(option.stderr.hasPrefix("ipawrap: error[TEMPLATES_NOT_FOUND]: "), "\(option.stderr)")
        #expect(option.stderr.contains(scratch.path("nowhere") + " (from --templates)"))
        #expect(option.stderr.contains("pass --templates DIR or set IPAWRAP_TEMPLATES to the Templates folder"))
        let variable = try Command.ipawrap(["batch", "inspect", input], environment: ["IPAWRAP_TEMPLATES": scratch.path("nowhere")])
        #expect(variable.status == 64)
        #expect(variable.stderr.contains("(from IPAWRAP_TEMPLATES)") && variable.stderr.contains("pass --templates DIR"))
    }

    /// The binary built in the checkout finds the checkout's Templates from where it is, with no
    /// help from the environment (the source tree it was compiled from plays no part).
    @Test(.enabled(if: Command.ipawrapPath.hasPrefix(Fixtures.packageRoot.path + "/"), "ipawrap is not built inside the checkout"))
    func theBuiltBinaryFindsTheTemplatesAboveIt() throws {
        let result = try Command.ipawrap(["--version"], environment: ["IPAWRAP_TEMPLATES": ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("(templates: \(RepositoryTemplates.url.standardizedFileURL.path))\n"), "\(result.stdout)")
    }
}
