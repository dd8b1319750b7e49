import PropertyList
import Testing

/// `PropertyListLimits.refusesDuplicateKeys`: entitlements are read strictly (a parser keeping the
/// first value and one keeping the last would grant different things), everything else as Core
/// Foundation reads it, the last value winning.
@Suite struct DuplicateKeyTests {
    static let xml = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>get-task-allow</key><false/><key>get-task-allow</key><true/></dict></plist>
        """.utf8)

    /// `{a: true, a: false}` in bplist00, written by hand (no writer makes one).
    static let binary: [UInt8] = Array("bplist00".utf8)
        + [0xD2, 0x01, 0x01, 0x02, 0x03]  // dict, keys 1 1, values 2 3 (offset 8)
        + [0x51, 0x61]  // "a" (13)
        + [0x09, 0x08]  // true (15), false (16)
        + [8, 13, 15, 16]  // offset table (17)
        + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 4] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 17]

    @Test func byDefaultTheLastValueWins() throws {
        #expect(try PropertyList(bytes: Self.xml).root.dictionary?["get-task-allow"] == .bool(true))
        #expect(try PropertyList(bytes: Self.binary).root.dictionary?["a"] == .bool(false))
    }

    @Test(arguments: [xml, binary])
    func strictReadersRefuseTheSecondKey(_ bytes: [UInt8]) throws {
        #expect(throws: PropertyListError.self) {
            _ = try PropertyList(bytes: bytes, limits: PropertyListLimits(refusesDuplicateKeys: true))
        }
        do {
            _ = try PropertyList(bytes: bytes, limits: PropertyListLimits(refusesDuplicateKeys: true))
        } catch {
            #expect(error.code == "PLIST_DUPLICATE_KEY")
            #expect("\(error)".contains("twice"))
        }
    }

    @Test func nestedDictionariesAreCheckedToo() throws {
        let nested = Array("""
            <plist version="1.0"><dict><key>outer</key><array><dict><key>k</key><string>1</string><key>k</key><string>2</string></dict></array></dict></plist>
            """.utf8)
        #expect(throws: PropertyListError.self) {
            _ = try PropertyList(bytes: nested, limits: PropertyListLimits(refusesDuplicateKeys: true))
        }
        #expect(try PropertyList(bytes: nested).root.dictionary?["outer"] != nil)
    }
}
