import FormatSupport

/// One problem found in a policy file.
public struct PolicyIssue: Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem; its raw value is the stable code users search for.
    public enum Kind: String, ErrorReason, CaseIterable {
        /// Not well-formed XML.
        case malformed = "XML_MALFORMED"
        /// The file declares an XML entity (billion laughs, XXE); refused before anything else.
        case entityDeclaration = "XML_ENTITY_DECLARATION"
        /// Larger than `PolicyDocument.maximumSize`.
        case tooLarge = "XML_TOO_LARGE"
        /// Declared or encoded as something other than UTF-8; the embedded file must be UTF-8.
        case notUTF8 = "POLICY_NOT_UTF8"
        /// Breaks `policy_metadata.xsd`: a missing, misplaced or malformed element or attribute.
        case schema = "POLICY_SCHEMA"
        /// `PolicyType` is not one of `PolicyValueType.knownTypeNames`.
        case unknownType = "POLICY_UNKNOWN_TYPE"
        /// Enum values or an integer range that do not fit the type, or contradict each other.
        case invalidConstraint = "POLICY_INVALID_CONSTRAINT"
        /// `PolicyDefault` is not a valid value of the policy's type.
        case invalidDefault = "POLICY_INVALID_DEFAULT"
        /// Two policies share a `PolicyName`.
        case duplicateName = "POLICY_DUPLICATE_NAME"
        /// The file could not be mapped for editing its `PolicyDefault` values in place.
        case layout = "POLICY_LAYOUT"
        /// More problems than are worth listing; the rest were counted, not kept.
        case tooManyIssues = "POLICY_TOO_MANY_ISSUES"
    }

    public let kind: Kind
    /// 1-based line in the file, or 0 when the problem has no single place.
    public let line: Int
    /// One sentence, without the line or code.
    public let message: String

    public init(_ kind: Kind, line: Int, _ message: String) {
        self.kind = kind
        self.line = line
        self.message = message
    }

    /// The stable code, e.g. `POLICY_INVALID_DEFAULT`.
    public var code: String { kind.rawValue }

    /// `line 12: [POLICY_INVALID_DEFAULT] ...`.
    public var description: String {
        line > 0 ? "line \(line): [\(code)] \(message)" : "[\(code)] \(message)"
    }
}

/// A policy file that cannot be used, with every problem found in it.
public struct PolicyValidationError: ReasonCodedError, Equatable {
    /// All problems, ordered by line; never empty.
    public let issues: [PolicyIssue]

    public init(issues: [PolicyIssue]) {
        self.issues = issues
    }

    /// The first problem's kind: its code is the error's.
    public var reason: PolicyIssue.Kind { issues.first?.kind ?? .schema }

    public var description: String {
        switch issues.count {
        case 0: return "the policy file is invalid"
        case 1: return "the policy file is invalid: \(issues[0])"
        default:
            return "the policy file has \(issues.count) problems:\n"
                + issues.map { "  \($0)" }.joined(separator: "\n")
        }
    }
}
