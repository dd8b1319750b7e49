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
            print(json ? try Self.json(summary) : Self.text(summary))
            if check && summary.findings.contains(where: { $0.severity == .error }) {
                ReportRendering.stoppedByFindings(file, summary.findings, "the check failed because of")
                throw ExitCode(1)
            }
        }
    }

    static func json(_ summary: ProfileSummary) throws -> String {
        try ReportJSON.string(summary)
    }

    static func text(_ summary: ProfileSummary, style: Style = .standardOutput) -> String {
        var lines: [String] = []
        // The profile's strings are the signer's: escaped, so they cannot drive the terminal.
        var title = style.bold(Terminal.escaped(summary.name ?? "(unnamed profile)"))
        if let uuid = summary.uuid { title += "  " + uuid }
        lines.append(title)
        var appID = Terminal.escaped(summary.appIdentifier)
        switch summary.appIdKind {
        case .fullWildcard: appID += "  " + style.yellow("wildcard: every bundle ID")
        case .partialWildcard: appID += "  " + style.yellow("wildcard")
        case .explicit: appID += "  explicit"
        }
        lines.append(row("App ID", appID))
        let team = Terminal.escaped([summary.teamName, summary.teamId.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
        if !team.isEmpty { lines.append(row("Team", team)) }
        var kind = summary.kind.rawValue
        if summary.provisionsAllDevices {
            kind += ", all devices"
        } else if summary.kind == .development || summary.kind == .adhoc {
            kind += ", \(summary.deviceCount) device\(summary.deviceCount == 1 ? "" : "s")"
        }
        lines.append(row("Kind", kind))
        if !summary.platforms.isEmpty { lines.append(row("Platforms", summary.platforms.joined(separator: ", "))) }
        if let created = summary.creationDate { lines.append(row("Created", ReportJSON.timestamp(created))) }
        lines.append(row("Expires", ReportJSON.timestamp(summary.expirationDate) + (summary.expired ? "  " + style.red("expired") : "")))
        for (index, certificate) in summary.certificates.enumerated() {
            var text = Terminal.escaped(certificate.commonName ?? "(no common name)")
            text += "  serial \(certificate.serialNumber), valid to \(ReportJSON.timestamp(certificate.notValidAfter))"
            if certificate.expired { text += "  " + style.red("expired") }
            lines.append(row(index == 0 ? "Certificates" : "", text))
        }
        if summary.certificates.isEmpty { lines.append(row("Certificates", "none readable")) }
        if case .object(let entitlements) = summary.entitlements {
            let keys = entitlements.keys.sorted()
            let width = min(keys.map(\.count).max() ?? 0, 44)
            for (index, key) in keys.enumerated() {
                let value = entitlements[key].map(render) ?? ""
                lines.append(row(index == 0 ? "Entitlements" : "", Terminal.escaped(key.padding(toLength: max(width, key.count), withPad: " ", startingAt: 0) + "  " + value)))
            }
        }
        let container = summary.container
        lines.append(row("Container", "\(container.encoding), \(container.digestAlgorithms.joined(separator: ", "))"
            + (container.signedBy.isEmpty ? "" : ", signed by \(container.signedBy.joined(separator: ", "))")
            + " (signature not verified)"))
        lines.append("")
        lines.append(contentsOf: TextRendering.findings(summary.findings, style: style))
        return lines.joined(separator: "\n")
    }

    private static func render(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .array(let items): "[" + items.map(render).joined(separator: ", ") + "]"
        case .object(let object): "{" + object.keys.sorted().map { "\($0): \(object[$0].map(render) ?? "")" }.joined(separator: ", ") + "}"
        }
    }

    private static func row(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 13, withPad: " ", startingAt: 0) + value
    }
}
