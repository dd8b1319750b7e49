import ArgumentParser
import ToolData

/// `--templates DIR`, declared once: the check options of every command that runs checks hold it,
/// and so do the `policy` commands.
struct TemplateOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The Templates folder (default: IPAWRAP_TEMPLATES, then Templates or share/ipawrap/Templates beside the ipawrap "
            + "executable or a folder above it).",
        valueName: "dir"))
    var templates: String?

    /// The files these options read, which no output may replace.
    var inputFiles: [String] { templates.map { [$0] } ?? [] }

    func directory() throws -> TemplateDirectory {
        try TemplateDirectory.locate(explicitPath: templates)
    }
}
