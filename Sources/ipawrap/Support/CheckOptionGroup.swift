import ArgumentParser
import Checks
import Foundation
import Reporting
import ToolData

/// Options that change findings, shared by every command that runs the checks: `inspect`,
/// `check`, `wrap`, `sign` and the batch commands. The tool data (`--templates`,
/// `--toolkit-version`) is here too, so every such command finds its Templates folder alike.
struct CheckOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The toolkit version an embedded MDX SDK must match (default: Templates/toolkit.json).", valueName: "X.Y.Z"),
        // Its refusal keeps its own code, `TOOLKIT_VERSION_INVALID`: the parser keeps the error a
        // transform throws, and `IPAWrap.parseAndRun` reports it by its code.
        transform: ToolkitVersion.init(option:))
    var toolkitVersion: ToolkitVersion?

    @OptionGroup var templates: TemplateOptions

    @Option(name: .customLong("profile"), help: ArgumentHelp(
        "A provisioning profile for the main app (PATH) or for a nested bundle (BUNDLE_ID=PATH); repeatable.",
        valueName: "[BUNDLE_ID=]PATH"),
        transform: ProfileArgument.init(parsing:))
    var profiles: [ProfileArgument] = []

    @Option(help: ArgumentHelp("Match profiles from this folder to bundles by App ID (exact before wildcard).", valueName: "dir"))
    var profilesDir: String?

    @Flag(help: "Report wildcard App IDs as warnings instead of errors.")
    var allowWildcard = false

    @OptionGroup var evaluationDate: EvaluationDateOption

    @OptionGroup var install: InstallOptionGroup

    /// The files these options read, which no output may replace: each profile, the profiles
    /// folder and the Templates folder.
    var inputFiles: [String] {
        profiles.map(\.path) + (profilesDir.map { [$0] } ?? []) + templates.inputFiles
    }

    func validate() throws {
        if profiles.filter({ $0.bundleIdentifier == nil }).count > 1 {
            throw ValidationError("--profile PATH is given twice for the main app")
        }
    }

    /// The options as the checks take them, with every profile file read and decoded here, once
    /// for the whole command (every input of a batch is judged with the same `ProfileSet`).
    func checkOptions(sha256: Bool = false) throws -> CheckOptions {
        var bundleProfiles: [String: String] = [:]
        for profile in profiles {
            if let identifier = profile.bundleIdentifier { bundleProfiles[identifier] = profile.path }
        }
        let profileSet = try ProfileSet(
            appProfile: profiles.first { $0.bundleIdentifier == nil }?.path, bundleProfiles: bundleProfiles,
            directory: profilesDir)
        return CheckOptions(
            profiles: profileSet, allowWildcard: allowWildcard, evaluationDate: evaluationDate.date, computeSHA256: sha256,
            install: install.options)
    }

    /// The Templates folder (`--templates`, else the usual search), its SDK catalog and the
    /// toolkit version (`--toolkit-version` wins over `toolkit.json`), resolved once for the
    /// whole command.
    func toolData() throws -> ToolData {
        try ToolData.resolve(templatesPath: templates.templates, toolkitVersion: toolkitVersion)
    }
}
