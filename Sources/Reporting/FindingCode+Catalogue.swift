/// The catalogue: every code of every area of checks. It lives with the findings (each area's codes
/// beside its detail, which names them), so every layer that reports or renders a finding sees it.
extension FindingCode {
    /// Every code, by area: the catalogue docs/finding-codes.md, SARIF rules and JUnit test cases come from.
    public static var areas: [(name: String, codes: [FindingCode])] {
        [("icon", iconCodes), ("bundle", bundleCodes), ("profile", profileCodes), ("binary", binaryCodes),
         ("install", installCodes), ("wrap", wrapCodes), ("signature", signatureCodes)]
    }

    /// Every code, by area.
    public static var all: [FindingCode] {
        areas.flatMap(\.codes)
    }

    /// The area of checks that reports `rawValue` (see `areas`), or nil for a code not in the catalogue.
    public static func area(of rawValue: String) -> String? {
        areas.first { $0.codes.contains { $0.rawValue == rawValue } }?.name
    }

    /// The wrapping rules' codes, for help texts: "ICON_NOT_FOUND, PLATFORM_UNSUPPORTED, …".
    public static var wrappingRuleList: String {
        all.filter(\.isWrappingRule).map(\.rawValue).joined(separator: ", ")
    }

    /// The code with this raw value: for a finding read back from JSON, which has only the name.
    public static func named(_ rawValue: String) -> FindingCode? {
        byName[rawValue]
    }

    private static let byName = Dictionary(all.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
}

extension SARIFRendering {
    /// The SARIF log with the whole catalogue as its rules.
    public static func render(_ subjects: [ReportSubject], tool: Report.Tool) throws -> String {
        try render(subjects, tool: tool, catalogue: FindingCode.all)
    }
}

extension JUnitRendering {
    /// The JUnit report with a testcase per area of the catalogue.
    public static func render(_ subjects: [ReportSubject], command: String) -> String {
        render(subjects, command: command, catalogue: FindingCode.areas)
    }
}
