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

    /// Each fast order and the standard library's view it replaces.
    static let orders: [(name: String, fast: @Sendable (String, String) -> Bool, reference: @Sendable (String, String) -> Bool)] = [
        ("UTF-8", { $0.precedesInUTF8Order($1) }, { $0.utf8.lexicographicallyPrecedes($1.utf8) }),
        ("UTF-16", { $0.precedesInUTF16Order($1) }, { $0.utf16.lexicographicallyPrecedes($1.utf16) }),
    ]

    @Test(arguments: 0..<orders.count)
    func theOrderIsTheStandardLibrarys(_ index: Int) {
        let order = Self.orders[index]
        let names = Self.names
        for left in names {
            for right in names {
                #expect(order.fast(left, right) == order.reference(left, right), "\(order.name): \(left.debugDescription) vs \(right.debugDescription)")
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
