import ArgumentParser
import Checks
import Foundation
import Reporting
import ToolData

/// Options that change findings, shared by `inspect`, `check` and `wrap`.
struct CheckOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The toolkit version an embedded MDX SDK must match (default: Templates/toolkit.json).", valueName: "X.Y.Z"))
    var toolkitVersion: String?

    @Option(name: .customLong("profile"), help: ArgumentHelp(
        "A provisioning profile for the main app (PATH) or for a nested bundle (BUNDLE_ID=PATH); repeatable.",
        valueName: "[BUNDLE_ID=]PATH"))
    var profiles: [String] = []

    @Option(help: ArgumentHelp("Match profiles from this folder to bundles by App ID (exact before wildcard).", valueName: "dir"))
    var profilesDir: String?

    @Flag(help: "Report wildcard App IDs as warnings instead of errors.")
    var allowWildcard = false

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Judge profile expiry at this date (YYYY-MM-DD or ISO 8601) instead of now.", valueName: "date"))
    var evaluationDate: String?

    /// The files these options read, which no output may replace: each profile (with or without
    /// its BUNDLE_ID= prefix) and the profiles folder.
    var inputFiles: [String] {
        profiles.flatMap { profile in [profile] + (profile.split(separator: "=", maxSplits: 1).last.map { [String($0)] } ?? []) }
            + (profilesDir.map { [$0] } ?? [])
    }

    func validate() throws {
        _ = try parsedDate()
        for profile in profiles where profile.hasPrefix("=") || profile.hasSuffix("=") {
            throw ValidationError("--profile expects PATH or BUNDLE_ID=PATH, got '\(profile)'")
        }
        // Here, not when the options are used: a ValidationError is a usage error (64) only
        // while the arguments are being parsed.
        _ = try parsedProfiles()
    }

    func checkOptions(sha256: Bool = false) throws -> CheckOptions {
        let (appProfile, bundleProfiles) = try parsedProfiles()
        return CheckOptions(
            appProfile: appProfile, bundleProfiles: bundleProfiles,
            profilesDirectory: profilesDir, allowWildcard: allowWildcard, evaluationDate: try parsedDate(),
            computeSHA256: sha256)
    }

    /// The Templates folder (`--templates`, where the command has it, else the usual search),
    /// its SDK catalog and the toolkit version (`--toolkit-version` wins), resolved once.
    func toolData(templatesPath: String? = nil) throws -> ToolData {
        try ToolData.resolve(templatesPath: templatesPath, toolkitVersionOption: toolkitVersion)
    }

    /// `--profile PATH` for the app and `--profile BUNDLE_ID=PATH` for nested bundles.
    private func parsedProfiles() throws -> (app: String?, bundles: [String: String]) {
        var appProfile: String?
        var bundleProfiles: [String: String] = [:]
        for profile in profiles {
            // BUNDLE_ID=PATH, unless the whole argument names an existing file.
            if let separator = profile.firstIndex(of: "="), !FileManager.default.fileExists(atPath: profile),
               !profile[..<separator].contains("/") {
                bundleProfiles[String(profile[..<separator])] = String(profile[profile.index(after: separator)...])
            } else {
                if appProfile != nil { throw ValidationError("--profile PATH is given twice for the main app") }
                appProfile = profile
            }
        }
        return (appProfile, bundleProfiles)
    }

    private func parsedDate() throws -> Date? {
        guard let text = evaluationDate else { return nil }
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date }
        throw ValidationError("--at expects YYYY-MM-DD or an ISO 8601 date and time, got '\(text)'")
    }
}
