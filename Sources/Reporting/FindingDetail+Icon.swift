import AppBundle

/// The facts of the icon findings (docs/commands.md, "`icon`: how the icon is found").
public enum IconDetail: Sendable, Hashable {
    /// `ICON_REFERENCE_MISSING`: Info.plist names an icon no file matches.
    case referenceMissing(appPath: String, source: IconSource, name: String, candidates: [String])
    /// `ICON_UNREADABLE`: a candidate file that cannot be used.
    case unreadable(path: String, reason: String)
    /// `ICON_NOT_FOUND`.
    case notFound(appPath: String)

    /// The code these facts are reported under.
    public var code: FindingCode {
        switch self {
        case .referenceMissing: .iconReferenceMissing
        case .unreadable: .iconUnreadable
        case .notFound: .iconNotFound
        }
    }

    public var message: String {
        switch self {
        case .referenceMissing(let appPath, let source, let name, let candidates):
            "Info.plist (\(source.rawValue)) names the icon '\(name)', but no file matching it is in \(appPath)/ "
                + "(looked for \(candidates.prefix(4).joined(separator: ", ")), …)"
        case .unreadable(let path, let reason):
            "\(path) cannot be used as the icon: \(reason)"
        case .notFound(let appPath):
            "\(appPath) has no usable app icon; the trace in the report lists every place that was searched"
        }
    }
}
