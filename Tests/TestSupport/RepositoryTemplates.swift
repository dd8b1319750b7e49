import Foundation
import ToolData

/// The repository's `Templates` folder, named explicitly: the tool never finds it from where its
/// sources were compiled, so tests hand it over (`TemplateDirectory(at:)` for the libraries,
/// `IPAWRAP_TEMPLATES` for the command line, which `Command.ipawrap` sets unless a test does).
public enum RepositoryTemplates {
    public static let url = Fixtures.packageRoot.appendingPathComponent("Templates", isDirectory: true)
    public static var path: String { url.path }

    public static func directory() throws -> TemplateDirectory {
        try TemplateDirectory(at: url)
    }

    /// The tool data the command line resolves from the repository's Templates, with `toolkitVersion`
    /// as `--toolkit-version` (nil: `toolkit.json`'s).
    public static func toolData(toolkitVersion: String? = nil) throws -> ToolData {
        try ToolData(templates: directory(), toolkitVersion: toolkitVersion.map { try ToolkitVersion(option: $0) })
    }
}
