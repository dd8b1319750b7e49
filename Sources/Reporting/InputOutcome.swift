/// What became of one input: its report, why it has none, or both, when an error came after the
/// report was made. The batch (`BatchResult`) and the single-file commands' CI reports
/// (`ReportSubject`) hold it, and every renderer (text, JSON lines, SARIF, JUnit, HTML) switches
/// over it; an input with neither a report nor a failure cannot be said.
public enum InputOutcome: Sendable, Equatable {
    /// The input was read and checked: its report, whatever it found.
    case report(Report)
    /// An error stopped the input before it had a report (exit 64, 65, 70 or 74).
    case failure(InputFailure)
    /// The report was made, then an error stopped what came after it: its JSON file or the
    /// output could not be written (exit 74). The report still says what was found.
    case failedAfterReport(Report, InputFailure)

    /// The outcome of the two optionals a batch record writes (`report`, `failure`); nil when
    /// both are nil, which no run writes.
    public init?(report: Report?, failure: InputFailure?) {
        if let failure {
            self.init(stoppedBy: failure, after: report)
        } else if let report {
            self = .report(report)
        } else {
            return nil
        }
    }

    /// An input `failure` stopped, after its `report` was made or before any was.
    public init(stoppedBy failure: InputFailure, after report: Report?) {
        self = report.map { .failedAfterReport($0, failure) } ?? .failure(failure)
    }

    /// The report, when one was made.
    public var report: Report? {
        switch self {
        case .report(let report), .failedAfterReport(let report, _): report
        case .failure: nil
        }
    }

    /// The report's findings; none when no report was made.
    public var findings: [Finding] { report?.findings ?? [] }

    /// The error that stopped the input, when one did.
    public var failure: InputFailure? {
        switch self {
        case .failure(let failure), .failedAfterReport(_, let failure): failure
        case .report: nil
        }
    }
}

/// One input of a CI report (`--report-format sarif|junit`): its name and what became of it.
public struct ReportSubject: Sendable {
    /// The input's path as opened.
    public let path: String
    /// Its name: the name within a batch, the path for a single input.
    public let name: String
    public let outcome: InputOutcome

    public init(path: String, name: String, outcome: InputOutcome) {
        self.path = path
        self.name = name
        self.outcome = outcome
    }
}
