import Checks
import FormatSupport
import Foundation
import Reporting

/// What happened to one input of a batch.
public struct BatchResult: Sendable {
    /// The outcome in one word.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// The single-file command succeeded (exit 0) with no error or warning finding.
        case ok
        /// It succeeded (exit 0) with warnings, or, for `inspect`, with error findings (inspect
        /// reports them but does not fail on them).
        case findings
        /// It would have exited non-zero: error findings for `check` and `wrap` (1), bad input
        /// (65), an output that cannot be written (74), or a usage error (64).
        case failed
    }

    public let input: BatchInput
    public let status: Status
    /// The exit code the single-file command (`inspect`, `check`, `wrap`, `sign`) would give this input.
    public let exitCode: Int32
    /// Its report, why it has none (exit 64, 65, 74 or 70: an unreadable or unsafe archive), or
    /// both when the report was made and then its JSON or the output could not be written.
    public let outcome: InputOutcome
    /// The file written for this input (the wrapped app, or a JSON report in `--out-dir`).
    public let output: String?
    /// Wall-clock seconds spent on this input.
    public let seconds: Double
    /// The app icon as a small standard PNG, when the HTML report or JSON lines asked for it.
    public let iconThumbnail: [UInt8]?
    /// For `sign` and `wrap --sign`, the bundles of the output as signed (nil when nothing was
    /// written).
    public let signedBundles: [Report.Bundle]?

    public init(
        input: BatchInput, exitCode: Int32, outcome: InputOutcome, output: String?, seconds: Double,
        iconThumbnail: [UInt8]? = nil, signedBundles: [Report.Bundle]? = nil
    ) {
        self.input = input
        self.exitCode = exitCode
        self.outcome = outcome
        self.output = output
        self.seconds = seconds
        self.iconThumbnail = iconThumbnail
        self.signedBundles = signedBundles
        if exitCode != 0 {
            status = .failed
        } else if outcome.report?.findings.contains(where: { $0.severity != .info }) == true {
            status = .findings
        } else {
            status = .ok
        }
    }

    public var errors: Int { count(.error) }
    public var warnings: Int { count(.warning) }
    public var infos: Int { count(.info) }

    private func count(_ severity: Severity) -> Int {
        outcome.report?.findings.reduce(0) { $0 + ($1.severity == severity ? 1 : 0) } ?? 0
    }

    /// The exit status and failure for an error thrown while processing an input.
    static func failure(from error: Error) -> (Int32, InputFailure) {
        if let coded = error as? CodedError {
            return (coded.category.exitStatus, InputFailure(code: coded.code, message: coded.description))
        }
        // Not a CodedError: a defect, reported like `ipawrap: internal error` (exit 70).
        return (ExitStatus.internalError, InputFailure(code: "INTERNAL_ERROR", message: "\(error)"))
    }
}

/// One line of `--json-lines`: the result of one input, with its full report, and the run it
/// belongs to.
///
/// ```
/// {"errors":0,"exitCode":0,"failure":null,"icon":null,"index":0,"infos":0,"input":"apps/A.ipa","name":"A.ipa",
///  "output":"out/A.ipa","report":{…},"run":{…},"schemaVersion":2,"seconds":0.412,"signed":null,"status":"ok","warnings":1}
/// ```
/// Every key is always present (`null` when empty, `@ExplicitNull`), keys are sorted, and each record is written as
/// one line with one `write`, so lines of concurrent inputs never interleave.
public struct BatchRecord: Codable, Sendable, Equatable {
    /// 2: `run`, `index`, `signed` and `icon` were added.
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int
    /// The input's path as opened.
    public var input: String
    /// Its name within the batch (relative to its folder argument), see `BatchInput.name`.
    public var name: String
    /// Its place among the batch's inputs, before `--shard` (`BatchInput.index`).
    public var index: Int
    public var status: BatchResult.Status
    public var exitCode: Int32
    public var errors: Int
    public var warnings: Int
    public var infos: Int
    /// Milliseconds precision.
    public var seconds: Double
    @ExplicitNull public var output: String?
    @ExplicitNull public var failure: InputFailure?
    /// The report of the single-file command's `--json`, when one was produced.
    @ExplicitNull public var report: Report?
    /// `sign` and `wrap --sign`: the bundles as signed, as `inspect` lists bundles.
    @ExplicitNull public var signed: [Report.Bundle]?
    /// The app icon as a small PNG, base64 (with `--json-lines` or `--report`).
    @ExplicitNull public var icon: String?
    public var run: BatchRun

    public init(_ result: BatchResult, run: BatchRun) {
        schemaVersion = Self.currentSchemaVersion
        input = result.input.path
        name = result.input.name
        index = result.input.index
        status = result.status
        exitCode = result.exitCode
        errors = result.errors
        warnings = result.warnings
        infos = result.infos
        seconds = (result.seconds * 1000).rounded() / 1000
        output = result.output
        failure = result.outcome.failure
        report = result.outcome.report
        signed = result.signedBundles
        icon = result.iconThumbnail.map { Data($0).base64EncodedString() }
        self.run = run
    }

    /// The record as one line of JSON (sorted keys, no newline inside), ending in a newline.
    public func jsonLine() throws -> [UInt8] {
        try ReportJSON.bytes(self, .compact)
    }

    /// The outcome its `report` and `failure` write; nil for a record with neither, which no run
    /// writes.
    public var outcome: InputOutcome? { InputOutcome(report: report, failure: failure) }

    /// The result the record was written from (its time to the millisecond); nil for a record
    /// with neither a report nor a failure.
    public var result: BatchResult? {
        outcome.map { outcome in
            BatchResult(
                input: BatchInput(path: input, name: name, index: index), exitCode: exitCode, outcome: outcome,
                output: output, seconds: seconds, iconThumbnail: icon.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) },
                signedBundles: signed)
        }
    }
}
