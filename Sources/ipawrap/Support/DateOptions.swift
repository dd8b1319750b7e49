import ArgumentParser
import Foundation
import Zip

/// `--at DATE`, declared once: every command that judges dates (`inspect`, `check`, `wrap`,
/// `sign`, `verify`, `profile show`, the batch commands) takes this group, so the option has one
/// parser (`ArgumentValues.date`) and one help text.
struct EvaluationDateOption: ParsableArguments {
    @Option(name: .customLong("at"), help: ArgumentHelp(
        "Judge expiry and validity (profiles, certificates) at this date (YYYY-MM-DD or ISO 8601) instead of now.",
        valueName: "date"),
        transform: ArgumentValues.date)
    var date: Date?
}

/// `--timestamp WHEN`, declared once for `wrap`, `batch wrap` and `repack`: the modification time
/// of the entries a command adds.
struct NewEntryTimestampOption: ParsableArguments {
    // `.unconditional`: `--timestamp -1` is refused for its value, not as a missing one.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Modification time of added entries: 'latest' (the newest in the archive), 'now', or seconds since 1970 "
            + "(default: SOURCE_DATE_EPOCH, else latest).",
        valueName: "when"))
    var timestamp: String?

    func validate() throws {
        _ = try newEntryTimestamp()
    }

    /// `--timestamp`, else `SOURCE_DATE_EPOCH` (seconds only), else the newest time in the archive.
    func newEntryTimestamp(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> NewEntryTimestamp {
        switch timestamp {
        case "latest":
            return .latestInArchive
        case "now":
            return .secondsSince1970(Int64(Date().timeIntervalSince1970))
        case let text?:
            guard let seconds = EpochSeconds.parse(text) else {
                throw EpochSeconds.refusal(of: text, as: "--timestamp", expecting: "'latest', 'now' or \(EpochSeconds.expected)")
            }
            return .secondsSince1970(seconds)
        case nil:
            return try EpochSeconds.fromEnvironment(environment).map { .secondsSince1970($0) } ?? .latestInArchive
        }
    }
}

/// Seconds since 1970 as `--timestamp`, `--signing-time` and `SOURCE_DATE_EPOCH` give them, under
/// one rule: a whole number, 0 or more. A negative or fractional value is a usage error naming
/// where it came from. (A zip's DOS date holds 1980 to 2107: earlier or later times are written as
/// its first or last day, as zip writes them; each added entry's extended timestamp holds the
/// exact time up to 2106.)
enum EpochSeconds {
    /// The reproducible-builds variable, read when the option is not given.
    static let environmentVariable = "SOURCE_DATE_EPOCH"
    /// How the messages describe a valid value.
    static let expected = "seconds since 1970 (a whole number, 0 or more)"

    /// The seconds of `text`; nil when it is not a whole number of seconds from 0 up.
    static func parse(_ text: String) -> Int64? {
        guard isDigits(text) else { return nil }
        return Int64(text)
    }

    static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The usage error for `text`, given as `name`, which `parse` refused; `expecting` says what
    /// would do. A number of digits too large for 64 bits is said to be too large.
    static func refusal(of text: String, as name: String, expecting: String = expected) -> ValidationError {
        ValidationError("\(name) expects \(expecting), got '\(text)'" + (isDigits(text) ? " (too large)" : ""))
    }

    /// `option`'s value when given (named `optionName` in the error), else `SOURCE_DATE_EPOCH`'s;
    /// nil when neither is set.
    static func value(of optionName: String, _ option: String?, environment: [String: String]) throws -> Int64? {
        guard let option else { return try fromEnvironment(environment) }
        guard let seconds = parse(option) else { throw refusal(of: option, as: optionName) }
        return seconds
    }

    /// `SOURCE_DATE_EPOCH`, when set.
    static func fromEnvironment(_ environment: [String: String]) throws -> Int64? {
        guard let text = environment[environmentVariable] else { return nil }
        guard let seconds = parse(text) else { throw refusal(of: text, as: environmentVariable) }
        return seconds
    }
}
