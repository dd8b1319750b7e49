import Batch
import Foundation
import Reporting
import Synchronization

/// What a batch prints: a result line (or JSON line) per input on stdout in input order, or one
/// SARIF or JUnit document at the end; the progress line on a terminal's stderr; the summary.
/// The session calls `handle` one event at a time, so lines never interleave.
final class BatchConsole: BatchEventSink {
    /// `inspect`, `check`, `wrap` or `sign`.
    private let command: String
    /// The tool the results are of (this one, or for `batch report` the shards').
    private let tool: Report.Tool
    private let jsonLines: Bool
    /// One SARIF or JUnit document on stdout at the end, instead of a line per input.
    private let document: BatchDocumentFormat?
    private let progressEnabled: Bool
    private let style = Style.standardOutput
    private let progressStyle = Style(
        enabled: isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true)
    /// Whether a progress line is on the terminal, to be cleared before anything else is printed.
    private let progressShown = Mutex(false)

    init(command: String, tool: Report.Tool, jsonLines: Bool, document: BatchDocumentFormat?, progress: Bool) {
        self.command = command
        self.tool = tool
        self.jsonLines = jsonLines
        self.document = document
        self.progressEnabled = progress
    }

    func render(_ result: BatchResult, in run: BatchRun) -> [UInt8] {
        if document != nil { return [] }
        return jsonLines ? Self.jsonLine(result, in: run) : Array((textLine(result) + "\n").utf8)
    }

    func handle(_ event: BatchEvent) {
        switch event {
        case .began(let plan):
            announce(plan)
        case .progress(let line, let elapsed):
            drawProgress(line, elapsed: elapsed)
        case .results(let results):
            clearProgress()
            for done in results { Self.write(STDOUT_FILENO, done.rendered) }
        case .stopped:
            clearProgress()
        case .reportWritten(let path, let interrupted):
            if !interrupted { Terminal.standardError("ipawrap: wrote the report \(path)") }
        case .reportFailed(let error):
            Terminal.error(code: error.code, "\(error)")
        case .ended(let end):
            if end.isEmptyShard {
                printDocument(end.results)
                Terminal.standardError(
                    "ipawrap: shard \(end.shard?.description ?? "?") has none of the \(end.total) inputs; nothing to do")
                return
            }
            if end.signal == nil { printDocument(end.results) }
            printSummary(end)
        }
    }

    private func announce(_ plan: BatchPlan) {
        guard progressEnabled || !(jsonLines || document != nil) else { return }
        var text = "ipawrap batch \(plan.commandName): \(plan.inputs) input\(plan.inputs == 1 ? "" : "s")"
        if let shard = plan.shard { text += " (shard \(shard) of \(plan.total))" }
        text += ", \(plan.jobs) job\(plan.jobs == 1 ? "" : "s") at once"
        Terminal.standardError(text)
    }

    /// `failed   65  Corrupt.ipa: error[ARCHIVE_NOT_ZIP] …; 0.01 s`
    private func textLine(_ result: BatchResult) -> String {
        let label = result.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        let coloured: String = switch result.status {
        case .ok: style.green(label)
        case .findings: style.yellow(label)
        case .failed: style.red(label)
        }
        var parts: [String] = []
        let (report, failure) = (result.outcome.report, result.outcome.failure)
        if let report {
            let app = report.app
            var about = app.displayName
            if let version = app.version { about += " \(version)" + (app.build.map { " (\($0))" } ?? "") }
            if let id = app.bundleId { about += ", \(id)" }
            parts.append(about)
            let counted = [(result.errors, "error"), (result.warnings, "warning")].filter { $0.0 > 0 }
            if counted.isEmpty {
                parts.append("no findings")
            } else {
                let codes = Set(report.findings.filter { $0.severity != .info }.map(\.code)).sorted()
                parts.append(counted.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
                    + " (" + codes.joined(separator: ", ") + ")")
            }
        }
        if let failure {
            parts.append("error[\(failure.code)] \(failure.message)")
        } else if command == "wrap" || command == "sign", result.output == nil, result.exitCode == 1 {
            parts.append(command == "wrap" ? "not wrapped" : "not signed")
        }
        // Everything after the coloured label comes from the input (names, messages): escaped.
        var rest = "\(result.input.name): " + parts.joined(separator: "; ") + "; " + String(format: "%.2f s", result.seconds)
        if let output = result.output { rest += " → \(output)" }
        return "\(coloured) \(String(result.exitCode).padding(toLength: 3, withPad: " ", startingAt: 0)) " + Terminal.oneLine(rest)
    }

