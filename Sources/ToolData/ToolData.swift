import Checks
import FormatSupport
import Policy
import Reporting

/// The tool's own data, resolved once before any input: the Templates folder, its SDK catalog and
/// the toolkit version with its true source (`--toolkit-version`, else `toolkit.json`). The
/// command line builds one and passes it down to every inspection, wrap and batch job.
public struct ToolData: Sendable, Equatable {
    public let templates: TemplateDirectory
    public let sdkCatalog: SDKCatalog
    public let toolkitVersion: ToolkitVersion

    public init(templates: TemplateDirectory, sdkCatalog: SDKCatalog, toolkitVersion: ToolkitVersion) {
        self.templates = templates
        self.sdkCatalog = sdkCatalog
        self.toolkitVersion = toolkitVersion
    }

    /// Reads the catalog and the toolkit version of `templates`; `toolkitVersionOption`
    /// (`--toolkit-version`) wins over `toolkit.json`, which is then not read.
    public init(templates: TemplateDirectory, toolkitVersionOption: String? = nil) throws {
        let catalog = try SDKCatalog(templates: templates)
        let toolkit =
            if let toolkitVersionOption { try ToolkitVersion(option: toolkitVersionOption) } else { try templates.toolkitVersion() }
        self.init(templates: templates, sdkCatalog: catalog, toolkitVersion: toolkit)
    }

    /// Locates the Templates folder (`templatesPath` is `--templates`; see
    /// `TemplateDirectory.locate`) and reads it.
    public static func resolve(templatesPath: String? = nil, toolkitVersionOption: String? = nil) throws -> ToolData {
        try ToolData(templates: TemplateDirectory.locate(explicitPath: templatesPath), toolkitVersionOption: toolkitVersionOption)
    }

    /// What the checks read.
    public var checks: CheckData {
        CheckData(sdkCatalog: sdkCatalog, toolkitVersion: toolkitVersion)
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
