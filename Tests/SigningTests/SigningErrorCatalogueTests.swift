import Foundation
import Signing
import Testing
import TestSupport

@Suite struct SigningErrorCatalogueTests {
    /// Every `SIGN_*` code has a row in the README's "Sign on Linux" table.
    @Test func everySigningErrorIsInTheREADME() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for reason in SigningError.Reason.allCases {
            #expect(readme.contains("| `\(reason.rawValue)` |"), "README lacks a row for \(reason.rawValue)")
        }
    }
}
