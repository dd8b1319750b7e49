import PropertyList
import Testing

@Suite struct PropertyListIntegerTests {
    @Test func decimalTextRoundTripsAtTheEdges() throws {
        let cases: [(String, PropertyListInteger)] = [
            ("0", PropertyListInteger(0)),
            ("-1", PropertyListInteger(-1)),
            ("9223372036854775807", PropertyListInteger(Int64.max)),
            ("-9223372036854775808", PropertyListInteger(Int64.min)),
            ("18446744073709551615", PropertyListInteger(UInt64.max)),
            ("18446744073709551616", PropertyListInteger(high: 1, low: 0)),
            ("170141183460469231731687303715884105727", PropertyListInteger(high: .max, low: .max)),
            ("-170141183460469231731687303715884105728", PropertyListInteger(high: .min, low: 0)),
            ("-18446744073709551617", PropertyListInteger(high: -2, low: .max)),
        ]
        for (text, value) in cases {
            #expect(PropertyListInteger(text) == value, "parsing \(text)")
            #expect(value.description == text)
        }
    }

    @Test func signedAndUnsignedStayDistinct() {
        let minusOne = PropertyListInteger(-1)
        let allOnes = PropertyListInteger(UInt64.max)
        #expect(minusOne != allOnes)
        #expect(minusOne.int64 == -1 && minusOne.uint64 == nil)
        #expect(allOnes.uint64 == .max && allOnes.int64 == nil)
        #expect(PropertyListInteger(high: 1, low: 0).int64 == nil)
        #expect(PropertyListInteger(5).int == 5)
        #expect(minusOne < allOnes)
    }

    @Test func parsingIsLenientAboutWhitespaceSignAndHexLikeCoreFoundation() {
        #expect(PropertyListInteger("  42\n") == PropertyListInteger(42))
        #expect(PropertyListInteger("+7") == PropertyListInteger(7))
        #expect(PropertyListInteger("0x1F") == PropertyListInteger(31))
        #expect(PropertyListInteger("-0X10") == PropertyListInteger(-16))
        #expect(PropertyListInteger("007") == PropertyListInteger(7))
    }

    @Test func parsingRefusesGarbageAndOverflow() {
        for text in ["", " ", "-", "0x", "12a", "1.5", "1e3", "--1", "0xG",
                     "170141183460469231731687303715884105728",
                     "-170141183460469231731687303715884105729",
                     String(repeating: "9", count: 60)] {
            #expect(PropertyListInteger(text) == nil, "\(text) should be refused")
        }
    }
}
