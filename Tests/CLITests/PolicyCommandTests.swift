import Foundation
import Testing
import TestSupport

/// `ipawrap policy validate|list|show` through the command line: exit codes, the `FILE:LINE:
/// error[CODE]` lines of validate against each fixture's `expect:` markers, and list and show
/// against the template files read by Python's xml.etree.
@Suite struct PolicyCommandTests {
    static let templates = Fixtures.packageRoot.appendingPathComponent("Templates/policies")
    static let invalidFolder = Fixtures.url("policy/invalid")

    static var invalidFixtures: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: invalidFolder.path)) ?? [])
            .filter { $0.hasSuffix(".xml") }
            .sorted()
    }

    /// The `<!-- expect:CODE -->` markers of a fixture, with their lines.
    static func expectations(_ bytes: [UInt8]) -> Set<ExpectedIssue> {
        ExpectedIssue.markers(in: bytes)
    }

    /// One policy of a template, as Python's xml.etree reads it.
    struct OraclePolicy: Decodable {
        let name: String
        let type: String
        let defaultValue: String
        let hidden: String
        let description: String
    }

    static func oracle(_ template: String) throws -> (mode: String, policies: [OraclePolicy]) {
        let script = #"""
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def text(policy, tag):
    node = policy.find(tag)
    return "" if node is None or node.text is None else node.text
policies = [{"name": text(p, "PolicyName"), "type": text(p, "PolicyType"), "defaultValue": text(p, "PolicyDefault"),
             "hidden": text(p, "PolicyHidden"), "description": text(p, "PolicyDescription")}
            for p in root.iter("Policy")]
json.dump({"mode": root.get("AppMode"), "policies": policies}, sys.stdout)
"""#
        let result = try Command.run("python3", ["-c", script, templates.appendingPathComponent("\(template).xml").path])
        try #require(result.status == 0, "\(result.stderr)")
        struct Parsed: Decodable {
            let mode: String
            let policies: [OraclePolicy]
        }
        let parsed = try JSONDecoder().decode(Parsed.self, from: Data(result.stdout.utf8))
        return (parsed.mode, parsed.policies)
    }

    // MARK: validate

    @Test(arguments: ["premium", "general"])
    func validateAcceptsATemplate(_ template: String) throws {
        let file = Self.templates.appendingPathComponent("\(template).xml").path
        let oracle = try Self.oracle(template)
        let result = try Command.ipawrap(["policy", "validate", file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(file): valid, \(oracle.policies.count) policies, \(oracle.mode) mode\n")
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: invalidFixtures)
    func validateReportsEachProblemWithItsLine(_ name: String) throws {
        let file = Self.invalidFolder.appendingPathComponent(name).path
        let expected = Self.expectations(try Fixtures.bytes("policy/invalid/\(name)"))
        try #require(!expected.isEmpty, "\(name) has no expect: markers")
        let result = try Command.ipawrap(["policy", "validate", file])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        var lines = result.stderr.split(separator: "\n").map(String.init)
        // The last line is the one-sentence summary, naming the file and the count.
        let summary = lines.popLast()
        #expect(summary == "ipawrap: error[POLICY_INVALID]: \(file): \(lines.count) problem(s), listed above")
        // Every other line is the error line, `ipawrap: error[CODE]: FILE: line N: message`, in line order.
        var found: [ExpectedIssue] = []
        for line in lines {
            try #require(line.hasPrefix("ipawrap: error["), "\(line)")
            let code = line.dropFirst("ipawrap: error[".count).prefix { $0 != "]" }
            let located = line.dropFirst("ipawrap: error[".count + code.count)
            let prefix = "]: \(file): line "
            try #require(located.hasPrefix(prefix), "\(line)")
            let rest = located.dropFirst(prefix.count)
            let number = try #require(Int(rest.prefix { $0.isNumber }), "\(line)")
            let after = rest.drop { $0.isNumber }
            #expect(after.hasPrefix(": "), "\(line)")
            #expect(after.count > 2, "an empty message: \(line)")
            found.append(ExpectedIssue(code: String(code), line: number))
        }
        #expect(Set(found) == expected, "\(name): \(result.stderr)")
        #expect(found.map(\.line) == found.map(\.line).sorted())
    }

    @Test func validateOfAMissingFileIsAnIOError() throws {
        let scratch = try ScratchDirectory("cli-policy")
        let missing = scratch.path("absent.xml")
        let result = try Command.ipawrap(["policy", "validate", missing])
        #expect(result.status == 74)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("ipawrap: error[FILE_READ_FAILED]: "), "\(result.stderr)")
        #expect(result.stderr.contains(missing))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(scratch.listing().isEmpty)
    }

    // MARK: list

    @Test func listNamesBothTemplatesWithTheirModeAndCount() throws {
        let result = try Command.ipawrap(["policy", "list"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        for template in ["general", "premium"] {
            let oracle = try Self.oracle(template)
            let line = try #require(lines.first { $0.hasPrefix(template + " ") }, "\(result.stdout)")
            #expect(line.hasSuffix(" \(oracle.mode) mode, \(oracle.policies.count) policies"), "\(line)")
        }
        #expect(lines.filter { $0.contains(" mode, ") }.count == 2)
        #expect(lines.last?.hasPrefix("Toolkit version: 20.10.5") == true)
    }

    @Test func listOfOneTemplateGivesExactlyItsPolicies() throws {
        let oracle = try Self.oracle("general")
        let result = try Command.ipawrap(["policy", "list", "--template", "general"])
        #expect(result.status == 0, "\(result.stderr)")
        var lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.removeFirst() == "general: general mode, \(oracle.policies.count) policies")
        #expect(lines.count == oracle.policies.count)
        // Each row: name, type, "default VALUE", in the file's order.
        for (line, policy) in zip(lines, oracle.policies) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(fields.first == policy.name, "\(line)")
            #expect(fields.dropFirst().first == policy.type, "\(line)")
            let shown = policy.defaultValue.isEmpty ? "(empty)" : policy.defaultValue
            #expect(line.contains("default \(shown)"), "\(line)")
            #expect(line.hasSuffix("  hidden") == (policy.hidden == "true"), "\(line)")
        }
        // None of the Premium-only policies.
        let general = Set(oracle.policies.map(\.name))
        let premiumOnly = try Self.oracle("premium").policies.map(\.name).filter { !general.contains($0) }
        #expect(!premiumOnly.isEmpty)
        for name in premiumOnly {
            #expect(!lines.contains { $0.split(separator: " ").first.map(String.init) == name }, "\(name)")
        }
    }

    // MARK: show

    @Test func showDescribesAPolicy() throws {
        let policy = try #require(try Self.oracle("premium").policies.first { $0.name == "DisableCamera" })
        let result = try Command.ipawrap(["policy", "show", "DisableCamera"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "DisableCamera: Block camera")
        #expect(lines.contains("  Type      \(policy.type)"), "\(result.stdout)")
        #expect(lines.contains("  Default   \(policy.defaultValue)"), "\(result.stdout)")
        #expect(lines.contains("  Templates general, premium"), "\(result.stdout)")
        #expect(lines.contains("  " + policy.description), "\(result.stdout)")
    }

    @Test func showOfAnUnknownPolicyIsAUsageError() throws {
        let unknown = try Command.ipawrap(["policy", "show", "NoSuchPolicy"])
        #expect(unknown.status == 64)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr == "ipawrap: error[POLICY_UNKNOWN_NAME]: the template has no policy named 'NoSuchPolicy'\n")

        // A near miss gets a suggestion.
        let typo = try Command.ipawrap(["policy", "show", "DisableCamra"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("ipawrap: error[POLICY_UNKNOWN_NAME]: "))
        #expect(typo.stderr.contains("did you mean 'DisableCamera'?"), "\(typo.stderr)")
        #expect(typo.stderr.split(separator: "\n").count == 1)
    }
}
