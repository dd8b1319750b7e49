import Foundation

extension TextRendering {
    /// `profile show`'s summary for people: name, App ID, team, kind, dates, certificates,
    /// entitlements and container, then the findings. The profile's strings are the signer's:
    /// escaped, so they cannot drive the terminal.
    public static func profile(_ summary: ProfileSummary, style: Style = .standardOutput) -> String {
        var lines: [String] = []
        var title = style.bold(escaped(summary.name ?? "(unnamed profile)"))
        if let uuid = summary.uuid { title += "  " + escaped(uuid) }
        lines.append(title)
        var appID = escaped(summary.appIdentifier)
        switch summary.appIdKind {
        case .fullWildcard: appID += "  " + style.yellow("wildcard: every bundle ID")
        case .partialWildcard: appID += "  " + style.yellow("wildcard")
        case .explicit: appID += "  explicit"
        }
        lines.append(profileRow("App ID", appID))
        let team = escaped([summary.teamName, summary.teamId.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
        if !team.isEmpty { lines.append(profileRow("Team", team)) }
        var kind = summary.kind.rawValue
        if summary.provisionsAllDevices {
            kind += ", all devices"
        } else if summary.kind == .development || summary.kind == .adhoc {
            kind += ", \(summary.deviceCount) device\(summary.deviceCount == 1 ? "" : "s")"
        }
        lines.append(profileRow("Kind", kind))
        if !summary.platforms.isEmpty { lines.append(profileRow("Platforms", escaped(summary.platforms.joined(separator: ", ")))) }
        if let created = summary.creationDate { lines.append(profileRow("Created", ReportJSON.timestamp(created))) }
        lines.append(profileRow("Expires", ReportJSON.timestamp(summary.expirationDate) + (summary.expired ? "  " + style.red("expired") : "")))
        for (index, certificate) in summary.certificates.enumerated() {
            var text = escaped(certificate.commonName ?? "(no common name)")
            text += "  serial \(certificate.serialNumber), valid to \(ReportJSON.timestamp(certificate.notValidAfter))"
            if certificate.expired { text += "  " + style.red("expired") }
            lines.append(profileRow(index == 0 ? "Certificates" : "", text))
        }
        if summary.certificates.isEmpty { lines.append(profileRow("Certificates", "none readable")) }
        if case .object(let entitlements) = summary.entitlements {
            let sorted = entitlements.sorted { $0.key < $1.key }
            let width = min(sorted.map(\.key.count).max() ?? 0, 44)
            for (index, (key, value)) in sorted.enumerated() {
                lines.append(profileRow(
                    index == 0 ? "Entitlements" : "",
                    escaped(key.padding(toLength: max(width, key.count), withPad: " ", startingAt: 0) + "  " + inline(value))))
            }
        }
        let container = summary.container
        lines.append(profileRow("Container", escaped("\(container.encoding), \(container.digestAlgorithms.joined(separator: ", "))"
            + (container.signedBy.isEmpty ? "" : ", signed by \(container.signedBy.joined(separator: ", "))"))
            + " (signature not verified)"))
        lines.append("")
        lines.append(contentsOf: findings(summary.findings, style: style))
        return lines.joined(separator: "\n")
    }

    /// An entitlement's value on one line: arrays in brackets, objects in braces, keys sorted.
    static func inline(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .array(let items): "[" + items.map(inline).joined(separator: ", ") + "]"
        case .object(let object): "{" + object.sorted { $0.key < $1.key }.map { "\($0.key): \(inline($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    /// A labelled row of `profile show` (its labels are wider than the report's).
    private static func profileRow(_ label: String, _ value: String) -> String {
        row(label, value, width: 13)
    }
}
