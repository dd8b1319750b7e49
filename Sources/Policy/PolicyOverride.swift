import FormatSupport

/// A `--set NAME=VALUE` request: give policy NAME the default VALUE.
public struct PolicyOverride: Sendable, Equatable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `NAME=VALUE`, splitting at the first `=` (values may contain `=`, as in
    /// `AllowedURLs=^http:=ctxmobilebrowser:`). VALUE may be empty.
    public init(argument: String) throws(PolicyOverrideError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw PolicyOverrideError(reason: .syntax, name: argument, detail: "expected NAME=VALUE")
        }
        let name = String(argument[..<equals])
        guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
            throw PolicyOverrideError(reason: .syntax, name: name, detail: "expected NAME=VALUE with a policy name before '='")
        }
        self.init(name: name, value: String(argument[argument.index(after: equals)...]))
    }
}

/// A `--set` that cannot be applied. These are mistakes in the request, so the category is usage.
public struct PolicyOverrideError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason {
        /// Not of the form NAME=VALUE.
        case syntax = "POLICY_SET_SYNTAX"
        /// No policy has that name.
        case unknownName = "POLICY_UNKNOWN_NAME"
        /// The value is not valid for the policy's type.
        case invalidValue = "POLICY_INVALID_VALUE"

        public var category: ErrorCategory { .usage }
    }

    public let reason: Reason
    public let name: String
    /// Close policy names, best first (for `.unknownName`).
    public let suggestions: [String]
    public let detail: String

    public init(reason: Reason, name: String, suggestions: [String] = [], detail: String = "") {
        self.reason = reason
        self.name = name
        self.suggestions = suggestions
        self.detail = detail
    }

    public var description: String {
        switch reason {
        case .syntax:
            return "cannot read the override '\(name)': \(detail)"
        case .unknownName:
            let hint = suggestions.isEmpty ? "" : "; did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?"
            return "the template has no policy named '\(name)'\(hint)"
        case .invalidValue:
            return "cannot set '\(name)': \(detail)"
        }
    }
}
