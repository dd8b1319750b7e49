import FormatSupport
import Reporting

/// The data the checks read besides the input: the SDK catalog and the toolkit version. The
/// caller resolves it once (the command line, from the Templates folder and `--toolkit-version`)
/// and passes it to every inspection, so the checks never look files up themselves.
public struct CheckData: Sendable, Equatable {
    public let sdkCatalog: SDKCatalog
    public let toolkitVersion: ToolkitVersion

    public init(sdkCatalog: SDKCatalog, toolkitVersion: ToolkitVersion) {
        self.sdkCatalog = sdkCatalog
        self.toolkitVersion = toolkitVersion
    }
}

/// The toolkit version embedded MDX SDK frameworks must match, and where it came from.
public struct ToolkitVersion: Sendable, Equatable {
    /// Named in messages by its raw value.
    public enum Source: String, Sendable, Equatable, CustomStringConvertible {
        /// `--toolkit-version`.
        case option = "--toolkit-version"
        /// `ToolkitVersion` of the Templates folder's `toolkit.json`.
        case toolkitInfo = "Templates/toolkit.json"

        public var description: String { rawValue }
    }

    /// As the user or `toolkit.json` wrote it.
    public let text: String
    public let version: SDKVersion
    public let source: Source

    public init(text: String, version: SDKVersion, source: Source) {
        self.text = text
        self.version = version
        self.source = source
    }

    /// `--toolkit-version`'s value.
    public init(option text: String) throws(ToolkitVersionError) {
        guard let version = SDKVersion(text) else { throw ToolkitVersionError(value: text) }
        self.init(text: text, version: version, source: .option)
    }

    /// `ToolkitVersion` of `toolkit.json`; nil when it is not a version.
    public init?(toolkitInfo text: String) {
        guard let version = SDKVersion(text) else { return nil }
        self.init(text: text, version: version, source: .toolkitInfo)
    }
}

/// `--toolkit-version` is not a version.
public struct ToolkitVersionError: CodedError, Equatable {
    public let value: String

    public var code: String { "TOOLKIT_VERSION_INVALID" }
    public var category: ErrorCategory { .usage }
    public var description: String {
        "--toolkit-version expects a version such as 20.10.5 (numbers separated by dots), got '\(value)'"
    }
}

extension ToolkitVersion {
    /// The version and its source as a finding names them.
    var reference: BinaryDetail.ToolkitReference {
        BinaryDetail.ToolkitReference(version: text, source: source.description)
    }
}
