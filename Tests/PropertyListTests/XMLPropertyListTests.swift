#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PropertyList
import TestSupport
import Testing

@Suite struct XMLPropertyListTests {
    static let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

        """

    func read(_ text: String) throws -> PropertyListValue {
        try PropertyList(bytes: Array(text.utf8)).root
    }

    func error(_ text: String) -> PropertyListError? {
        do {
            _ = try PropertyList(bytes: Array(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// A profile's plist as plistlib writes it in Xcode's key order.
    @Test func readsAProvisioningProfilePlist() throws {
        let plist = try PropertyList(bytes: ForeignPlists.profilePlist())
        #expect(plist.format == .xml)
        let root = plist.root
        #expect(root["AppIDName"] == "XC Wildcard")
        #expect(root["Entitlements"]?["application-identifier"] == "ABCDE12345.*")
        #expect(root["Entitlements"]?["get-task-allow"]?.bool == true)
        #expect(root["Entitlements"]?["keychain-access-groups"]?.stringArray == ["ABCDE12345.*"])
        #expect(root["CreationDate"]?.date?.iso8601 == "2026-01-01T00:00:00Z")
        // The certificate is DER: a SEQUENCE with a two-byte length.
        let certificate = try #require(root["DeveloperCertificates"]?[0]?.data)
        #expect(certificate == (try Fixtures.bytes("profiles/developer.cer")))
        #expect(certificate.prefix(2) == [0x30, 0x82])
        // Keys stay in file order, which is not sorted here.
        #expect(root.dictionary?.keys.prefix(4) == ["AppIDName", "ApplicationIdentifierPrefix", "CreationDate", "Platform"])
        #expect(root["Entitlements"]?.dictionary?.keys.first == "keychain-access-groups")
    }

    /// isign's test profile plist (`../shared`), made by hand.
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func readsIsignsProvisioningProfilePlist() throws {
        let plist = try PropertyList(bytes: IsignFixture.bytes("test.mobileprovision.plist"))
        #expect(plist.format == .xml)
        let root = plist.root
        #expect(root["AppIDName"] == "isign tests")
        #expect(root["Entitlements"]?["application-identifier"] == "ISIGNTESTS.*")
        #expect(root["Entitlements"]?["get-task-allow"]?.bool == true)
        #expect(root["Entitlements"]?["keychain-access-groups"]?.stringArray == ["ISIGNTESTS.*"])
        #expect(root["CreationDate"]?.date?.iso8601 == "2016-11-28T22:57:49Z")
        // The certificate is DER: a SEQUENCE with a two-byte length.
        let certificate = try #require(root["DeveloperCertificates"]?[0]?.data)
        #expect(certificate.prefix(2) == [0x30, 0x82])
        #expect(certificate.count == 0x3D1 + 4)
        // Keys stay in file order, which is not sorted in this hand-made file.
        #expect(root.dictionary?.keys.prefix(3) == ["AppIDName", "ApplicationIdentifierPrefix", "CreationDate"])
    }

    /// CodeResources in codesign's layout (`CodeSigningParts`).
    @Test func readsCodeResources() throws {
        let root = try PropertyList(bytes: XcodeShapedApp.bytes("_CodeSignature/CodeResources")).root
        let files = try #require(root["files"]?.dictionary)
        #expect(files["Assets.car"]?.data?.count == 20)
        #expect(files[XcodeShapedApp.optionalResource]?["optional"]?.bool == true)
        #expect(root["files2"]?["Assets.car"]?["hash2"]?.data?.count == 32)
        #expect(root["rules"]?["^.*\\.lproj/"]?["weight"]?.real == 1000)
        #expect(root.dictionary?.keys == ["files", "files2", "rules", "rules2"])
        #expect(files.isSortedByKey)
    }

    /// Xcode 7.2's (isign's, `../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func readsXcodesCodeResources() throws {
        let root = try PropertyList(bytes: IsignFixture.bytes("Test.app/_CodeSignature/CodeResources")).root
        let files = try #require(root["files"]?.dictionary)
        #expect(files["Assets.car"]?.data?.count == 20)
        #expect(files["Base.lproj/LaunchScreen.storyboardc/01J-lp-oVM-view-Ze5-6b-2t3.nib"]?["optional"]?.bool == true)
        #expect(root["rules"]?["^.*\\.lproj/"]?["weight"]?.real == 1000)
        #expect(root.dictionary?.keys == ["files", "files2", "rules", "rules2"])
        #expect(files.isSortedByKey)
    }

    @Test func acceptsWhatHandEditorsProduce() throws {
        let body = "<plist version=\"1.0\"><dict><key>a</key><string>b</string></dict></plist>"
        let expected: PropertyListValue = ["a": "b"]
        #expect(try read(body) == expected)  // no declaration, no DOCTYPE
        #expect(try read("\u{FEFF}" + body) == expected)  // UTF-8 BOM
        #expect(try read("\n\n  \t" + Self.head + body) == expected)  // whitespace before the declaration
        #expect(try read("<dict><key>a</key><string>b</string></dict>") == expected)  // no <plist>
        var utf16: [UInt8] = [0xFE, 0xFF]
        for unit in "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\(body)".utf16 {
            utf16 += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        #expect(try PropertyList(bytes: utf16).root == expected)
    }

    @Test func leafValuesAreReadLikeCoreFoundation() throws {
        let root = try read(Self.head + """
            <plist version="1.0"><dict>
            \t<key>int</key><integer> 42 </integer>
            \t<key>hex</key><integer>0x10</integer>
            \t<key>big</key><integer>18446744073709551615</integer>
            \t<key>neg</key><integer>-9223372036854775808</integer>
            \t<key>real</key><real>0.10000000000000001</real>
            \t<key>exp</key><real>1e-05</real>
            \t<key>inf</key><real>-infinity</real>
            \t<key>nan</key><real>NaN</real>
            \t<key>date</key><date>2016-11-28T22:57:49Z</date>
            \t<key>data</key><data>
            \tAAEC
            \tAw==
            \t</data>
            \t<key>empty</key><string/>
            \t<key>escaped</key><string>&lt;a&gt; &amp; &#x1F600; &#13;</string>
            \t<key>cdata</key><string><![CDATA[<raw & text>]]></string>
            \t<key>spaces</key><string>  two  </string>
            \t<key>yes</key><true/>
            \t<key>no</key><false></false>
            \t<key>uid</key><dict><key>CF$UID</key><integer>7</integer></dict>
            \t<key>notuid</key><dict><key>CF$UID</key><string>7</string></dict>
            \t<key>arr</key><array/>
            \t<key>dict</key><dict/>
            </dict></plist>
            """)
        #expect(root["int"]?.int == 42)
        #expect(root["hex"]?.int == 16)
        #expect(root["big"]?.integer == PropertyListInteger(UInt64.max))
        #expect(root["neg"]?.integer == PropertyListInteger(Int64.min))
        #expect(root["real"]?.real == 0.1)
        #expect(root["exp"]?.real == 0.00001)
        #expect(root["inf"]?.real == -.infinity)
        #expect(root["nan"]?.real?.isNaN == true)
        #expect(root["date"]?.date?.secondsSince1970 == 1_480_373_869)
        #expect(root["data"]?.data == [0, 1, 2, 3])
        #expect(root["empty"] == "")
        #expect(root["escaped"] == "<a> & 😀 \r")
        #expect(root["cdata"] == "<raw & text>")
        #expect(root["spaces"] == "  two  ")
        #expect(root["yes"] == true)
        #expect(root["no"] == false)
        #expect(root["uid"] == .uid(7))
        #expect(root["notuid"]?["CF$UID"] == "7")
        #expect(root["arr"] == [])
        #expect(root["dict"] == .dictionary([:]))
    }

    @Test func errorsCarryTheLineNumber() throws {
        let document = Self.head + """
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<integer>seven</integer>
            </dict>
            </plist>
            """
        let failure = try #require(error(document))
        #expect(failure.code == "PLIST_XML_VALUE")
        #expect(failure.line == 6)
        #expect(failure.description.contains("line 6"))

        let malformed = try #require(error("\n\n" + Self.head + "<plist version=\"1.0\">\n<dict>\n</array>\n</plist>\n"))
        #expect(malformed.code == "PLIST_MALFORMED_XML")
        #expect(malformed.line == 7)

        let structure = try #require(error(Self.head + "<plist version=\"1.0\">\n<dict>\n\t<key>a</key>\n\t<key>b</key>\n</dict>\n</plist>"))
        #expect(structure.code == "PLIST_XML_STRUCTURE")
        #expect(structure.line == 6)
        #expect(structure.message.contains("\"a\""))
    }

    @Test func entitiesAreRefused() throws {
        let declared = "<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY name \"value\">]><plist><string>&name;</string></plist>"
        #expect(error(declared)?.code == "PLIST_XML_ENTITY")
        let undeclared = Self.head + "<plist><string>&name;</string></plist>"
        #expect(error(undeclared)?.code == "PLIST_XML_ENTITY")
        // Predefined entities and character references are plain text, not entities.
        #expect(try read("<plist><string>&quot;&apos;&#65;</string></plist>") == "\"'A")
    }

    /// External DTDs and entities name a real listener on 127.0.0.1: the documents that use them
    /// are refused with their code, the DTD of every Apple DOCTYPE is simply not loaded, and no
    /// connection ever reaches the listener (whose accept queue is checked without blocking).
    @Test func externalReferencesAreNeverFetched() throws {
        let listener = try LocalListener()
        let base = "http://127.0.0.1:\(listener.port)"
        let doctype = "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"\(base)/PropertyList-1.0.dtd\""

        // The external subset alone (what every Apple plist has): read, without loading it.
        #expect(try read("<?xml version=\"1.0\"?>\n\(doctype)>\n<plist version=\"1.0\"><string>ok</string></plist>") == "ok")
        // An external general entity, used in the content.
        let external = "<?xml version=\"1.0\"?>\n\(doctype) [\n<!ENTITY secret SYSTEM \"\(base)/secret\">\n]>\n"
            + "<plist version=\"1.0\"><string>&secret;</string></plist>"
        let entity = try #require(error(external))
        #expect(entity.code == "PLIST_XML_ENTITY")
        #expect(entity.line == 3)
        // An external parameter entity, expanded in the internal subset.
        let parameter = "<?xml version=\"1.0\"?>\n\(doctype) [\n<!ENTITY % remote SYSTEM \"\(base)/remote.dtd\">\n%remote;\n]>\n"
            + "<plist version=\"1.0\"><string>x</string></plist>"
        #expect(error(parameter)?.code == "PLIST_XML_ENTITY")
        // An entity the external subset would declare, if it were loaded.
        let fromSubset = "<?xml version=\"1.0\"?>\n\(doctype)>\n<plist version=\"1.0\"><string>&fromDTD;</string></plist>"
        #expect(error(fromSubset)?.code == "PLIST_XML_ENTITY")

        #expect(listener.acceptPending() == 0, "the parser connected to \(base)")

        // The control: a connection to the listener is seen.
        let client = try listener.connectToSelf()
        defer { close(client) }
        #expect(listener.acceptPending() == 1)
    }

    @Test func structureErrors() {
        let cases: [(String, String)] = [
            ("<plist><dict><string>a</string></dict></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist><array><key>a</key></array></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist><string>a<b/></string></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist><true>x</true></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist><x:dict xmlns:x=\"u\"/></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist><plist><string/></plist></plist>", "PLIST_XML_STRUCTURE"),
            ("<plist></plist>", "PLIST_XML_STRUCTURE"),
            ("<html/>", "PLIST_XML_STRUCTURE"),
            ("<plist><data>QUJD\u{E9}</data></plist>", "PLIST_XML_VALUE"),
            ("<plist><data>QU=J</data></plist>", "PLIST_XML_VALUE"),
            ("<plist><real></real></plist>", "PLIST_XML_VALUE"),
            ("<plist><integer/></plist>", "PLIST_XML_VALUE"),
            ("<plist><date>2016-11-28T22:57:49</date></plist>", "PLIST_XML_VALUE"),
            ("<plist><string>a</string>", "PLIST_MALFORMED_XML"),
            ("   ", "PLIST_UNSUPPORTED_FORMAT"),
        ]
        for (document, code) in cases {
            #expect(error(document)?.code == code, "\(document)")
        }
    }

    @Test func base64IsDecodedLikeCoreFoundation() throws {
        // Characters outside the alphabet are skipped; concatenated padded chunks are accepted.
        #expect(try read("<plist><data>QU JD\n\tRA==</data></plist>") == .data(Array("ABCD".utf8)))
        #expect(try read("<plist><data>QQ==QUI=</data></plist>") == .data(Array("AAB".utf8)))
        #expect(try read("<plist><data></data></plist>") == .data([]))
        #expect(try read("<plist><data>QUJD!@#</data></plist>") == .data(Array("ABC".utf8)))
    }

    @Test func depthIsLimited() throws {
        let deep = 250
        let fits = "<plist>" + String(repeating: "<array>", count: deep) + String(repeating: "</array>", count: deep) + "</plist>"
        var value = try read(fits)
        var levels = 0
        while case .array(let inner) = value {
            levels += 1
            guard let first = inner.first else { break }
            value = first
        }
        #expect(levels == deep)
        let tooDeep = "<plist>" + String(repeating: "<array>", count: deep + 1) + String(repeating: "</array>", count: deep + 1) + "</plist>"
        #expect(error(tooDeep)?.code == "PLIST_TOO_DEEP")
        let leafTooDeep = "<plist>" + String(repeating: "<array>", count: deep) + "<true/>" + String(repeating: "</array>", count: deep) + "</plist>"
        #expect(error(leafTooDeep)?.code == "PLIST_TOO_DEEP")
        let smaller = PropertyListLimits(maximumDepth: 3)
        #expect(throws: PropertyListError.self) {
            try PropertyList(bytes: Array("<plist><array><array><array><true/></array></array></array></plist>".utf8), limits: smaller)
        }
    }

    @Test func sizeIsLimited() {
        let limits = PropertyListLimits(maximumSize: 16)
        #expect(throws: PropertyListError.self) {
            try PropertyList(bytes: Array("<plist><string>too long</string></plist>".utf8), limits: limits)
        }
        do {
            _ = try PropertyList(bytes: Array("<plist><string>too long</string></plist>".utf8), limits: limits)
        } catch {
            #expect(error.code == "PLIST_TOO_LARGE")
        }
    }
}
