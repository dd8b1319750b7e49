import Foundation

/// Whether a profile has expired, or expires soon, at a moment: the one rule `PROFILE_EXPIRED`,
/// `PROFILE_EXPIRING` and the batch page's highlighting follow.
public enum ProfileExpiry: Equatable, Sendable {
    /// At or past its expiration date (as `ProvisioningProfile.isExpired(at:)`).
    case expired
    /// Within `windowDays`, with this many seconds left.
    case expiring(seconds: TimeInterval)
    case valid

    /// A profile that expires within this many days is `PROFILE_EXPIRING`.
    public static let windowDays = 30

    public init(expiration: Date, at moment: Date) {
        let seconds = expiration.timeIntervalSince(moment)
        if seconds <= 0 {
            self = .expired
        } else if seconds <= Double(Self.windowDays) * 86_400 {
            self = .expiring(seconds: seconds)
        } else {
            self = .valid
        }
    }
}
