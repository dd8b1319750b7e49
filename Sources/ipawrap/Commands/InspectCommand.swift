import ArgumentParser
import Checks
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

    @Argument(help: "The .ipa to inspect.")
    var ipa: String

    @OptionGroup var output: ReportOptions
    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var limits: ArchiveLimitOptions

    func run() throws {
        try reportingErrors(json: output.json ? ipa : nil) {
            let options = try checks.checkOptions(sha256: output.sha256)
            let inspection = try Inspector.inspect(
                path: ipa, options: options, data: try checks.toolData().checks, limits: limits.limits, tool: ToolInfo.tool)
            try output.print(inspection.report)
        }
    }
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run every check on an IPA, as a gate: exit 1 on any error finding.",
        discussion: "Exit codes: 0 no error finding, 1 at least one error finding, 65 bad input, 74 I/O error."
    )

    @Argument(help: "The .ipa to check.")
    var ipa: String

    @OptionGroup var output: ReportOptions
    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var limits: ArchiveLimitOptions

    func run() throws {
        let failed = try reportingErrors(json: output.json ? ipa : nil) {
            let options = try checks.checkOptions(sha256: output.sha256)
            let inspection = try Inspector.inspect(
                path: ipa, options: options, data: try checks.toolData().checks, limits: limits.limits, tool: ToolInfo.tool)
            try output.print(inspection.report)
            return inspection.report.hasErrors
        }
        if failed { throw ExitCode(1) }
    }
}

/// How `inspect` and `check` print their report.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON.")
    var json = false

    @Flag(help: "Also compute the SHA-256 of the whole file (reads every byte).")
    var sha256 = false

    func print(_ report: Report) throws {
        Swift.print(json ? try ReportRendering.json(report) : ReportRendering.text(report))
    }
}
