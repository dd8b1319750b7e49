import FormatSupport

/// The toolkit version embedded MDX SDK frameworks must match, and where it came from. One rule
/// for its text (`SDKVersion`: numbers separated by dots), whether `--toolkit-version` or
/// `toolkit.json` gives it. Findings carry it as it is and name it by `text` and `source`.
public struct ToolkitVersion: Sendable, Hashable {
    /// Named in messages by its raw value.
    public enum Source: String, Sendable, Hashable, CustomStringConvertible {
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
public struct ToolkitVersionError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        case invalid = "TOOLKIT_VERSION_INVALID"

        public var category: ErrorCategory { .usage }
    }

    public let value: String

    public init(value: String) {
        self.value = value
    }

    public var reason: Reason { .invalid }
    public var description: String {
        "--toolkit-version expects a version such as 20.10.5 (numbers separated by dots), got '\(value)'"
    }
}
