import ArgumentParser
import Foundation
import Policy
import Wrapping
import Zip

/// The options of `wrap` and `batch wrap` after their `--sign` flag (whose help says whose apps it
/// signs), one group so that both commands list, check and use them alike: the policy, the output
/// format and how added entries are written (titles Policy and Output in `--help`), then the
/// signing options, the check options (with the Templates folder) and the archive limits.
struct WrapOptionGroup: ParsableArguments {
    @OptionGroup(title: "Policy") var policy: WrapPolicyOptions
    @OptionGroup(title: "Output") var output: WrapOutputOptions
    @OptionGroup(title: "Signing") var signing: SigningOptionGroup
    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    /// The files these options read, which no output may replace.
    var inputFiles: [String] { (policy.policy.map { [$0] } ?? []) + checks.inputFiles + signing.inputFiles }

    /// Refuses signing options without `--sign`, and with it a signing time that is not one.
    func validate(sign: Bool) throws {
        if signing.isGiven && !sign {
            throw ValidationError(SigningOptionGroup.needsSign)
        }
        if sign { try signing.validateSigningTime() }
    }

    /// The request for one input and output, signed too with `sign` (the identity is read here,
    /// once, also for a whole batch).
    func request(input: String, output: String, sign: Bool) throws -> WrapRequest {
        var request = WrapRequest(
            input: input, output: output, format: self.output.format, checks: try checks.checkOptions(), limits: limits.limits,
            template: policy.template, policyFile: policy.policy,
            overrides: try policy.overrides.map { try $0.parsed.get() }, mode: policy.mode, rewrap: policy.rewrap,
            toolData: try checks.toolData(),
            repack: RepackOptions(timestamp: try self.output.timestamp.newEntryTimestamp(), synchronize: self.output.fsync))
        if sign {
            request.signing = try signing.request(templates: request.toolData.templates, timeLimit: limits.timeLimit)
        }
        return request
    }
}

/// The policy a wrap embeds.
struct WrapPolicyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The policy template in Templates/policies/ (default: premium).", valueName: "name"))
    var template: String?

    @Option(help: ArgumentHelp("A policy XML file to embed instead of a template.", valueName: "file"))
    var policy: String?

    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Set a policy's default, checked against its type; repeatable.", valueName: "NAME=VALUE"))
    var overrides: [PolicyOverrideArgument] = []

    @Option(help: "The app mode, premium or general (default: the template's mode).")
    var mode: AppMode?

    @Flag(help: "Replace a policy bundle that is already there (without it, that is the error ALREADY_WRAPPED).")
    var rewrap = false

    func validate() throws {
        if template != nil && policy != nil {
            throw ValidationError("--template and --policy cannot be used together")
        }
    }
}

/// What a wrap writes: its format, and how added entries are stamped and flushed.
struct WrapOutputOptions: ParsableArguments {
    @Option(help: "Output format: ipa (the wrapped app) or mdx (a Citrix .mdx container).")
    var format: WrapRequest.Format = .ipa

    @OptionGroup var timestamp: NewEntryTimestampOption

    @Flag(help: "Flush outputs to disk before they appear (durability across power loss).")
    var fsync = false
}

extension WrapRequest.Format: ExpressibleByArgument {}
extension AppMode: ExpressibleByArgument {}

/// `--set NAME=VALUE`, split once, when the arguments are parsed. A malformed value keeps its error,
/// thrown where the request is built, so it stays the documented `POLICY_SET_SYNTAX` (exit 64) rather
/// than the parser's generic usage error.
struct PolicyOverrideArgument: ExpressibleByArgument, Equatable, Sendable {
    let parsed: Result<PolicyOverride, PolicyOverrideError>

    init(argument: String) {
        parsed = Result { () throws(PolicyOverrideError) in try PolicyOverride(argument: argument) }
    }
}
