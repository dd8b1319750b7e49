import FormatSupport
import Testing

/// `precedesInUTF8Order` and `precedesInUTF16Order` against the standard library's views, which
/// they replace for speed: every ordered pair of names that differ where the two orders part
/// (U+E000–U+FFFF against a surrogate pair), in ASCII, after a long shared prefix, or as prefixes.
@Suite struct NameOrderTests {
    static let stems = [
        "", "a", "A", "b", "ab", "abc", "a/b", "a.b", "Z", "~",
        "Payload/App.app/Info.plist", "Payload/App.app/Info.plisu", "Payload/App.app/Info.plis",
        "Payload/App.app/Base.lproj/Main.storyboardc", "Payload/App.app/Base.lproj/Main.storyboardc/",
        "caf\u{E9}", "cafe\u{301}", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}",
        "\u{D7FF}", "\u{E000}", "\u{FF21}", "\u{FFFD}", "\u{FFFF}", "\u{10000}", "\u{1F600}", "\u{10FFFF}",
        "x\u{FF21}y", "x\u{1F600}y", "01234567\u{FF21}", "01234567\u{1F600}", "0123456789abcdef\u{E000}",
        "0123456789abcdef\u{10000}",
    ]

    static var names: [String] {
        stems + stems.map { "Payload/App.app/" + $0 } + stems.map { $0 + "/tail" }
    }

    @Test func utf8OrderIsTheStandardLibrarysByteOrder() {
        let names = Self.names
        for left in names {
            for right in names {
                #expect(
                    left.precedesInUTF8Order(right) == left.utf8.lexicographicallyPrecedes(right.utf8),
                    "\(left.debugDescription) vs \(right.debugDescription)")
            }
        }
    }

    @Test func utf16OrderIsTheStandardLibrarysCodeUnitOrder() {
        let names = Self.names
        for left in names {
            for right in names {
                #expect(
                    left.precedesInUTF16Order(right) == left.utf16.lexicographicallyPrecedes(right.utf16),
                    "\(left.debugDescription) vs \(right.debugDescription)")
            }
        }
    }

    /// The case the two orders disagree on, so a UTF-16 sort that fell back to bytes would fail.
    @Test func aSurrogatePairSortsBelowTheTopOfTheBasicPlaneInUTF16Only() {
        #expect("\u{1F600}".precedesInUTF16Order("\u{FF21}"))
        #expect(!"\u{1F600}".precedesInUTF8Order("\u{FF21}"))
        #expect("Payload/x\u{1F600}".precedesInUTF16Order("Payload/x\u{FF21}"))
    }
}
