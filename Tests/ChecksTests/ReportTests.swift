import Checks
import Foundation
import Reporting
import Testing
import TestSupport

/// `FindingCode.all` (the catalogue of `FindingCode+Catalogue.swift`) against the README's *Finding codes* table.
@Suite struct FindingCodeCatalogueTests {
    private let readme = (try? String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    @Test func everyCodeIsExplainedInTheREADME() {
        for code in FindingCode.all {
            let severity = code.severity.rawValue + (code.isWrappingRule ? ", wrapping rule" : "")
            #expect(readme.contains("| `\(code.rawValue)` | \(severity) |"), "README lacks a row for \(code.rawValue)")
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
