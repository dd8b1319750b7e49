import ArgumentParser
import FormatSupport
import Foundation
import Policy
import ToolData

struct PolicyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Validate, list and show MDX policy templates.",
        subcommands: [Validate.self, List.self, Show.self]
    )

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check a policy XML file against the schema and the type rules.",
            discussion: """
                Reports every problem as its own error line, `ipawrap: error[CODE]: FILE: line N: \
                message` (schema errors, unknown types, defaults invalid for their type, duplicate \
                names), then `error[POLICY_INVALID]` with the count. Exit codes: 0 valid, 65 invalid, \
                74 unreadable.
                """)

        @Argument(help: "The policy XML file.")
        var file: String

        @OptionGroup var templates: TemplateOptions

        func run() throws {
            let valid = try reportingErrors {
                let bytes = try readFile(file)
                let validation = PolicyDocument.validate(bytes, schema: try templates.directory().loadSchema())
                if let template = validation.template, validation.isValid {
                    print("\(file): valid, \(template.policies.count) policies, \(template.mode.rawValue) mode")
                    return true
                }
                // Every problem is its own error line (a file can have several), then the summary.
                for issue in validation.issues {
                    Terminal.error(code: issue.code, "\(file): line \(issue.line): \(issue.message)")
                }
                Terminal.error(code: "POLICY_INVALID", "\(file): \(validation.issues.count) problem(s), listed above")
                return false
            }
            if !valid { throw ExitCode(ExitStatus.invalidInput) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the policy templates, or the policies of one template.")

        @Option(help: "List the policies of this template (e.g. premium, general).")
        var template: String?

        @OptionGroup var templates: TemplateOptions

        func run() throws {
            try reportingErrors {
                let directory = try templates.directory()
                guard let name = template else {
                    for name in try directory.policyTemplateNames() {
                        let loaded = try directory.loadPolicyTemplate(named: name)
                        print("\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(loaded.mode.rawValue) mode, \(loaded.policies.count) policies")
                    }
                    print("Toolkit version: \(try directory.toolkitVersion().text)  (templates: \(directory.url.path))")
                    return
                }
                let loaded = try directory.loadPolicyTemplate(named: name)
                print("\(name): \(loaded.mode.rawValue) mode, \(loaded.policies.count) policies")
                let width = loaded.policies.map(\.name.count).max() ?? 0
                for policy in loaded.policies {
                    print("  \(policy.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
                        + "\(policy.type.typeName.padding(toLength: 10, withPad: " ", startingAt: 0)) "
                        + "default \(policy.defaultValue.isEmpty ? "(empty)" : policy.defaultValue)"
                        + (policy.hidden ? "  hidden" : ""))
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one policy: its type, values, default and help.")

        @Argument(help: "The policy name, e.g. DisableCamera.")
        var name: String

        @Option(help: "The template to look in (default: every template).")
        var template: String?

        @OptionGroup var templates: TemplateOptions

        func run() throws {
            try reportingErrors {
                let (policy, foundIn) = try templates.directory().policy(named: name, inTemplate: template)
                print("\(policy.name): \(policy.title())")
                print("  Type      \(policy.type)")
                for value in policy.type.enumValues { print("              \(value.identifier)  \(value.title)") }
                print("  Default   \(policy.defaultValue.isEmpty ? "(empty)" : policy.defaultValue)")
                print("  Category  \(policy.category)\(policy.hidden ? ", hidden" : "")")
                print("  Templates \(foundIn.joined(separator: ", "))")
                print("")
                print("  " + policy.helpText())
            }
        }
    }
}

/// Reads a whole input file, as an I/O error (exit 74) when it cannot be read.
func readFile(_ path: String) throws -> [UInt8] {
    try FileByteSource.wholeFile(path, limit: PolicyDocument.readLimit)
}