    private func drawProgress(_ progress: ProgressLine, elapsed: Double) {
        guard progressEnabled else { return }
        let style = progressStyle
        let colour: ((String) -> String)? = style.enabled ? { style.red($0) } : nil
        let line = progress.render(elapsed: elapsed, width: Self.terminalWidth(), colour: colour)
        Self.write(STDERR_FILENO, Array(("\r" + line + "\u{1B}[K").utf8))
        progressShown.withLock { $0 = true }
    }

    private func clearProgress() {
        let shown = progressShown.withLock { shown in
            defer { shown = false }
            return shown
        }
        guard shown else { return }
        Self.write(STDERR_FILENO, Array("\r\u{1B}[K".utf8))
    }

    private func printSummary(_ end: BatchEnd) {
        let interrupted = end.signal != nil
        var line = end.summary.line(elapsed: end.elapsed, interrupted: interrupted)
        if let shard = end.shard { line = "shard \(shard): " + line }
        if jsonLines || document != nil || interrupted {
            Terminal.standardError("ipawrap: " + line)
        } else {
            Self.write(STDOUT_FILENO, Array((line + "\n").utf8))
        }
    }

    /// `batch report`: what the merged run would have printed when done, its result lines (or
    /// its document) and its summary.
    func printMerged(_ merged: MergedBatch, reportWritten: String?) {
        if document == nil {
            for result in merged.results { Self.write(STDOUT_FILENO, Array((textLine(result) + "\n").utf8)) }
        }
        if let reportWritten { Terminal.standardError("ipawrap: wrote the report \(reportWritten)") }
        printDocument(merged.results)
        let line = merged.summary.line(elapsed: nil) + "; merged from \(merged.shards) shard\(merged.shards == 1 ? "" : "s")"
        if document != nil {
            Terminal.standardError("ipawrap: " + line)
        } else {
            Self.write(STDOUT_FILENO, Array((line + "\n").utf8))
        }
    }

    /// The SARIF or JUnit document of every finished input, in input order.
    private func printDocument(_ results: [BatchResult]) {
        guard let document else { return }
        let subjects = results.map { ReportSubject(path: $0.input.path, name: $0.input.name, outcome: $0.outcome) }
        let text: String
        switch document {
        case .sarif:
            // Only a non-finite number could stop the encoder, and SARIF holds none.
            text = ((try? SARIFRendering.render(subjects, tool: tool)) ?? "{}") + "\n"
        case .junit:
            text = JUnitRendering.render(subjects, command: command)
        }
        Self.write(STDOUT_FILENO, Array(text.utf8))
    }

    // MARK: Output

    static func jsonLine(_ result: BatchResult, in run: BatchRun) -> [UInt8] {
        if let line = try? BatchRecord(result, run: run).jsonLine() { return line }
        // Only a non-finite number could stop the encoder; keep the line without the report.
        var record = BatchRecord(result, run: run)
        record.report = nil
        record.seconds = 0
        return (try? record.jsonLine()) ?? Array("{}\n".utf8)
    }

    /// Writes all of `bytes` with as few `write` calls as the descriptor allows (one for a line
    /// on a pipe or terminal), so lines reach readers whole.
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let count = Foundation.write(descriptor, base + done, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                done += count
            }
        }
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
