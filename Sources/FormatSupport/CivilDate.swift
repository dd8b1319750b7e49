/// Conversions between days since 1970-01-01 and proleptic Gregorian dates (Howard Hinnant's
/// days-from-civil algorithms), shared by every format that stores calendar dates (zip's MS-DOS
/// timestamps, property-list dates). Exact for every Int64 day count these formats can hold.
public enum CivilDate {
    /// Days since 1970-01-01 of a date; `month` is 1–12, `day` 1–31.
    public static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01.
    public static func date(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension CivilDate {
    /// Seconds since 1970 of `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM:SSZ`, the two forms
    /// `--at` is given in almost always; nil for anything else (the caller then asks Foundation's
    /// ISO 8601 parser, whose first use costs milliseconds a short command notices). Years before
    /// 1600 too: Foundation counts those in the Julian calendar, this in the Gregorian.
    public static func secondsSince1970(utcTimestamp text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count == 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let digit = bytes[index]
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(digit - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), let year = number(0..<4), let month = number(5..<7),
            let day = number(8..<10), year >= 1600, (1...12).contains(month), day >= 1,
            day <= daysInMonth(year: year, month: month)
        else { return nil }
        let midnight = daysSince1970(year: year, month: month, day: day) * 86_400
        guard bytes.count == 20 else { return midnight }
        guard bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "Z"), let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            hour < 24, minute < 60, second < 60
        else { return nil }
        return midnight + hour * 3600 + minute * 60 + second
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
