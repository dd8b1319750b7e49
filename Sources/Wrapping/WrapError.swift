import FormatSupport

/// Why a wrap request cannot start: a sentence and the file it concerns.
public typealias WrapError = InputError<WrapErrorReason>

/// The stable code a user can search for.
public enum WrapErrorReason: String, ErrorReason, CaseIterable {
    case policyFileUnreadable = "POLICY_FILE_UNREADABLE"

    public var category: ErrorCategory {
        switch self {
        case .policyFileUnreadable: .io
        }
    }
}
