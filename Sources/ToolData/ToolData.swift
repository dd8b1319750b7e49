import FormatSupport
// Foundation proper would bring its own ICU module, whose C enums clash with the system ICU that
// libxml2's headers include (this module imports XMLSupport); FoundationEssentials has what this
// file needs and no ICU.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tool's own data, resolved once before any input: the Templates folder, its SDK catalog and
/// the toolkit version with its true source (`--toolkit-version`, else `toolkit.json`). The
/// command line builds one and passes it down to every inspection, wrap, sign and batch job; no
/// library looks it up of its own accord.
public struct ToolData: Sendable, Equatable {
    public let templates: TemplateDirectory
    public let sdkCatalog: SDKCatalog
    public let toolkitVersion: ToolkitVersion

    public init(templates: TemplateDirectory, sdkCatalog: SDKCatalog, toolkitVersion: ToolkitVersion) {
        self.templates = templates
        self.sdkCatalog = sdkCatalog
        self.toolkitVersion = toolkitVersion
    }

    /// Reads the catalog of `templates` and, unless `toolkitVersion` is given (`--toolkit-version`,
    /// which wins), its `toolkit.json`.
    public init(templates: TemplateDirectory, toolkitVersion: ToolkitVersion? = nil) throws {
        let catalog = try SDKCatalog(templates: templates)
        self.init(templates: templates, sdkCatalog: catalog, toolkitVersion: try toolkitVersion ?? templates.toolkitVersion())
    }

    /// Locates the Templates folder (`templatesPath` is `--templates`; see
    /// `TemplateDirectory.locate`) and reads it.
    public static func resolve(templatesPath: String? = nil, toolkitVersion: ToolkitVersion? = nil) throws -> ToolData {
        try ToolData(templates: TemplateDirectory.locate(explicitPath: templatesPath), toolkitVersion: toolkitVersion)
    }
}

extension SDKCatalog {
    /// Reads `sdk-catalog.json` from a Templates folder.
    public init(templates: TemplateDirectory) throws(SDKCatalogError) {
        let url = templates.url.appendingPathComponent(Self.fileName)
        let bytes: [UInt8]
        do {
            let file = try FileByteSource(path: url.path)
            guard file.size <= UInt64(Self.maximumSize) else {
                throw SDKCatalogError(.invalid(path: url.path, detail: "it is larger than \(Self.maximumSize) bytes"))
            }
            bytes = try file.read(offset: 0, count: Int(file.size))
        } catch let error as SDKCatalogError {
            throw error
        } catch {
            throw SDKCatalogError(.unreadable(path: url.path))
        }
        try self.init(jsonBytes: bytes, source: url.path)
    }
}
