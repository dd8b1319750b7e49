/// A finding code ipawrap can report, with its default severity, when it is reported and what to
/// do about it. Each area of checks declares its codes in its own `FindingCode+Area.swift` file;
/// `FindingCode.all` lists them for documentation (a test checks the README against it).
public struct FindingCode: Sendable, Hashable, CustomStringConvertible {
    /// The stable code, e.g. `ICON_NOT_FOUND`.
    public let rawValue: String
    /// Default severity; some checks change it (e.g. `--allow-wildcard`).
    public let severity: Severity
    /// When the finding is reported, in one line.
    public let summary: String
    /// What to do about it, in one line.
    public let remedy: String

    public init(_ rawValue: String, _ severity: Severity, summary: String, remedy: String) {
        self.rawValue = rawValue
        self.severity = severity
        self.summary = summary
        self.remedy = remedy
    }

    public var description: String { rawValue }

    public static func == (lhs: FindingCode, rhs: FindingCode) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Every code, by area: the catalogue the README, SARIF rules and JUnit test cases come from.
    public static var areas: [(name: String, codes: [FindingCode])] {
        [("icon", iconCodes), ("bundle", bundleCodes), ("profile", profileCodes), ("binary", binaryCodes),
         ("wrap", wrapCodes), ("signature", signatureCodes)]
    }

    /// Every code, by area.
    public static var all: [FindingCode] {
        areas.flatMap(\.codes)
    }

    /// The area of checks that reports `rawValue` (see `areas`), or nil for a code not in the catalogue.
    public static func area(of rawValue: String) -> String? {
        areas.first { $0.codes.contains { $0.rawValue == rawValue } }?.name
    }

    /// The code with this raw value.
    public static func named(_ rawValue: String) -> FindingCode? {
        all.first { $0.rawValue == rawValue }
    }
}
