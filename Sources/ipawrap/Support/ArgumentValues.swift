import ArgumentParser
import FormatSupport
import Foundation
import Synchronization
import ToolData

/// Option values with a shape of their own, parsed once, when the arguments are: a bad one is the
/// usage error (`error[USAGE]`, exit 64) naming the option, and commands get the parsed value.
enum ArgumentValues {
    /// `--at`: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time.
    static func date(_ text: String) throws -> Date {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date }
        throw ValidationError("expects YYYY-MM-DD or an ISO 8601 date and time")
    }
}

/// `--toolkit-version X.Y.Z`, parsed once, when the arguments are, into the value the checks and
/// the wrap use. Its refusal keeps its own code, `TOOLKIT_VERSION_INVALID`.
extension ToolkitVersion: ExpressibleByArgument {
    public init?(argument: String) {
        switch Result(catching: { () throws(ToolkitVersionError) in try ToolkitVersion(option: argument) }) {
        case .success(let version):
            self = version
        case .failure(let refusal):
            ArgumentRefusal.record(refusal, option: "--toolkit-version")
            return nil
        }
    }
}

/// A refusal with a code of its own from an `ExpressibleByArgument` value (e.g.
/// `TOOLKIT_VERSION_INVALID`): the parser only learns that the value is invalid, so the refusal
/// waits here for `IPAWrap.parseAndRun`, which reports it instead of the parser's `USAGE` line.
enum ArgumentRefusal {
    private static let last = Mutex<(refusal: any CodedError, option: String)?>(nil)

    static func record(_ refusal: any CodedError, option: String) {
        last.withLock { $0 = (refusal, option) }
    }

    /// The refusal recorded since the last call, if the parser's `message` is about its option
    /// (with several bad values, the parser names the one it stopped at).
    static func take(matching message: String) -> (any CodedError)? {
        last.withLock { recorded in
            defer { recorded = nil }
            guard let recorded, message.contains("'\(recorded.option) ") || message.contains("'\(recorded.option)'") else { return nil }
            return recorded.refusal
        }
    }
}

/// `--profile [BUNDLE_ID=]PATH`: a provisioning profile for the main app, or for the nested bundle
/// with that ID. An argument that names an existing file is a PATH even if it holds `=`, and so is
/// one with a `/` before its first `=`.
struct ProfileArgument: Equatable, Sendable {
    /// Nil for the main app.
    var bundleIdentifier: String?
    var path: String

    init(parsing argument: String) throws {
        guard !argument.hasPrefix("="), !argument.hasSuffix("=") else {
            throw ValidationError("expects PATH or BUNDLE_ID=PATH")
        }
        if let separator = argument.firstIndex(of: "="), FileSystem.kind(of: argument, following: true) == nil,
           !argument[..<separator].contains("/") {
            bundleIdentifier = String(argument[..<separator])
            path = String(argument[argument.index(after: separator)...])
        } else {
            bundleIdentifier = nil
            path = argument
        }
    }
}

/// `KEY=VALUE` (e.g. `--add PATH=FILE`), split at the first `=`: the value may hold more.
struct KeyValueArgument: Equatable, Sendable {
    var key: String
    var value: String

    /// - Parameter form: how the option writes it, for the error (`PATH=FILE`).
    init(parsing argument: String, form: String) throws {
        guard let equals = argument.firstIndex(of: "=") else { throw ValidationError("expects \(form)") }
        key = String(argument[..<equals])
        value = String(argument[argument.index(after: equals)...])
    }
}
