/// How serious a finding is. `check` and `wrap` fail on any error.
public enum Severity: String, Codable, Sendable, Comparable, CaseIterable {
    case error
    case warning
    case info

    public static func < (lhs: Severity, rhs: Severity) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        }
    }
}

/// One result of a check: what was found, where, and what to do about it. Checks produce
/// findings as data; the command line renders them.
public struct Finding: Codable, Sendable, Equatable, Hashable {
    /// A stable code of `FindingCode.all` (the README's *Finding codes*), e.g. `APP_ID_WILDCARD`.
    public var code: String
    public var severity: Severity
    /// One or two sentences naming the bundle or file and what is wrong.
    public var message: String
    /// The archive path (or file) the finding is about.
    public var path: String?
    /// What to do about it.
    public var remedy: String?

    public init(code: String, severity: Severity, message: String, path: String? = nil, remedy: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.path = path
        self.remedy = remedy
    }

    /// A finding with the catalogue's severity and remedy for `code`.
    public init(_ code: FindingCode, message: String, path: String? = nil, severity: Severity? = nil, remedy: String? = nil) {
        self.init(
            code: code.rawValue, severity: severity ?? code.severity, message: message, path: path,
            remedy: remedy ?? code.remedy)
    }

    enum CodingKeys: String, CodingKey {
        case code, severity, message, path, remedy
    }
}

extension Finding {
    /// The order of a report's findings, decided here only: errors, then warnings, then infos;
    /// within a severity by code, then by path (none first).
    public static func reportOrder(_ lhs: Finding, _ rhs: Finding) -> Bool {
        (lhs.severity, lhs.code, lhs.path ?? "") < (rhs.severity, rhs.code, rhs.path ?? "")
    }
}
