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
/// findings as data: the facts in `detail`, typed per area, which name the code and compute the
/// message, remedy and device error; where it is, in `location`; the severity, the code's unless a
/// check or the purpose changes it. Renderers read these values, never the text.
public struct Finding: Codable, Sendable, Hashable {
    /// The code's severity, unless changed (`--allow-wildcard`, `CheckPurpose.signing`...).
    public var severity: Severity
    /// The facts, by area: they name the code (`findingCode`) and `message` is their sentence.
    public var detail: FindingDetail
    /// The archive path or file the finding is about.
    public var location: FindingLocation?

    /// The code's stable name (`FindingCode.all`, docs/finding-codes.md), e.g. `APP_ID_WILDCARD`.
    public var code: String { detail.codeName }
    /// The code, typed: the detail's own, or the catalogue's for a finding read back from JSON
    /// (nil only for a code this build does not know).
    public var findingCode: FindingCode? { detail.code }
    /// One or two sentences naming the bundle or file and what is wrong, from `detail`.
    public var message: String { detail.message }
    /// What to do about it, from `detail`.
    public var remedy: String? { detail.remedy }
    /// The error a device would give for it (installd's or amfid's), when one is known.
    public var installError: InstallError? { detail.installError }
    /// The location's path, as reports write it.
    public var path: String? { location?.path }

    /// A finding of these facts at `location`, with its code's severity unless `severity` is given.
    public init(_ detail: FindingDetail, at location: FindingLocation? = nil, severity: Severity? = nil) {
        // Only a recorded finding can lack a code, and it is built with its severity (below).
        self.severity = severity ?? detail.code?.severity ?? .warning
        self.detail = detail
        self.location = location
    }

    /// A finding whose facts are not typed (`FindingDetail.recorded`): one read back from JSON, or
    /// a test's. Internal, so a check cannot skip its area's typed detail.
    init(
        code: String, severity: Severity, message: String, path: String? = nil, remedy: String? = nil,
        installError: InstallError? = nil
    ) {
        self.severity = severity
        detail = .recorded(RecordedFinding(code: code, message: message, remedy: remedy, installError: installError))
        location = path.map(FindingLocation.init(recordedPath:))
    }

    /// A finding with the catalogue's severity, remedy and device error for `code` and an untyped message (tests).
    init(_ code: FindingCode, message: String, path: String? = nil, severity: Severity? = nil, remedy: String? = nil) {
        self.init(
            code: code.rawValue, severity: severity ?? code.severity, message: message, path: path,
            remedy: remedy ?? code.remedy, installError: code.installError)
    }

    enum CodingKeys: String, CodingKey {
        case code, severity, message, path, remedy, installError
    }

    /// JSON carries the message, not the facts: a finding read back has a `.recorded` detail.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            code: try container.decode(String.self, forKey: .code),
            severity: try container.decode(Severity.self, forKey: .severity),
            message: try container.decode(String.self, forKey: .message),
            path: try container.decodeIfPresent(String.self, forKey: .path),
            remedy: try container.decodeIfPresent(String.self, forKey: .remedy),
            installError: try container.decodeIfPresent(InstallError.self, forKey: .installError))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(severity, forKey: .severity)
        try container.encode(message, forKey: .message)
        try container.encodeIfPresent(path, forKey: .path)
        try container.encodeIfPresent(remedy, forKey: .remedy)
        try container.encodeIfPresent(installError, forKey: .installError)
    }

    /// Two findings are equal when they say the same (code, severity, message, path, remedy),
    /// so a report read back from JSON equals the one written.
    public static func == (lhs: Finding, rhs: Finding) -> Bool {
        (lhs.code, lhs.severity, lhs.message, lhs.path, lhs.remedy) == (rhs.code, rhs.severity, rhs.message, rhs.path, rhs.remedy)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(severity)
        hasher.combine(message)
        hasher.combine(path)
        hasher.combine(remedy)
    }
}

extension Finding {
    /// The order of a report's findings, decided here only: errors, then warnings, then infos;
    /// within a severity by code, then by path (none first).
    public static func reportOrder(_ lhs: Finding, _ rhs: Finding) -> Bool {
        (lhs.severity, lhs.code, lhs.path ?? "") < (rhs.severity, rhs.code, rhs.path ?? "")
    }
}
