import Checks
import Reporting

/// One input of a CI report (`--report-format sarif|junit`): its report, or why it has none.
struct ReportSubject: Sendable {
    /// An error that stopped the input before it had a report (exit 64, 65, 70 or 74).
    struct Failure: Sendable, Equatable {
        let code: String
        let message: String
    }

    /// The input's path as opened.
    let path: String
    /// Its name: the name within a batch, the path for a single input.
    let name: String
    let report: Report?
    let failure: Failure?

    init(path: String, name: String, report: Report?, failure: Failure? = nil) {
        self.path = path
        self.name = name
        self.report = report
        self.failure = failure
    }
}
