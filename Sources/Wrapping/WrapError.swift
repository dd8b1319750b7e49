import FormatSupport

/// Why a wrap request cannot start.
public enum WrapError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case policyFileUnreadable = "POLICY_FILE_UNREADABLE"

        public var category: ErrorCategory {
            switch self {
            case .policyFileUnreadable: .io
            }
        }
    }

    case policyFileUnreadable(String, reason: String)

    public var reason: Reason {
        switch self {
        case .policyFileUnreadable: .policyFileUnreadable
        }
    }

    public var description: String {
        switch self {
        case .policyFileUnreadable(let path, let reason): "\(path): the policy file cannot be read: \(reason)"
        }
    }
}
