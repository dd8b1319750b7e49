import Foundation
import Testing
import TestSupport

/// Options declared once and shared by every command that has them: `--templates` and
/// `--toolkit-version` in the check options, `--at`, `--timestamp`, and the one rule for seconds
/// since 1970 (`--timestamp`, `--signing-time`, `SOURCE_DATE_EPOCH`): a whole number, 0 or more.
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

    @Test func everyCommandThatJudgesDatesTakesAtWithOneHelpText() throws {
        var texts: Set<String> = []
        for command in Self.checkCommands + [["verify", "App.ipa"], ["profile", "show", "x.mobileprovision"]] {
            texts.insert(try #require(try Self.help(of: "--at", in: command), "\(command.joined(separator: " ")) has no --at"))
        }
        #expect(texts.count == 1, "\(texts)")
    }

    @Test func anInvalidDateIsRefusedAlikeEverywhere() throws {
        for command in [["inspect", "App.ipa"], ["verify", "App.ipa"], ["profile", "show", "x.mobileprovision"]] {
            let result = try Command.ipawrap(command + ["--at", "yesterday"])
            #expect(result.status == 64, "\(command)")
            #expect(result.stderr.hasPrefix(
                "ipawrap: error[USAGE]: The value 'yesterday' is invalid for '--at <date>': expects YYYY-MM-DD or an ISO 8601 date and time"),
                "\(result.stderr)")
        }
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

    /// The refusal is the parser's: with --json nothing reaches stdout, no input is needed for it,
    /// the first bad value of several is the one reported, and a bad value of another option
    /// before it is that option's usage error.
    @Test func anInvalidToolkitVersionIsRefusedWhenTheArgumentsAreParsed() throws {
        let expected = "ipawrap: error[TOOLKIT_VERSION_INVALID]: --toolkit-version expects a version such as 20.10.5 "
            + "(numbers separated by dots), got '20.x'\n"
        for arguments in [
            ["check", "App.ipa", "--json", "--toolkit-version", "20.x"], ["inspect", "App.ipa", "--toolkit-version=20.x", "--json"],
            ["check", "--toolkit-version", "20.x"], ["check", "App.ipa", "--toolkit-version", "20.x", "--toolkit-version", "1.x"],
            ["check", "App.ipa", "--toolkit-version", "20.x", "--at", "someday"],
        ] {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == expected, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        let other = try Command.ipawrap(["check", "App.ipa", "--at", "someday", "--toolkit-version", "20.x"])
        #expect(other.status == 64)
        #expect(other.stderr.hasPrefix("ipawrap: error[USAGE]: The value 'someday' is invalid for '--at <date>'"), "\(other.stderr)")
        let good = try Command.ipawrap(["check", "App.ipa", "--toolkit-version", "20.10.5"])
        #expect(!good.stderr.contains("TOOLKIT_VERSION_INVALID"), "\(good.stderr)")
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

    // MARK: Seconds since 1970

    /// A wrap of the sample with `options` and `environment`; its status, stderr and output bytes.
    private func wrap(
        _ scratch: ScratchDirectory, _ options: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, stderr: String, output: [UInt8]?) {
        let output = scratch.path("wrapped-\(UUID().uuidString).ipa")
        let input = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let result = try Command.ipawrap(["wrap", input, "-o", output, "--at", "2026-01-01"] + options, environment: environment)
        let bytes = FileManager.default.fileExists(atPath: output) ? try Fixtures.bytesAt(output) : nil
        return (result.status, result.stderr, bytes)
    }

    @Test func sourceDateEpochIsTheTimestampsDefault() throws {
        let scratch = try ScratchDirectory("shared-options")
        let fromOption = try wrap(scratch, ["--timestamp", "1767225600"], environment: ["SOURCE_DATE_EPOCH": "1000"])
        let fromVariable = try wrap(scratch, [], environment: ["SOURCE_DATE_EPOCH": "1767225600"])
        let latest = try wrap(scratch, ["--timestamp", "latest"], environment: ["SOURCE_DATE_EPOCH": "1767225600"])
        #expect(fromOption.status == 0 && fromVariable.status == 0 && latest.status == 0, "\(fromOption.stderr)\(fromVariable.stderr)")
        #expect(fromOption.output != nil && fromOption.output == fromVariable.output)
        #expect(latest.output != fromOption.output)
    }

    /// Behaviour change (issue 28): `wrap` and `repack` used to take a negative `--timestamp=-N`
    /// (a time before 1970 that a zip's DOS date cannot hold) and `SOURCE_DATE_EPOCH=now`; one rule
    /// now refuses them, as `--signing-time` always did.
    @Test(arguments: [
        (["--timestamp=-1"], [String: String](), "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '-1'"),
        (["--timestamp", "1.5"], [:], "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '1.5'"),
        (["--timestamp", "+5"], [:], "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '+5'"),
        ([], ["SOURCE_DATE_EPOCH": "-1"], "SOURCE_DATE_EPOCH expects seconds since 1970 (a whole number, 0 or more), got '-1'"),
        ([], ["SOURCE_DATE_EPOCH": "now"], "SOURCE_DATE_EPOCH expects seconds since 1970 (a whole number, 0 or more), got 'now'"),
        (["--sign", "--signing-time", "12.0"], [:], "--signing-time expects seconds since 1970 (a whole number, 0 or more), got '12.0'"),
        (["--timestamp", "99999999999999999999"], [:],
         "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '99999999999999999999' (too large)"),
        (["--signing-time", "5"], [:],
         "the signing options (--identity, --certificate, --key, --password-file, --password-env, --entitlements, --signing-time) need --sign"),
    ])
    func secondsSince1970FollowOneRule(_ options: [String], _ environment: [String: String], _ message: String) throws {
        let scratch = try ScratchDirectory("shared-options")
        let result = try wrap(scratch, options, environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("ipawrap: error[USAGE]: \(message) (see 'ipawrap wrap --help')"), "\(result.stderr)")
        #expect(result.output == nil)
    }

    /// `wrap` without `--sign` reads `SOURCE_DATE_EPOCH` only for `--timestamp`'s default: with
    /// `--timestamp` given, a variable that is no number of seconds does not matter to it.
    @Test func wrapWithoutSignDoesNotReadTheVariableForASigningTime() throws {
        let scratch = try ScratchDirectory("shared-options")
        let result = try wrap(scratch, ["--timestamp", "1767225600"], environment: ["SOURCE_DATE_EPOCH": "now"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output != nil)
    }

    @Test func repackAndSignReadSourceDateEpochByTheSameRule() throws {
        let input = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let repack = try Command.ipawrap(["repack", input, "-o", "/nonexistent/out.ipa"], environment: ["SOURCE_DATE_EPOCH": "now"])
        #expect(repack.status == 64)
        #expect(repack.stderr.contains("SOURCE_DATE_EPOCH expects seconds since 1970 (a whole number, 0 or more), got 'now'"), "\(repack.stderr)")
        let sign = try Command.ipawrap(["sign", input, "-o", "/nonexistent/out.ipa"], environment: ["SOURCE_DATE_EPOCH": "-5"])
        #expect(sign.status == 64)
        #expect(sign.stderr.contains("SOURCE_DATE_EPOCH expects seconds since 1970 (a whole number, 0 or more), got '-5'"), "\(sign.stderr)")
    }
}
