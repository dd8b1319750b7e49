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

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var wrap: WrapOptionGroup
    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var templates: TemplateOptions
    @OptionGroup var limits: ArchiveLimitOptions

    func run() throws {
        let written = try reportingErrors(json: json ? ipa : nil) {
            try OutputDestination.check(output, inputs: [ipa] + wrap.inputFiles + checks.inputFiles + templates.inputFiles)
            let request = try wrap.request(input: ipa, output: output, checks: checks, templates: templates, limits: limits)
            let outcome = try Wrapper.wrap(request, tool: ToolInfo.tool)
            if json {
                print(try ReportRendering.json(outcome.report))
            } else {
                print(ReportRendering.text(outcome.report))
            }
            if let policy = outcome.policy, let size = outcome.outputSize {
                let changed = policy.changedPolicies.isEmpty ? "" : ", set \(policy.changedPolicies.joined(separator: ", "))"
                let line = "Wrapped \(ipa) into \(output) (\(request.format.rawValue), \(size) bytes): policy '\(policy.templateName)', "
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
