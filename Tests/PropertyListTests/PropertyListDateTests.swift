import Foundation
import PropertyList
import Testing

@Suite struct PropertyListDateTests {
    @Test func referenceDateIs2001() {
        let date = PropertyListDate(secondsSinceReferenceDate: 0)
        #expect(date.iso8601 == "2001-01-01T00:00:00Z")
        #expect(date.secondsSince1970 == 978_307_200)
        #expect(PropertyListDate(iso8601: "1970-01-01T00:00:00Z")?.secondsSinceReferenceDate == -978_307_200)
    }

    @Test func formattingMatchesFoundationsISO8601Formatter() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            // From year 1601 to 2400: Foundation's formatter uses the proleptic Gregorian calendar too.
            let seconds = Double(Int64.random(in: -12_600_000_000...12_600_000_000, using: &random))
            let ours = PropertyListDate(secondsSinceReferenceDate: seconds)
            let theirs = formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
            #expect(ours.iso8601 == theirs)
            #expect(PropertyListDate(iso8601: theirs) == ours)
        }
    }

    @Test func fractionalSecondsRoundDownWhenWritten() {
        #expect(PropertyListDate(secondsSinceReferenceDate: 59.9).iso8601 == "2001-01-01T00:00:59Z")
        #expect(PropertyListDate(secondsSinceReferenceDate: -0.5).iso8601 == "2000-12-31T23:59:59Z")
        #expect(PropertyListDate(iso8601: "2001-01-01T00:00:01.5Z") == nil)
    }

    @Test func extremeValuesFormatWithoutTrappingAndReadBack() throws {
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, Double.greatestFiniteMagnitude, 2e15, -2e15] {
            let text = PropertyListDate(secondsSinceReferenceDate: seconds).iso8601
            #expect(text.hasSuffix("Z"))
            // Clamped to about ±31 million years, which the reader accepts: every written date reads.
            let reread = try #require(PropertyListDate(iso8601: text))
            #expect(reread.iso8601 == text)
        }
        // Found by fuzzing: a year the reader took but the writer clamped, so XML did not round-trip.
        #expect(PropertyListDate(iso8601: "180303310-11-28T22:57:49Z") == nil)
        #expect(PropertyListDate(iso8601: "31690708-07-05T01:46:40Z")?.secondsSince1970 == 1e15)
        #expect(PropertyListDate(iso8601: "999999999-01-01T00:00:00Z") == nil)
        let edge = try #require(PropertyListDate(iso8601: PropertyListDate(secondsSince1970: 1e15).iso8601))
        #expect(edge.secondsSince1970 == 1e15)
    }

    @Test func parsingRefusesMalformedDates() {
        for text in ["", "2016-11-28", "2016-11-28T22:57:49", "2016-13-01T00:00:00Z", "2016-11-28T24:00:00Z",
                     "2016-11-28 22:57:49Z", "2016-1-28T22:57:49Z", "2016-11-28T22:57:49Zjunk", "9999999999-01-01T00:00:00Z"] {
            #expect(PropertyListDate(iso8601: text) == nil, "\(text) should be refused")
        }
        #expect(PropertyListDate(iso8601: " 2016-11-28T22:57:49Z\n") != nil)
        #expect(PropertyListDate(iso8601: "-0044-03-15T12:00:00Z")?.iso8601 == "-0044-03-15T12:00:00Z")
    }
}
