import Reporting
import Verification

extension FindingCode {
    /// `ipawrap verify`'s codes, declared by the `Verification` target.
    static let signatureCodes: [FindingCode] = SignatureFindingCode.all.map { code in
        FindingCode(code.rawValue, code.severity, summary: code.summary, remedy: code.remedy)
    }
}

extension Finding {
    /// A verification finding in the report's terms.
    public init(_ finding: SignatureFinding) {
        self.init(
            code: finding.code, severity: finding.severity, message: finding.message, path: finding.path,
            remedy: finding.remedy)
    }
}
