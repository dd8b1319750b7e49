import ArgumentParser
import FormatSupport
import Foundation
import ToolData

/// Option values with a shape of their own, parsed once, when the arguments are: a bad one is the
/// usage error (`error[USAGE]`, exit 64) naming the option, and commands get the parsed value.
enum ArgumentValues {
    /// `--at`: `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time.
    static func date(_ text: String) throws -> Date {
        if let seconds = CivilDate.secondsSince1970(utcTimestamp: text) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        if let date = day.date(from: text) { return date }
        throw ValidationError("expects YYYY-MM-DD or an ISO 8601 date and time")
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
