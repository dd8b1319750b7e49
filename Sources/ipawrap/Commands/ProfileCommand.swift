import ArgumentParser
import Checks
import Foundation
import ProvisioningProfile
import Reporting

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Provisioning profile tools.",
        subcommands: [ProfileShowCommand.self]
    )
}

struct ProfileShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Decode a .mobileprovision: App ID, team, kind, devices, dates, certificates and entitlements.",
        discussion: """
            The CMS container is read with BER rules (indefinite lengths and chunked content are fine); \
            the signature is not verified. Findings (wildcard App ID, expiry, platform, certificates) are \
            listed; they change the exit status only with --check. Exit codes: 0 decoded, 1 with --check \
            when a finding is an error at --at or now, 65 not a readable profile, 74 the file cannot be read.
            """
    )

    @Argument(help: "The .mobileprovision file.")
    var file: String

    @Flag(help: "Print the profile as JSON (sorted keys, ISO 8601 UTC dates).")
    var json = false

    @Flag(help: "Report a wildcard App ID as a warning instead of an error.")
    var allowWildcard = false

    @Flag(help: "Use the profile as a gate: exit 1 when any finding is an error (e.g. expired at --at or now).")
    var check = false

    @OptionGroup var evaluationDate: EvaluationDateOption

    func run() throws {
        try reportingErrors(json: json ? file : nil) {
            let profile = try ProvisioningProfile(contentsOfFile: file)
            let summary = ProfileSummary(profile, file: file, now: evaluationDate.date ?? Date(), allowWildcard: allowWildcard)
            print(json ? try Self.json(summary) : TextRendering.profile(summary))
            if check && summary.findings.contains(where: { $0.severity == .error }) {
                ReportRendering.stoppedByFindings(file, summary.findings, "the check failed because of")
                throw ExitCode(1)
            }
        }
    }

    static func json(_ summary: ProfileSummary) throws -> String {
        try ReportJSON.string(summary)
    }
}
