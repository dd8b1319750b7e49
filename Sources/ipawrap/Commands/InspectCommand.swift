import ArgumentParser
import Checks
import Reporting
import ToolData

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Report on an IPA: app, executable, icon, nested bundles, SDKs, profiles and findings.",
        discussion: """
            Reads only the central directory and the few entries it needs. Exit codes: 0 report produced \
            (whatever the findings), 65 bad input, 74 I/O error.
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to inspect.")
    var ipa: String

    @OptionGroup(title: "Output") var output: ReportOptions
    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run() throws {
        try reportingErrors(json: output.format == .json ? ipa : nil) {
            let options = try checks.checkOptions(sha256: output.sha256)
            let inspection = try Inspector.inspect(
                path: ipa, options: options, toolData: try checks.toolData(), limits: limits.limits, tool: ToolInfo.tool)
            try output.print(inspection.report, input: ipa, command: "inspect")
        }
    }
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run every check on an IPA, as a gate: exit 1 on any error finding.",
        discussion: """
            --for wrap (the default) judges as `ipawrap wrap` and `wrap --sign` do; --for sign as `ipawrap sign` \
            does, which reports the rules of wrapping (\(FindingCode.wrappingRuleList)) as warnings: an \
            input that passes `check --for sign` is one `sign` signs.
            Exit codes: 0 no error finding, 1 at least one error finding, 65 bad input, 74 I/O error.
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to check.")
    var ipa: String

    @Option(name: .customLong("for"), help: ArgumentHelp(
        "The command to judge for: wrap (every rule) or sign (the rules of wrapping become warnings).", valueName: "command"))
    var purpose: CheckPurpose = .wrapping

    @OptionGroup(title: "Output") var output: ReportOptions
    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run() throws {
        let failed = try reportingErrors(json: output.format == .json ? ipa : nil) {
            var options = try checks.checkOptions(sha256: output.sha256)
            options.purpose = purpose
            let inspection = try Inspector.inspect(
                path: ipa, options: options, toolData: try checks.toolData(), limits: limits.limits, tool: ToolInfo.tool)
            try output.print(inspection.report, input: ipa, command: "check")
            if inspection.report.hasErrors {
                ReportRendering.stoppedByFindings(ipa, inspection.report.findings, "the check failed because of")
            }
            return inspection.report.hasErrors
        }
        if failed { throw ExitCode(1) }
    }
}

/// How `inspect` and `check` print their report.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON (the same as --report-format json).")
    var json = false

    @Option(help: ArgumentHelp(
        "text (default), json, sarif (SARIF 2.1.0, for code scanning) or junit (JUnit XML, for CI test views).",
        valueName: "format"))
    var reportFormat: ReportFormat?

    @Flag(help: "Also compute the SHA-256 of the whole file (reads every byte).")
    var sha256 = false

    func validate() throws {
        if json, let reportFormat, reportFormat != .json {
            throw ValidationError("--json and --report-format \(reportFormat.rawValue) ask for different formats; give one")
        }
    }

    var format: ReportFormat { reportFormat ?? (json ? .json : .text) }

    func print(_ report: Report, input: String, command: String) throws {
        let subject = ReportSubject(path: input, name: input, outcome: .report(report))
        switch format {
        case .text: Swift.print(TextRendering.report(report))
        case .json: Swift.print(try ReportJSON.string(report))
        case .sarif: Swift.print(try SARIFRendering.render([subject], tool: ToolInfo.tool))
        case .junit: Swift.print(JUnitRendering.render([subject], command: command), terminator: "")
        }
    }
}

extension CheckPurpose: ExpressibleByArgument {}

/// What `--report-format` can ask for.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case text, json, sarif, junit
}
