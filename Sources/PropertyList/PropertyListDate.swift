import FormatSupport
/// A point in time as property lists store it.
///
/// Binary plists store a float64 of seconds since 2001-01-01T00:00:00Z (Core Foundation's
/// reference date); XML plists store `YYYY-MM-DDTHH:MM:SSZ` in UTC with whole seconds. Two dates
/// are equal when their seconds have the same bit pattern, so a value read is written back as is.
public struct PropertyListDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Seconds between the Unix epoch and the reference date 2001-01-01T00:00:00Z.
    public static let referenceDateOffsetFrom1970: Double = 978_307_200

    /// Seconds since 2001-01-01T00:00:00Z; negative before it.
    public let secondsSinceReferenceDate: Double

    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    public init(secondsSince1970: Double) {
        self.secondsSinceReferenceDate = secondsSince1970 - Self.referenceDateOffsetFrom1970
    }

    public var secondsSince1970: Double {
        secondsSinceReferenceDate + Self.referenceDateOffsetFrom1970
    }

    public static func == (lhs: PropertyListDate, rhs: PropertyListDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSinceReferenceDate.bitPattern)
    }

    public static func < (lhs: PropertyListDate, rhs: PropertyListDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }

    public var description: String { iso8601 }

    // MARK: ISO 8601

    /// Seconds since 1970 beyond which a date is written clamped (about ±31 million years), and
    /// beyond which `<date>` text is refused, so every date read from XML is written back as is.
    private static let formattableLimit: Double = 1e15

    /// `YYYY-MM-DDTHH:MM:SSZ`, rounded down to the second, as Core Foundation writes `<date>`.
    public var iso8601: String {
        var seconds = secondsSince1970.rounded(.down)
        if !seconds.isFinite { seconds = seconds.isNaN ? 0 : (seconds < 0 ? -Self.formattableLimit : Self.formattableLimit) }
        seconds = min(max(seconds, -Self.formattableLimit), Self.formattableLimit)
        let total = Int64(seconds)
        var days = total / 86_400
        var secondOfDay = total % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        let hour = secondOfDay / 3600
        let minute = secondOfDay / 60 % 60
        let second = secondOfDay % 60
        let yearText = year < 0 ? "-" + Self.padded(-year, 4) : Self.padded(year, 4)
        return "\(yearText)-\(Self.padded(month, 2))-\(Self.padded(day, 2))T"
            + "\(Self.padded(hour, 2)):\(Self.padded(minute, 2)):\(Self.padded(second, 2))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ` (the year may be negative or longer than four digits),
    /// surrounded by optional whitespace. Like Core Foundation it takes whole seconds only, so
    /// every date read from XML is written back unchanged.
    public init?(iso8601 text: some StringProtocol) {
        self.init(iso8601UTF8: Array(text.utf8)[...])
    }

    init?(iso8601UTF8 bytes: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        var end = bytes.endIndex
        while index < end, isXMLWhitespace(bytes[index]) { index += 1 }
        while end > index, isXMLWhitespace(bytes[end - 1]) { end -= 1 }

        func digits(_ count: Int?) -> Int64? {
            var value: Int64 = 0
            var read = 0
            // Years are bounded to 9 digits so the arithmetic below cannot overflow.
            let limit = count ?? 9
            while index < end, read < limit, let digit = asciiDigit(bytes[index]) {
                value = value * 10 + Int64(digit)
                index += 1
                read += 1
            }
            if let count, read != count { return nil }
            return read == 0 ? nil : value
        }
        func expect(_ character: Character) -> Bool {
            guard index < end, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }

        var negativeYear = false
        if index < end, bytes[index] == UInt8(ascii: "-") {
            negativeYear = true
            index += 1
        }
        guard let yearDigits = digits(nil), expect("-"),
            let month = digits(2), expect("-"),
            let day = digits(2), expect("T"),
            let hour = digits(2), expect(":"),
            let minute = digits(2), expect(":"),
            let second = digits(2)
        else { return nil }
        guard expect("Z"), index == end else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let year = negativeYear ? -yearDigits : yearDigits
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second)
        guard abs(seconds) <= Self.formattableLimit else { return nil }
        self.init(secondsSince1970: seconds)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

@inline(__always)
func asciiDigit(_ byte: UInt8) -> UInt8? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
}
