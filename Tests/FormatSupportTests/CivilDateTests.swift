import FormatSupport
import Foundation
import Testing

/// `CivilDate.secondsSince1970(utcTimestamp:)`, `--at`'s fast path, against Foundation's ISO 8601
/// parser (the path it replaces for the two common forms): the same instant for every date it
/// accepts, nil for what it leaves to Foundation.
@Suite struct CivilDateTests {
    static func foundation(_ text: String) -> Int64? {
        let full = ISO8601DateFormatter()
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return (full.date(from: text) ?? day.date(from: text)).map { Int64($0.timeIntervalSince1970) }
    }

    @Test(arguments: [
        "1970-01-01", "1970-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2024-02-29", "2024-02-29T23:59:59Z",
        "2000-02-29T12:34:56Z", "1969-12-31T23:59:59Z", "1900-03-01", "2038-01-19T03:14:08Z", "9999-12-31T23:59:59Z",
        "1600-01-01", "2026-11-28T03:30:00Z",
    ])
    func agreesWithFoundation(_ text: String) throws {
        let fast = try #require(CivilDate.secondsSince1970(utcTimestamp: text))
        #expect(fast == Self.foundation(text))
    }

    /// Other shapes, and impossible dates, are Foundation's to accept or refuse.
    @Test(arguments: [
        "2023-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z",
        "2026-01-01T00:00:00+02:00", "2026-01-01T00:00:00.5Z", "2026-1-01", "20260101", "２０２６-01-01", "", "0000-01-01", "0001-01-01", "1582-10-15",
        "2026-01-01t00:00:00z", "2026-01-01 00:00:00Z",
    ])
    func leavesEverythingElseToFoundation(_ text: String) {
        #expect(CivilDate.secondsSince1970(utcTimestamp: text) == nil)
    }
}
