import ArgumentParser
import Checks
import Foundation
import IPAArchive
import Policy
import Wrapping

struct WrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrap",
        abstract: "Check an IPA and embed an MDX policy bundle, writing a wrapped .ipa or .mdx.",
        discussion: """
            Runs every check of `ipawrap check`; on any error finding it prints them, writes nothing and \
            exits 1. Otherwise it adds Payload/<App>.app/MDXPolicy.bundle/ (policy_metadata.xml after the \
            --set overrides, and an Info.plist naming the toolkit version, app mode, template and the \
            policy's SHA-256) and repacks: every other entry is copied byte for byte, the output appears \
            atomically, the input is never modified, and the same input and options give the same bytes.
            Exit codes: 0 written, 1 error findings (nothing written), 64 usage error, 65 bad input, \
            74 output not written.
            """
    )

    @Argument(help: "The .ipa to wrap.")
    var ipa: String

    @Option(name: [.short, .customLong("output")], help: "Where to write the wrapped .ipa or .mdx.")
    var output: String

    @Option(help: "Output format: ipa (the wrapped app) or mdx (a Citrix .mdx container).")
    var format: WrapRequest.Format = .ipa

    @Option(help: ArgumentHelp("The policy template in Templates/policies/ (default: premium).", valueName: "name"))
    var template: String?

    @Option(help: ArgumentHelp("A policy XML file to embed instead of a template.", valueName: "file"))
    var policy: String?

    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Set a policy's default, checked against its type; repeatable.", valueName: "NAME=VALUE"))
    var overrides: [String] = []

    @Option(help: "The app mode, premium or general (default: the template's mode).")
    var mode: AppMode?

    @Flag(help: "Replace a policy bundle that is already there (without it, that is the error ALREADY_WRAPPED).")
    var rewrap = false

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Option(help: ArgumentHelp(
        "Modification time of added entries: 'latest' (the default), 'now', or seconds since 1970.", valueName: "when"))
    var timestamp: String?

    @Flag(help: "Flush the output to disk before it appears.")
    var fsync = false

    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var templates: TemplateOptions
    @OptionGroup var limits: ArchiveLimitOptions

    func validate() throws {
        if template != nil && policy != nil {
            throw ValidationError("--template and --policy cannot be used together")
        }
        _ = try NewEntryTimestamp.parse(timestamp)
    }

    func run() throws {
        let written = try reportingErrors {
            let request = WrapRequest(
                input: ipa, output: output, format: format, checks: try checks.checkOptions(), limits: limits.limits,
                template: template, policyFile: policy,
                overrides: try overrides.map { try PolicyOverride(argument: $0) }, mode: mode, rewrap: rewrap,
                templates: try templates.directory(),
                repack: RepackOptions(timestamp: try NewEntryTimestamp.parse(timestamp), synchronize: fsync))
            let outcome = try Wrapper.wrap(request, tool: ToolInfo.tool)
            if json {
                print(try ReportRendering.json(outcome.report))
            } else {
                print(ReportRendering.text(outcome.report))
            }
            if let policy = outcome.policy, let size = outcome.outputSize {
                let changed = policy.changedPolicies.isEmpty ? "" : ", set \(policy.changedPolicies.joined(separator: ", "))"
                let line = "Wrapped \(ipa) into \(output) (\(format.rawValue), \(size) bytes): policy '\(policy.templateName)', "
                    + "\(policy.mode.rawValue) mode, \(policy.policyCount) policies\(changed), toolkit \(policy.toolkitVersion)"
                if json { Terminal.standardError(line) } else { print("\n" + line) }
            } else {
                let errors = outcome.report.findings.filter { $0.severity == .error }.map(\.code)
                Terminal.standardError("ipawrap: \(ipa): not wrapped because of \(errors.joined(separator: ", ")); nothing was written")
            }
            return outcome.written
        }
        if !written { throw ExitCode(1) }
    }
}

extension WrapRequest.Format: ExpressibleByArgument {}
extension AppMode: ExpressibleByArgument {}

extension NewEntryTimestamp {
    /// `--timestamp` (or SOURCE_DATE_EPOCH): 'latest', 'now' or seconds since 1970.
    static func parse(_ option: String?) throws -> NewEntryTimestamp {
        let value = option ?? ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"]
        switch value {
        case nil, "latest":
            return .latestInArchive
        case "now":
            return .secondsSince1970(Int64(Date().timeIntervalSince1970))
        case let text?:
            guard let seconds = Int64(text) else {
                throw ValidationError("--timestamp expects 'latest', 'now' or seconds since 1970, got '\(text)'")
            }
            return .secondsSince1970(seconds)
        }
    }
}
