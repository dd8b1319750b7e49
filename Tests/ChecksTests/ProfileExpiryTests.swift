import Checks
import Foundation
import Testing

/// The one expiry rule: thirty days of warning, and a profile expired at its expiration date.
@Suite struct ProfileExpiryTests {
    @Test func theExpiryWindowIsThirtyDaysAndExpiryIsInclusive() {
        let expiry = Date(timeIntervalSince1970: 2_082_758_400)
        let day: TimeInterval = 86_400
        #expect(ProfileExpiry(expiration: expiry, at: expiry) == .expired)
        #expect(ProfileExpiry(expiration: expiry, at: expiry.addingTimeInterval(1)) == .expired)
        #expect(ProfileExpiry(expiration: expiry, at: expiry.addingTimeInterval(-1)) == .expiring(seconds: 1))
        #expect(ProfileExpiry(expiration: expiry, at: expiry.addingTimeInterval(-30 * day)) == .expiring(seconds: 30 * day))
        #expect(ProfileExpiry(expiration: expiry, at: expiry.addingTimeInterval(-30 * day - 1)) == .valid)
        #expect(ProfileExpiry.windowDays == 30)
    }
}
