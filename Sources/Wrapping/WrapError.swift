import FormatSupport

/// Why a wrap request cannot start.
public enum WrapError: CodedError, Equatable {
    case policyFileUnreadable(String, reason: String)
    /// A profile to embed could not be read again for signing.
    case profileUnreadable(String, reason: String)

    public var code: String {
        switch self {
        case .policyFileUnreadable: "POLICY_FILE_UNREADABLE"
        case .profileUnreadable: "SIGN_PROFILE_UNREADABLE"
        }
    }

    public var category: ErrorCategory {
        switch self {
        case .policyFileUnreadable, .profileUnreadable: .io
        }
    }

    public var description: String {
        switch self {
        case .policyFileUnreadable(let path, let reason): "\(path): the policy file cannot be read: \(reason)"
        case .profileUnreadable(let path, let reason): "\(path): the profile cannot be read to embed it: \(reason)"
        }
    }
}
