import FormatSupport

/// Why an archive cannot be signed with the identity and profiles given. Nothing is written.
public struct SigningError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        /// The identity's certificate is not among a profile's `DeveloperCertificates`.
        case certificateNotInProfile = "SIGN_CERTIFICATE_NOT_IN_PROFILE"
        /// The identity's team differs from a profile's.
        case teamMismatch = "SIGN_TEAM_MISMATCH"
        /// `--entitlements` asks for an entitlement the bundle's profile does not grant.
        case entitlementNotGranted = "SIGN_ENTITLEMENT_NOT_GRANTED"
        /// An entitlement to sign with (from `--entitlements` or the profile) is not of the type
        /// Apple gives it.
        case entitlementType = "SIGN_ENTITLEMENT_TYPE"
        /// `--entitlements BUNDLE_ID=FILE` names no bundle, or the file is not a dictionary plist.
        case entitlementsFile = "SIGN_ENTITLEMENTS_FILE"
        /// A bundle that takes a profile has none.
        case noProfile = "SIGN_NO_PROFILE"
        /// The identity options cannot be used: no identity, a password variable or file missing.
        case identityOptions = "SIGN_IDENTITY_OPTIONS"
        /// A bundle's executable is missing or not Mach-O.
        case executable = "SIGN_EXECUTABLE"

        public var category: ErrorCategory {
            switch self {
            case .entitlementsFile, .identityOptions: .usage
            case .executable: .invalidInput
            case .certificateNotInProfile, .teamMismatch, .entitlementNotGranted, .entitlementType, .noProfile: .usage
            }
        }
    }

    public let reason: Reason
    public let message: String
    /// What to do about it.
    public let remedy: String

    public init(_ reason: Reason, _ message: String, remedy: String) {
        self.reason = reason
        self.message = message
        self.remedy = remedy
    }

    public var description: String { "\(message); \(remedy)" }
}
