import Checks
import Foundation
import Reporting
import Testing
import TestSupport

/// The catalogue (`FindingCode.areas`, in `FindingCode+Catalogue.swift`) is the finding-code page:
/// `docs/finding-codes.md` holds, between two markers, the tables this suite renders from it, so a
/// code, severity, text or device error changed in the code and not in the docs fails here.
/// `IPAWRAP_WRITE_DOCS=1 swift test --filter FindingCodeCatalogueTests` rewrites the tables.
@Suite struct FindingCodeCatalogueTests {
    static let page = Fixtures.packageRoot.appendingPathComponent("docs/finding-codes.md")
    static let begin = "<!-- generated from FindingCode.areas by Tests/ChecksTests/ReportTests.swift; "
        + "IPAWRAP_WRITE_DOCS=1 swift test --filter FindingCodeCatalogueTests rewrites it -->"
    static let end = "<!-- end of the generated tables -->"

    /// Which commands report an area's codes, said once above its table.
    static let areaIntroductions: [String: String] = [
        "icon": "The app icon, found as [`icon`](commands.md#icon-how-the-icon-is-found) says "
            + "(`inspect`, `check`, `wrap`, `sign`).",
        "bundle": "The bundles: identifiers, executables, platform (`inspect`, `check`, `wrap`, `sign`).",
        "profile": "Provisioning profiles, embedded or given with `--profile` and `--profiles-dir` "
            + "(`inspect`, `check`, `wrap`, `sign`; `profile show` for one file).",
        "binary": "The executables: encryption, embedded SDKs, libraries, App Transport Security "
            + "(`inspect`, `check`, `wrap`, `sign`).",
        "install": "What a device's installd and amfid check ([Will it install?](install-checks.md)): `verify` "
            + "on the signatures, `check`, `wrap` and `sign` on the profiles they assign, with `--device` and `--os`.",
        "wrap": "Wrapping itself (`wrap`).",
        "signature": "Code signatures, checked by `verify` (and on what `sign` writes).",
    ]

    /// The tables: a heading and a table per area, a row per code.
    static func renderedTables() -> String {
        var text = begin + "\n"
        for (area, codes) in FindingCode.areas {
            text += "\n### \(area.prefix(1).uppercased() + area.dropFirst())\n\n"
            if let introduction = areaIntroductions[area] { text += introduction + "\n\n" }
            text += "| code | severity | when | what to do | a device says |\n|---|---|---|---|---|\n"
            for code in codes {
                let severity = code.severity.rawValue + (code.isWrappingRule ? ", wrapping rule" : "")
                let device = code.installError.map { "`\($0.code)`" } ?? ""
                text += "| `\(code.rawValue)` | \(severity) | \(cell(code.summary)) | \(cell(code.remedy)) | \(device) |\n"
            }
        }
        return text + "\n" + end
    }

    /// A table cell: a `|` in the text would end the cell.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }

    @Test func theFindingCodePageIsTheCatalogue() throws {
        let page = try String(contentsOf: Self.page, encoding: .utf8)
        let start = try #require(page.range(of: Self.begin), "docs/finding-codes.md lacks the generated tables' marker")
        let stop = try #require(page.range(of: Self.end, range: start.upperBound..<page.endIndex))
        let rendered = Self.renderedTables()
        if ProcessInfo.processInfo.environment["IPAWRAP_WRITE_DOCS"] == "1" {
            let rewritten = page.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: rendered)
            try rewritten.write(to: Self.page, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(page[start.lowerBound..<stop.upperBound]) == rendered,
                "docs/finding-codes.md differs from the catalogue: IPAWRAP_WRITE_DOCS=1 swift test --filter FindingCodeCatalogueTests")
        // Every code is in the page once, as a row.
        for code in FindingCode.all {
            #expect(page.components(separatedBy: "| `\(code.rawValue)` |").count == 2, "\(code.rawValue)")
        }
    }

    @Test func codesAreUniqueAndWellFormed() {
        let names = FindingCode.all.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for code in FindingCode.all {
            #expect(code.rawValue.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber })
            #expect(!code.summary.isEmpty && !code.remedy.isEmpty)
            #expect(FindingCode.named(code.rawValue) == code)
        }
    }

    @Test func theContractsCodesExist() {
        let contract = [
            "ICON_NOT_FOUND", "ICON_REFERENCE_MISSING", "ALREADY_WRAPPED", "SIGNATURE_INVALIDATED",
            "SDK_VERSION_MISMATCH", "SDK_VERSION_INCONSISTENT", "SDK_STATIC_UNVERSIONED", "APP_ENCRYPTED",
            "APP_ID_WILDCARD", "APP_ID_MISMATCH", "PROFILE_MISSING", "PROFILE_EXPIRED", "PROFILE_EXPIRING",
            "TEAM_MISMATCH", "EXTENSION_ID_NOT_PREFIXED",
        ]
        for code in contract {
            #expect(FindingCode.named(code) != nil, "\(code) is missing")
        }
    }
}
