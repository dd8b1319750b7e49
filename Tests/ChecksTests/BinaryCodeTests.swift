@testable import Checks
import Reporting
import Testing

/// The finding codes of the binary checks.
@Suite struct BinaryCodeTests {
    @Test func binaryCodesAreUniqueAndMatchTheContract() {
        let codes = FindingCode.binaryCodes
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(FindingCode.all.map(\.rawValue)).count == FindingCode.all.count)
        let contract: [String: Severity] = [
            "APP_ENCRYPTED": .error, "SDK_VERSION_MISMATCH": .error, "SDK_VERSION_INCONSISTENT": .error,
            "SDK_STATIC_UNVERSIONED": .warning,
        ]
        for (code, severity) in contract {
            #expect(FindingCode.named(code)?.severity == severity, "\(code)")
        }
        for code in codes {
            #expect(code.rawValue.allSatisfy { $0.isUppercase || $0 == "_" }, "\(code)")
            #expect(!code.remedy.isEmpty && !code.remedy.contains("\n"), "\(code)")
            #expect(!code.summary.isEmpty, "\(code)")
        }
    }
}
