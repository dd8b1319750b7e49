/// A finding code ipawrap can report, with its default severity, when it is reported and what to
/// do about it. Each area declares its codes in `FindingCode+Area.swift`, beside the area's detail
/// (`FindingDetail+Area.swift`), whose cases name them; `FindingCode.all` lists them (a test checks
/// docs/finding-codes.md against it).
public struct FindingCode: Sendable, Hashable, CustomStringConvertible {
    /// The stable code, e.g. `ICON_NOT_FOUND`.
    public let rawValue: String
    /// Default severity; some checks change it (e.g. `--allow-wildcard`).
    public let severity: Severity
    /// When the finding is reported, in one line.
    public let summary: String
    /// What to do about it, in one line.
    public let remedy: String
    /// Whether it is a rule of wrapping (MDX's, not the device's): an error of it stops `wrap`
    /// and `wrap --sign` (and fails `check`), while `sign`, which judges only what signing and
    /// installing need, reports it as a warning (`CheckPurpose.signing`).
    public let isWrappingRule: Bool
    /// The error a device gives when it refuses an app for this (installd's or amfid's code and
    /// words, as install tools print them), when one is known.
    public let installError: InstallError?

    public init(
        _ rawValue: String, _ severity: Severity, summary: String, remedy: String, wrappingRule: Bool = false,
        installError: InstallError? = nil
    ) {
        self.rawValue = rawValue
        self.severity = severity
        self.summary = summary
        self.remedy = remedy
        self.isWrappingRule = wrappingRule
        self.installError = installError
    }

    public var description: String { rawValue }

    public static func == (lhs: FindingCode, rhs: FindingCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
