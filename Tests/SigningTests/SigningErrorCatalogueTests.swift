import Foundation
import Signing
import Testing
import TestSupport

@Suite struct SigningErrorCatalogueTests {
    /// Every `SIGN_*` code has a row in the signing page's table (`docs/signing.md`).
    @Test func everySigningErrorIsInTheSigningPage() throws {
        let page = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/signing.md"), encoding: .utf8)
        for reason in SigningError.Reason.allCases {
            #expect(page.contains("| `\(reason.rawValue)` |"), "docs/signing.md lacks a row for \(reason.rawValue)")
        }
    }
}
