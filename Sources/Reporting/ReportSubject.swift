/// One input of a CI report (`--report-format sarif|junit`): its report, or why it has none.
public struct ReportSubject: Sendable {
    /// The input's path as opened.
    public let path: String
    /// Its name: the name within a batch, the path for a single input.
    public let name: String
    public let report: Report?
    /// An error that stopped the input before it had a report (exit 64, 65, 70 or 74).
    public let failure: InputFailure?

    public init(path: String, name: String, report: Report?, failure: InputFailure? = nil) {
        self.path = path
        self.name = name
        self.report = report
        self.failure = failure
    }
}
