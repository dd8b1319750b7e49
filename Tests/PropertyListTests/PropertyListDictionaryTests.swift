import PropertyList
import Testing

@Suite struct PropertyListDictionaryTests {
    @Test func keepsInsertionOrderWhenUnsorted() {
        var dictionary: PropertyListDictionary = ["b": 1, "a": 2, "c": 3]
        #expect(!dictionary.isSortedByKey)
        dictionary["0"] = 4
        #expect(dictionary.keys == ["b", "a", "c", "0"])
        dictionary["a"] = 9
        #expect(dictionary.keys == ["b", "a", "c", "0"])
        #expect(dictionary["a"] == 9)
    }

    @Test func newKeysGoToTheirSortedPositionInSortedDictionaries() {
        var dictionary: PropertyListDictionary = ["CFBundleIdentifier": "x", "CFBundleName": "y", "UIDeviceFamily": [1]]
        #expect(dictionary.isSortedByKey)
        dictionary["CFBundleVersion"] = "2"
        dictionary["AAA"] = "first"
        dictionary["zzz"] = "last"
        #expect(dictionary.keys == ["AAA", "CFBundleIdentifier", "CFBundleName", "CFBundleVersion", "UIDeviceFamily", "zzz"])
        #expect(dictionary.isSortedByKey)
    }

    @Test func sortOrderIsCoreFoundationsUTF16OrderWithUppercaseFirst() {
        let dictionary: PropertyListDictionary = ["b": 1, "B": 2, "a": 3, "\u{E000}": 4, "😀": 5, "_": 6]
        // Code units: "B" 0x42 < "_" 0x5F < "a" 0x61 < "b" < U+D83D (😀's lead surrogate) < U+E000.
        #expect(dictionary.sortedByKey().keys == ["B", "_", "a", "b", "😀", "\u{E000}"])
    }

    @Test func removingTheOutOfOrderKeyMakesInsertionsSortedAgain() {
        var dictionary: PropertyListDictionary = ["b": 1, "a": 2, "c": 3]
        dictionary["d"] = 4
        #expect(dictionary.keys == ["b", "a", "c", "d"])
        dictionary["b"] = nil
        dictionary["b"] = 5
        #expect(dictionary.keys == ["a", "b", "c", "d"])
    }

    @Test func appendForcesTheEndAndClearsSortedness() {
        var dictionary: PropertyListDictionary = ["a": 1, "c": 2]
        dictionary.append(3, forKey: "b")
        #expect(dictionary.keys == ["a", "c", "b"])
        dictionary["bb"] = 4
        #expect(dictionary.keys == ["a", "c", "b", "bb"])
    }

    @Test func removalKeepsOrderAndLookupsStayCorrectAcrossTheIndexThreshold() {
        var dictionary = PropertyListDictionary()
        for number in 0..<40 {
            dictionary.append(.integer(PropertyListInteger(number)), forKey: "key\(number)")
        }
        #expect(dictionary.removeValue(forKey: "key3") == 3)
        #expect(dictionary.removeValue(forKey: "missing") == nil)
        for number in 0..<40 where number != 3 {
            #expect(dictionary["key\(number)"]?.int == number)
        }
        #expect(dictionary.index(forKey: "key4") == 3)
        for number in 0..<36 {
            dictionary["key\(number)"] = nil
        }
        #expect(dictionary.keys == ["key36", "key37", "key38", "key39"])
        #expect(dictionary["key38"]?.int == 38)
        dictionary.append("x", forKey: "key3")
        #expect(dictionary.index(forKey: "key3") == 4)
    }

    @Test func insertingIntoTheMiddleOfALargeSortedDictionaryKeepsTheIndexRight() {
        var dictionary = PropertyListDictionary()
        for number in stride(from: 0, to: 100, by: 2) {
            dictionary[String(format3: number)] = .integer(PropertyListInteger(number))
        }
        for number in stride(from: 1, to: 100, by: 2) {
            dictionary[String(format3: number)] = .integer(PropertyListInteger(number))
        }
        #expect(dictionary.keys == (0..<100).map { String(format3: $0) })
        for number in 0..<100 {
            #expect(dictionary[String(format3: number)]?.int == number)
            #expect(dictionary.index(forKey: String(format3: number)) == number)
        }
    }

    @Test func repeatedKeysKeepFirstPositionAndLastValue() {
        let small = PropertyListDictionary([("a", 1), ("b", 2), ("a", 3)])
        #expect(small.keys == ["a", "b"])
        #expect(small["a"] == 3)
        let large = PropertyListDictionary((0..<20).map { ("k\($0 % 10)", PropertyListValue.integer(PropertyListInteger($0))) })
        #expect(large.count == 10)
        #expect(large.keys.first == "k0")
        #expect(large["k0"] == 10)
    }

    @Test func keysCompareExactlyWithoutUnicodeNormalization() {
        // U+212A KELVIN SIGN is canonically equivalent to "K": Swift's == equates them, CF does not.
        let kelvin = "\u{212A}ey"
        #expect(kelvin == "Key")
        let dictionary: PropertyListDictionary = ["Key": "ascii", "\u{212A}ey": "kelvin", "é": "nfc", "e\u{301}": "nfd"]
        #expect(dictionary.count == 4)
        #expect(dictionary["Key"] == "ascii")
        #expect(dictionary[kelvin] == "kelvin")
        #expect(dictionary["e\u{301}"] == "nfd")
        #expect(PropertyListValue.string("é") != .string("e\u{301}"))
    }

    @Test func equalityIgnoresOrderAndCopiesAreIndependent() {
        let first: PropertyListDictionary = ["a": 1, "b": [true, "x"]]
        var second: PropertyListDictionary = ["b": [true, "x"], "a": 1]
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        let copy = second
        second["a"] = 2
        #expect(copy["a"] == 1)
        #expect(first != second)
    }
}

extension String {
    init(format3 number: Int) {
        let digits = String(number)
        self = String(repeating: "0", count: Swift.max(0, 3 - digits.count)) + digits
    }
}
