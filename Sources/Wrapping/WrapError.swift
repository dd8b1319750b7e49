import FormatSupport

/// Why a wrap request cannot start.
public enum WrapError: CodedError, Equatable {
    case policyFileUnreadable(String, reason: String)

    public var code: String {
        switch self {
        case .policyFileUnreadable: "POLICY_FILE_UNREADABLE"
        }
    }

    public var category: ErrorCategory {
        switch self {
        case .policyFileUnreadable: .io
        }
    }

    public var description: String {
        switch self {
        case .policyFileUnreadable(let path, let reason): "\(path): the policy file cannot be read: \(reason)"
        }
    }
}
