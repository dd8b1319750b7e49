import ArgumentParser
import Checks
import Foundation
import OutputFiles
import Policy
import Reporting
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

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to wrap.")
    var ipa: String

    @Option(name: [.short, .customLong("output")], help: "Where to write the wrapped .ipa or .mdx.")
    var output: String

    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Re-sign the wrapped app (needs --identity or --certificate and --key) in the same archive write.")
    var sign = false

    @OptionGroup var wrap: WrapOptionGroup

    func validate() throws {
        try wrap.validate(sign: sign)
    }

    func run() throws {
        let written = try reportingErrors(json: json ? ipa : nil) {
            try OutputDestination.check(output, inputs: [ipa] + wrap.inputFiles)
            let request = try wrap.request(input: ipa, output: output, sign: sign)
            let outcome = try Wrapper.wrap(request, tool: ToolInfo.tool)
            var summary: String?
            if let policy = outcome.policy, let size = outcome.outputSize {
                let changed = policy.changedPolicies.isEmpty ? "" : ", set \(policy.changedPolicies.joined(separator: ", "))"
                summary = "Wrapped \(ipa) into \(output) (\(request.format.rawValue), \(size) bytes): policy '\(policy.templateName)', "
                    + "\(policy.mode.rawValue) mode, \(policy.policyCount) policies\(changed), toolkit \(policy.toolkitVersion.text)"
                    + (request.signing.map { "; signed as \($0.identity.commonName ?? "?")" } ?? "")
            }
            try ReportRendering.printOutcome(outcome.report, json: json, input: ipa, summary: summary, notDone: "not wrapped")
            return outcome.written
        }
        if !written { throw ExitCode(1) }
    }
}
