import Foundation
import Testing
import TestSupport

/// `--help` lists a command's options under the titles docs/commands.md names (*Output*, *Policy*,
/// *Signing*, *Profiles and checks*, *Input limits*), each option under its own title.
@Suite struct HelpCommandTests {
    /// The headings of a help text in order, and the heading each option line (`  --name`) is under.
    static func sections(_ help: String) -> (headings: [String], optionHeading: [String: String]) {
        var headings: [String] = []
        var optionHeading: [String: String] = [:]
        for line in help.split(separator: "\n") {
            if line.hasSuffix(":"), line.first?.isUppercase == true, line == line.uppercased() {
                headings.append(String(line.dropLast()))
            } else if line.hasPrefix("  --"), let name = line.dropFirst(2).split(separator: " ").first, let heading = headings.last {
                optionHeading[String(name)] = heading
            }
        }
        return (headings, optionHeading)
    }

    @Test func optionsAreGroupedUnderTitles() throws {
        let reportTitles = ["ARGUMENTS", "OUTPUT", "PROFILES AND CHECKS", "INPUT LIMITS", "OPTIONS"]
        let cases: [(command: [String], headings: [String], options: [String: String])] = [
            (["inspect"], reportTitles, ["--json": "OUTPUT", "--profile": "PROFILES AND CHECKS", "--max-entries": "INPUT LIMITS"]),
            (["check"], reportTitles, ["--report-format": "OUTPUT", "--at": "PROFILES AND CHECKS", "--time-limit": "INPUT LIMITS"]),
            (["wrap"], ["ARGUMENTS", "POLICY", "OUTPUT", "SIGNING", "PROFILES AND CHECKS", "INPUT LIMITS", "OPTIONS"],
             ["--set": "POLICY", "--format": "OUTPUT", "--identity": "SIGNING", "--entitlements": "SIGNING",
              "--profiles-dir": "PROFILES AND CHECKS", "--max-ratio": "INPUT LIMITS"]),
            (["sign"], ["ARGUMENTS", "SIGNING", "PROFILES AND CHECKS", "INPUT LIMITS", "OPTIONS"],
             ["--entitlements": "SIGNING", "--templates": "PROFILES AND CHECKS", "--profile": "PROFILES AND CHECKS", "--max-memory": "INPUT LIMITS"]),
            (["batch", "wrap"], ["ARGUMENTS", "OUTPUT", "POLICY", "SIGNING", "PROFILES AND CHECKS", "INPUT LIMITS", "OPTIONS"],
             ["--json-lines": "OUTPUT", "--template": "POLICY", "--identity": "SIGNING", "--profile": "PROFILES AND CHECKS",
              "--max-entries": "INPUT LIMITS"]),
            (["batch", "sign"], ["ARGUMENTS", "OUTPUT", "SIGNING", "PROFILES AND CHECKS", "INPUT LIMITS", "OPTIONS"],
             ["--out-dir": "OUTPUT", "--password-env": "SIGNING", "--templates": "PROFILES AND CHECKS", "--profiles-dir": "PROFILES AND CHECKS",
              "--time-limit": "INPUT LIMITS", "--fsync": "OPTIONS"]),
        ]
        for (command, headings, options) in cases {
            let result = try Command.ipawrap(command + ["--help"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let sections = Self.sections(result.stdout)
            #expect(sections.headings == headings, "\(command): \(result.stdout)")
            for (option, heading) in options {
                #expect(sections.optionHeading[option] == heading, "\(command) \(option): \(result.stdout)")
            }
        }
    }
}
