import ArgumentParser
import ToolData

/// Where the templates folder is, for commands that need policy templates or toolkit data.
struct TemplateOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The templates folder (default: IPAWRAP_TEMPLATES, then beside the ipawrap executable, then the source checkout).",
        valueName: "dir"))
    var templates: String?

    /// The files these options read, which no output may replace.
    var inputFiles: [String] { templates.map { [$0] } ?? [] }

    func directory() throws -> TemplateDirectory {
        try TemplateDirectory.locate(explicitPath: templates)
    }
}
