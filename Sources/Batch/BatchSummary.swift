import FormatSupport
import Foundation

/// The counts of a batch so far, and its exit code.
public struct BatchSummary: Sendable, Equatable {
    /// Inputs in this run (after `--shard`).
    public var total: Int
    public var ok = 0
    public var withFindings = 0
    public var failed = 0
    /// How many failed inputs gave each exit code.
    public var exitCodes: [Int32: Int] = [:]
    /// Sum of the inputs' own times (more than the wall time when jobs overlap).
    public var inputSeconds: Double = 0

    public init(total: Int) {
        self.total = total
    }

    public var finished: Int { ok + withFindings + failed }

    public mutating func add(_ result: BatchResult) {
        switch result.status {
        case .ok: ok += 1
        case .findings: withFindings += 1
        case .failed:
            failed += 1
            exitCodes[result.exitCode, default: 0] += 1
        }
        inputSeconds += result.seconds
    }

    /// The batch's exit code: 0 when no input failed, 1 when any did (130 is for an interrupted
    /// batch, decided by whoever interrupted it).
    public var exitCode: Int32 { failed > 0 ? ExitStatus.findings : ExitStatus.success }

    /// One line, e.g. `40 inputs: 35 ok, 3 with findings, 2 failed (1 exit 1, 1 exit 65) in 12.3 s, 3.3 per second`;
    /// without the time when `elapsed` is nil (results merged from shards that ran apart).
    public func line(elapsed: Double?, interrupted: Bool = false) -> String {
        var text = interrupted
            ? "interrupted after \(finished) of \(total) input\(total == 1 ? "" : "s"): "
            : "\(total) input\(total == 1 ? "" : "s"): "
        text += "\(ok) ok, \(withFindings) with findings, \(failed) failed"
        if !exitCodes.isEmpty {
            text += " (" + exitCodes.sorted { $0.key < $1.key }.map { "\($0.value) exit \($0.key)" }.joined(separator: ", ") + ")"
        }
        if let elapsed {
            text += " in " + ProgressLine.duration(elapsed)
            if elapsed > 0, finished > 0 {
                text += ", " + ProgressLine.rate(Double(finished) / elapsed)
            }
        }
        if interrupted {
            let notStarted = total - finished
            text += "; \(notStarted) not done (unfinished outputs were discarded)"
        }
        return text
    }
}

/// The one-line progress display of a batch on a terminal:
/// `[ 12/40] 2 failed · 3.1/s · ETA 9 s · App1.ipa, App2.ipa`.
public struct ProgressLine: Sendable {
    public var total: Int
    public var finished = 0
    public var failed = 0
    /// Names of the inputs in flight, oldest first.
    public var running: [String] = []

    public init(total: Int) {
        self.total = total
    }

    /// The line, at most `width` characters (the running names are cut first), coloured by
    /// `colour` (e.g. red for the failure count) when given.
    public func render(elapsed: Double, width: Int, colour: ((String) -> String)? = nil) -> String {
        let digits = String(total).count
        let done = String(repeating: " ", count: max(0, digits - String(finished).count)) + "\(finished)/\(total)"
        var plain = "[\(done)]"
        var failures = ""
        if failed > 0 {
            failures = " \(failed) failed"
        }
        var tail = ""
        if elapsed > 0.5, finished > 0 {
            let perSecond = Double(finished) / elapsed
            tail += " · " + Self.rate(perSecond)
            let remaining = Double(total - finished) / perSecond
            if total > finished { tail += " · ETA " + Self.duration(remaining) }
        }
        if !running.isEmpty { tail += " · " + running.joined(separator: ", ") }
        plain += failures + tail
        let limit = max(10, width - 1)
        if plain.count > limit { plain = String(plain.prefix(limit - 1)) + "…" }
        guard let colour, !failures.isEmpty, let range = plain.range(of: failures) else { return plain }
        return plain.replacingCharacters(in: range, with: " " + colour(String(failures.dropFirst())))
    }

    /// `0.4 s`, `12 s`, `3 min 5 s`, `2 h 1 min`.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    /// `3.1/s`, or `12/min` below one per second.
    public static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite, perSecond > 0 else { return "?" }
        return perSecond >= 1 ? String(format: "%.1f/s", perSecond) : String(format: "%.1f/min", perSecond * 60)
    }
}
