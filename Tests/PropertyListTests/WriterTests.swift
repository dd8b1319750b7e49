import PropertyList
import TestSupport
import Testing

@Suite struct WriterTests {
    static let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    func xml(_ value: PropertyListValue) throws(PropertyListError) -> String {
        String(decoding: try PropertyList(root: value, format: .xml).xmlData(), as: UTF8.self)
    }

    /// Lines that differ between two texts: those left after removing the common leading and
    /// trailing lines.
    func changedLines(_ old: [UInt8], _ new: [UInt8]) -> (removed: [Substring], added: [Substring]) {
        let oldLines = String(decoding: old, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let newLines = String(decoding: new, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var prefix = 0
        while prefix < min(oldLines.count, newLines.count), oldLines[prefix] == newLines[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(oldLines.count, newLines.count) - prefix,
            oldLines[oldLines.count - 1 - suffix] == newLines[newLines.count - 1 - suffix]
        {
            suffix += 1
        }
        return (oldLines[prefix..<(oldLines.count - suffix)].map { $0 }, newLines[prefix..<(newLines.count - suffix)].map { $0 })
    }

    /// XML in Core Foundation's layout, as codesign writes CodeResources (`CodeSigningParts`).
    @Test func appleWrittenXMLIsReproducedByteForByte() throws {
        let original = try XcodeShapedApp.bytes("_CodeSignature/CodeResources")
        let plist = try PropertyList(bytes: original)
        #expect(try plist.serialized() == original)
    }

    /// The same on Xcode 7.2's own (isign's `Test.app`, `../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func xcodesCodeResourcesIsReproducedByteForByte() throws {
        let original = try IsignFixture.bytes("Test.app/_CodeSignature/CodeResources")
        let plist = try PropertyList(bytes: original)
        #expect(try plist.serialized() == original)
    }

    @Test func aOneKeyEditGivesAOneLineDiff() throws {
        let original = try XcodeShapedApp.bytes("_CodeSignature/CodeResources")
        var plist = try PropertyList(bytes: original)
        plist.root["rules"]?["^version.plist$"] = false
        let changed = changedLines(original, try plist.serialized())
        #expect(changed.removed == ["\t\t<true/>"])
        #expect(changed.added == ["\t\t<false/>"])

        // A new key in a sorted dictionary lands at its sorted place: two added lines only.
        var fresh = try PropertyList(bytes: original)
        fresh.root["rules"]?["^Info\\.plist$"] = "added"
        let keys = fresh.root["rules"]?.dictionary?.keys ?? []
        #expect(keys.firstIndex(of: "^Info\\.plist$") == keys.firstIndex(of: "^version.plist$").map { $0 - 1 })
        let inserted = changedLines(original, try fresh.serialized())
        #expect(inserted.removed.isEmpty)
        #expect(inserted.added == ["\t\t<key>^Info\\.plist$</key>", "\t\t<string>added</string>"])
    }

    @Test func handWrittenXMLKeepsItsKeyOrderAndNormalizesOnce() throws {
        let original = try ForeignPlists.profilePlist()
        let plist = try PropertyList(bytes: original)
        let rewritten = try plist.serialized()
        let reread = try PropertyList(bytes: rewritten)
        #expect(reread.root == plist.root)
        #expect(reread.root.dictionary?.keys == plist.root.dictionary?.keys)
        #expect(try reread.serialized() == rewritten)
    }

    @Test func binaryStaysBinaryAndRoundTrips() throws {
        let original = try ForeignPlists.infoPlist()
        let plist = try PropertyList(bytes: original)
        let reread = try PropertyList(bytes: try plist.serialized())
        #expect(reread.format == .binary)
        #expect(reread.root == plist.root)
        #expect(reread.root.dictionary?.keys == plist.root.dictionary?.keys)
    }

    /// The same on Xcode 7.2's own (isign's, `../shared`), which ours is no larger than.
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func xcodesBinaryStaysBinaryAndRoundTrips() throws {
        let original = try IsignFixture.bytes("Test.app/Info.plist")
        let plist = try PropertyList(bytes: original)
        let written = try plist.serialized()
        #expect(written.starts(with: Array("bplist00".utf8)))
        let reread = try PropertyList(bytes: written)
        #expect(reread.format == .binary)
        #expect(reread.root == plist.root)
        #expect(reread.root.dictionary?.keys == plist.root.dictionary?.keys)
        // Same objects, same widths: Xcode's file is 1,168 bytes and ours is no larger.
        #expect(written.count <= original.count)
    }

    @Test func xmlLayout() throws {
        let value: PropertyListValue = [
            "array": ["one", 2, 2.5, true],
            "data": .data(Array(0..<60)),
            "date": .date(PropertyListDate(secondsSinceReferenceDate: 0)),
            "empty": [],
            "emptyDict": .dictionary([:]),
            "escaped": "<a> & \"b\" 'c' \r\n",
            "uid": .uid(3),
        ]
        #expect(try xml(value) == Self.head + """
            <dict>
            \t<key>array</key>
            \t<array>
            \t\t<string>one</string>
            \t\t<integer>2</integer>
            \t\t<real>2.5</real>
            \t\t<true/>
            \t</array>
            \t<key>data</key>
            \t<data>
            \tAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEy
            \tMzQ1Njc4OTo7
            \t</data>
            \t<key>date</key>
            \t<date>2001-01-01T00:00:00Z</date>
            \t<key>empty</key>
            \t<array/>
            \t<key>emptyDict</key>
            \t<dict/>
            \t<key>escaped</key>
            \t<string>&lt;a&gt; &amp; "b" 'c' &#13;
            </string>
            \t<key>uid</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>3</integer>
            \t</dict>
            </dict>
            </plist>

            """)
    }

    @Test func realsAreWrittenLikeCoreFoundation() throws {
        let cases: [(Double, String)] = [
            (1, "1"), (0.1, "0.10000000000000001"), (1e16, "10000000000000000"), (1e-5, "1.0000000000000001e-05"),
            (0, "0.0"), (-0.0, "-0.0"), (.infinity, "+infinity"), (-.infinity, "-infinity"), (.nan, "nan"),
            (-2.5, "-2.5"), (123456789.125, "123456789.125"),
        ]
        for (real, text) in cases {
            #expect(try xml(.real(real)) == Self.head + "<real>\(text)</real>\n</plist>\n")
            #expect(try PropertyList(bytes: Array((Self.head + "<real>\(text)</real></plist>").utf8)).root == .real(real))
        }
    }

    @Test func stringsXMLCannotHoldAreRefused() {
        for text in ["a\u{0}b", "\u{1}", "\u{1F}", "\u{FFFE}", "x\u{FFFF}"] {
            #expect(throws: PropertyListError.self) { try xml(.string(text)) }
            #expect(throws: PropertyListError.self) { try xml(.dictionary([text: 1])) }
        }
        do {
            _ = try xml(["\u{7}"])
        } catch {
            #expect(error.code == "PLIST_XML_UNREPRESENTABLE")
        }
        // The binary format holds any string.
        #expect(throws: Never.self) { try PropertyList(root: ["a\u{0}\u{FFFE}"], format: .binary).serialized() }
    }

    @Test func binaryUsesTheSmallestWidthsAndSharesScalars() throws {
        let bytes = try BinaryPropertyList.encode([0, 255, 256, 65_536, .integer(PropertyListInteger(Int64.max)), -1,
                                                   .integer(PropertyListInteger(UInt64.max)), "a", "a", "é"])
        // Objects: the array, then each distinct scalar once ("a" shared): 10 objects.
        let trailer = try BinaryPropertyList(bytes: bytes).trailer
        #expect(trailer.objectCount == 10)
        #expect(trailer.objectRefSize == 1)
        let body = Array(bytes[8...])
        #expect(body.starts(with: [0xAA, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9]))  // 10 refs, "a" twice
        let scalars = Array(body[11...])
        let expected: [UInt8] = [0x10, 0x00, 0x10, 0xFF, 0x11, 0x01, 0x00, 0x12, 0x00, 0x01, 0x00, 0x00,
                                 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                 0x51, 0x61, 0x61, 0x00, 0xE9]
        #expect(scalars.starts(with: expected))
    }

    @Test func binaryCountsOfFifteenAndMoreFollowTheMarker() throws {
        let value = PropertyListValue.array((0..<300).map { .integer(PropertyListInteger($0)) })
        let bytes = try BinaryPropertyList.encode(value)
        // 301 objects need 2-byte references; the array count 300 follows 0xAF as a 2-byte int.
        #expect(Array(bytes[8..<12]) == [0xAF, 0x11, 0x01, 0x2C])
        #expect(try BinaryPropertyList(bytes: bytes).trailer.objectRefSize == 2)
        #expect(try BinaryPropertyList(bytes: bytes).root == value)
    }

    @Test func writersRefuseValuesTooDeepToReadBack() {
        var value: PropertyListValue = true
        for _ in 0..<260 { value = [value] }
        #expect(throws: PropertyListError.self) { try BinaryPropertyList.encode(value) }
        #expect(throws: PropertyListError.self) { try XMLPropertyList.encode(value) }
    }

    @Test func everyValueSurvivesBothFormats() throws {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<300 {
            let value = RandomPlist.value(&random)
            let binary = try BinaryPropertyList.encode(value)
            #expect(try PropertyList(bytes: binary).root == value)
            let xmlBytes = try XMLPropertyList.encode(value)
            let fromXML = try PropertyList(bytes: xmlBytes).root
            #expect(fromXML == value)
            #expect(try XMLPropertyList.encode(fromXML) == xmlBytes)
        }
    }
}
