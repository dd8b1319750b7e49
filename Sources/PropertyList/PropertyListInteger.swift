/// An integer as property lists store it: a two's-complement value of up to 128 bits.
///
/// XML plists carry signed 64-bit values and unsigned ones up to `UInt64.max`; binary plists store
/// 1-, 2- and 4-byte integers as unsigned, 8-byte ones as signed, and 16-byte ones as signed
/// 128-bit values (Core Foundation writes unsigned values above `Int64.max` that way). Keeping all
/// 128 bits means `-1` and `UInt64.max` stay distinct and every value read is written back as is.
public struct PropertyListInteger: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    /// The upper 64 bits; its sign is the sign of the whole value.
    public let high: Int64
    /// The lower 64 bits.
    public let low: UInt64

    public init(high: Int64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ value: Int64) {
        self.high = value < 0 ? -1 : 0
        self.low = UInt64(bitPattern: value)
    }

    public init(_ value: UInt64) {
        self.high = 0
        self.low = value
    }

    public init(_ value: Int) {
        self.init(Int64(value))
    }

    public init(integerLiteral value: Int64) {
        self.init(value)
    }

    /// The value as `Int64`, or nil when it does not fit.
    public var int64: Int64? {
        if high == 0, low <= UInt64(Int64.max) { return Int64(bitPattern: low) }
        if high == -1, low > UInt64(Int64.max) { return Int64(bitPattern: low) }
        return nil
    }

    /// The value as `UInt64`, or nil when it is negative or too large.
    public var uint64: UInt64? {
        high == 0 ? low : nil
    }

    /// The value as `Int`, or nil when it does not fit.
    public var int: Int? {
        int64.flatMap { Int(exactly: $0) }
    }

    public var isNegative: Bool { high < 0 }

    public static func < (lhs: PropertyListInteger, rhs: PropertyListInteger) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    // MARK: Decimal text

    /// The magnitude as an unsigned 128-bit pair, and whether the value is negative.
    private var magnitude: (high: UInt64, low: UInt64, negative: Bool) {
        guard high < 0 else { return (UInt64(bitPattern: high), low, false) }
        // Two's-complement negation; -2^127 maps to 2^127, which the unsigned pair holds.
        let invertedLow = ~low
        let (newLow, carry) = invertedLow.addingReportingOverflow(1)
        let newHigh = ~UInt64(bitPattern: high) &+ (carry ? 1 : 0)
        return (newHigh, newLow, true)
    }

    /// Decimal, with a leading `-` when negative, as `<integer>` elements spell it.
    public var description: String {
        var (high, low, negative) = magnitude
        if high == 0 {
            return negative ? "-\(low)" : "\(low)"
        }
        // Divide the 128-bit magnitude by 10^19 until it fits in 64 bits.
        let divisor: UInt64 = 10_000_000_000_000_000_000
        var chunks: [UInt64] = []
        while high != 0 {
            let quotientHigh = high / divisor
            let remainderHigh = high % divisor
            let (quotientLow, remainder) = divisor.dividingFullWidth((remainderHigh, low))
            chunks.append(remainder)
            high = quotientHigh
            low = quotientLow
        }
        var text = negative ? "-" : ""
        text += String(low)
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 19 - digits.count) + digits
        }
        return text
    }

    /// Parses the text of an `<integer>`: optional sign, then decimal digits or `0x` and hex
    /// digits, surrounded by optional whitespace, as Core Foundation accepts. Values must fit in
    /// 128 bits.
    public init?(_ text: some StringProtocol) {
        self.init(utf8: Array(text.utf8)[...])
    }

    init?(utf8 bytes: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        var end = bytes.endIndex
        while index < end, isXMLWhitespace(bytes[index]) { index += 1 }
        while end > index, isXMLWhitespace(bytes[end - 1]) { end -= 1 }
        guard index < end else { return nil }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var base: UInt64 = 10
        if end - index > 2, bytes[index] == UInt8(ascii: "0"),
            bytes[index + 1] == UInt8(ascii: "x") || bytes[index + 1] == UInt8(ascii: "X")
        {
            base = 16
            index += 2
        }
        guard index < end else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        while index < end {
            let byte = bytes[index]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where base == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where base == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            // (high, low) = (high, low) * base + digit, refusing anything beyond 128 bits.
            let (lowProductHigh, lowProduct) = low.multipliedFullWidth(by: base)
            let (highProduct, highOverflow) = high.multipliedReportingOverflow(by: base)
            guard !highOverflow else { return nil }
            let (newHigh, carryOverflow) = highProduct.addingReportingOverflow(lowProductHigh)
            guard !carryOverflow else { return nil }
            let (newLow, digitCarry) = lowProduct.addingReportingOverflow(digit)
            let (finalHigh, finalOverflow) = newHigh.addingReportingOverflow(digitCarry ? 1 : 0)
            guard !finalOverflow else { return nil }
            high = finalHigh
            low = newLow
            // The largest magnitudes are 2^127 - 1 (positive) and 2^127 (negative).
            guard high < 1 << 63 || (negative && high == 1 << 63 && low == 0) else { return nil }
            index += 1
        }
        if negative {
            let invertedLow = ~low
            let (newLow, carry) = invertedLow.addingReportingOverflow(1)
            let newHigh = ~high &+ (carry ? 1 : 0)
            self.init(high: Int64(bitPattern: newHigh), low: newLow)
        } else {
            self.init(high: Int64(bitPattern: high), low: low)
        }
    }
}

/// XML's whitespace characters: space, tab, line feed and carriage return.
@inline(__always)
func isXMLWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}
