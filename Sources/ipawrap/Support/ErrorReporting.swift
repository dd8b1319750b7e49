import ArgumentParser
import Checks
import FormatSupport
import Foundation
import Reporting

/// Runs a command body and turns every failure into one sentence on stderr and the exit status
/// of the command-line contract: 64 usage, 65 bad input, 74 I/O, 70 for an internal error.
///
/// - Parameter jsonInput: for a command run with `--json`, its input: a failure then also prints
///   one JSON object on stdout (`JSONErrorReport`), so a pipeline reading stdout never gets nothing.
func reportingErrors<T>(json jsonInput: String? = nil, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CodedError {
        let message = String(describing: error)
        Terminal.error(code: error.code, message)
        if let jsonInput { JSONErrorReport(input: jsonInput, code: error.code, message: message).print() }
        throw ExitCode(error.category.exitStatus)
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        Terminal.error(code: "USAGE", error.message)
        if let jsonInput { JSONErrorReport(input: jsonInput, code: "USAGE", message: error.message).print() }
        throw ExitCode(ExitStatus.usage)
    } catch {
        Terminal.standardError("ipawrap: internal error: \(Terminal.oneLine(String(describing: error)))")
        throw ExitCode(ExitStatus.internalError)
    }
}

/// What `--json` prints on stdout when the command fails: `{"schemaVersion", "input", "error":
/// {code, message[, details]}}`. The message is the stderr line's; a message of several lines
/// (libxml2's, a schema's) is joined there and listed line by line in `details`.
struct JSONErrorReport: Encodable {
    let schemaVersion = Report.currentSchemaVersion
    let input: String
    let error: InputFailure

    init(input: String, code: String, message: String) {
        self.input = input
        let lines = Terminal.lines(of: message)
        self.error = InputFailure(code: code, message: Terminal.joined(lines), details: lines.count > 1 ? lines : nil)
    }

    func print() {
        guard let text = try? ReportJSON.string(self) else { return }
        Swift.print(text)
    }
}

enum Terminal {
    /// Prints one line on stderr, its control characters escaped (it may quote a file name or
    /// an app's strings).
    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((escaped(line) + "\n").utf8))
    }

    /// The README's error line, `ipawrap: error[CODE]: <message>`: one line whatever the message
    /// holds (line breaks joined with "; ", other control characters escaped).
    static func error(code: String, _ message: String) {
        standardError("ipawrap: error[\(code)]: \(oneLine(message))")
    }

    /// `text` on one line: its lines (trimmed, blank ones dropped) joined with "; ", and control
    /// characters escaped.
    static func oneLine(_ text: String) -> String {
        escaped(joined(lines(of: text)))
    }

    /// The non-blank lines of a message, trimmed.
    static func lines(of text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Lines joined with "; " (after a line ending in a colon, a space).
    static func joined(_ lines: [String]) -> String {
        var result = ""
        for line in lines {
            if !result.isEmpty { result += result.hasSuffix(":") ? " " : "; " }
            result += line
        }
        return result
    }

    /// `text` safe to print on a terminal (`TextRendering.escaped`).
    static func escaped(_ text: String) -> String {
        TextRendering.escaped(text)
    }
}

extension IPAWrap {
    /// Parses and runs the command; an argument the parser refuses (an unknown option, a missing
    /// value, a bad number) is the one-line `error[USAGE]` with exit 64 and a help hint last, like
    /// every other error. Help and version requests print as the parser prints them.
    static func parseAndRun(_ arguments: [String]) {
        if let invalid = invalidSetValue() {
            Terminal.error(code: "USAGE", "--set \(invalid): the value is not valid UTF-8 (see 'ipawrap wrap --help')")
            Foundation.exit(ExitStatus.usage)
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let status = exitCode(for: error)
            guard status == .validationFailure else { exit(withError: error) }
            // A value refused with a code of its own (`--toolkit-version`'s) is reported by that code.
            if let refusal = codedError(in: error) {
                Terminal.error(code: refusal.code, String(describing: refusal))
                Foundation.exit(refusal.category.exitStatus)
            }
            Terminal.error(code: "USAGE", Self.message(for: error) + " (see '\(helpCommand(for: arguments))')")
            Foundation.exit(ExitStatus.usage)
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// The `CodedError` an option's transform threw, which the parser's error holds as the value's
    /// `originalError`. ArgumentParser's error types are internal, so the error is found by its
    /// type among the parser error's parts; `depth` bounds the search (the error nests three deep).
    static func codedError(in value: Any, depth: Int = 8) -> (any CodedError)? {
        if let coded = value as? any CodedError { return coded }
        guard depth > 0 else { return nil }
        for child in Mirror(reflecting: value).children {
            if let coded = codedError(in: child.value, depth: depth - 1) { return coded }
        }
        return nil
    }

    /// The first `--set` argument whose raw bytes are not valid UTF-8 (as the user can read it),
    /// or nil. Swift's `CommandLine.arguments` would have replaced such bytes with U+FFFD, and a
    /// policy value silently changed is worse than a refusal.
    private static func invalidSetValue() -> String? {
        let count = Int(CommandLine.argc)
        var expectingValue = false
        for index in 1..<max(1, count) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let raw = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            let isValue = expectingValue || raw.starts(with: Array("--set=".utf8))
            expectingValue = raw == Array("--set".utf8)
            if isValue, String(validating: raw, as: UTF8.self) == nil {
                return String(decoding: raw, as: UTF8.self)
            }
        }
        return nil
    }

    /// `ipawrap SUBCOMMAND... --help` for the subcommands named at the start of `arguments`.
    private static func helpCommand(for arguments: [String]) -> String {
        var words = ["ipawrap"]
        var level: [ParsableCommand.Type] = configuration.subcommands
        for argument in arguments {
            guard let match = level.first(where: { $0._commandName == argument }) else { break }
            words.append(argument)
            level = match.configuration.subcommands
        }
        return (words + ["--help"]).joined(separator: " ")
    }
}
