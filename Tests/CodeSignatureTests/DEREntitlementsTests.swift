import CodeSignature
import PropertyList
import Testing
import TestSupport

/// DER entitlements (code-signature slot 7), checked against vectors encoded independently:
/// rcodesign's test vector and `openssl asn1parse -genconf`.
struct DEREntitlementsTests {
    @Test func emptyDictionary() throws {
        // rcodesign's DER_EMPTY_DICT.
        let entitlements = try DEREntitlements(derEncoded: [0x70, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00])
        #expect(entitlements.dictionary.isEmpty)
    }

    static let genconf = """
        asn1 = IMPLICIT:16A,SEQUENCE:root
        [root]
        version = INTEGER:1
        dict = IMPLICIT:16C,SET:dict
        [dict]
        e1 = SEQUENCE:e1
        e2 = SEQUENCE:e2
        e3 = SEQUENCE:e3
        e4 = SEQUENCE:e4
        e5 = SEQUENCE:e5
        [e1]
        k = UTF8String:application-identifier
        v = UTF8String:ABCDE12345.com.example.sample
        [e2]
        k = UTF8String:com.apple.developer.associated-domains
        v = SEQUENCE:domains
        [domains]
        d1 = UTF8String:applinks:example.com
        d2 = UTF8String:webcredentials:example.com
        [e3]
        k = UTF8String:get-task-allow
        v = BOOLEAN:TRUE
        [e4]
        k = UTF8String:com.apple.developer.icloud-container-environment
        v = IMPLICIT:16C,SEQUENCE:nested
        [nested]
        n1 = SEQUENCE:n1
        [n1]
        k = UTF8String:limit
        v = INTEGER:-42
        [e5]
        k = UTF8String:z-count
        v = INTEGER:300

        """

    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func everyValueTypeAgainstOpensslsEncoder() throws {
        let scratch = try ScratchDirectory("der-entitlements")
        let config = try scratch.write("entitlements.cnf", Array(Self.genconf.utf8))
        let output = scratch.path("entitlements.der")
        let result = try Command.run("openssl", ["asn1parse", "-genconf", config, "-out", output, "-noout"])
        try #require(result.status == 0, "\(result.stderr)")
        let entitlements = try DEREntitlements(derEncoded: Fixtures.bytesAt(output))
        let expected: PropertyListDictionary = [
            "application-identifier": "ABCDE12345.com.example.sample",
            "com.apple.developer.associated-domains": ["applinks:example.com", "webcredentials:example.com"],
            "get-task-allow": true,
            "com.apple.developer.icloud-container-environment": ["limit": -42],
            "z-count": 300,
        ]
        #expect(entitlements.dictionary == expected)
    }

    @Test(arguments: [
        ("not DER", [0x30, 0x80, 0x00, 0x00] as [UInt8]),
        ("wrong root tag", [0x30, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00]),
        ("version 2", [0x70, 0x05, 0x02, 0x01, 0x02, 0xB0, 0x00]),
        ("no dictionary", [0x70, 0x03, 0x02, 0x01, 0x01]),
        ("truncated", [0x70, 0x05, 0x02, 0x01, 0x01, 0xB0]),
        ("octet string value", [0x70, 0x0C, 0x02, 0x01, 0x01, 0xB0, 0x07, 0x30, 0x05, 0x0C, 0x01, 0x6B, 0x04, 0x00]),
        ("entry without value", [0x70, 0x0A, 0x02, 0x01, 0x01, 0xB0, 0x05, 0x30, 0x03, 0x0C, 0x01, 0x6B]),
        ("duplicate key", [
            0x70, 0x15, 0x02, 0x01, 0x01, 0xB0, 0x10,
            0x30, 0x06, 0x0C, 0x01, 0x6B, 0x01, 0x01, 0xFF,
            0x30, 0x06, 0x0C, 0x01, 0x6B, 0x01, 0x01, 0x00,
        ]),
        ("integer over 64 bits", [
            0x70, 0x15, 0x02, 0x01, 0x01, 0xB0, 0x10,
            0x30, 0x0E, 0x0C, 0x01, 0x6B, 0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0,
        ]),
    ])
    func malformedEncodingsAreRefused(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: CodeSignatureError.self, "\(name)") { try DEREntitlements(derEncoded: bytes) }
        do {
            _ = try DEREntitlements(derEncoded: bytes)
        } catch {
            #expect(error.code == "ENTITLEMENTS_DER_INVALID", "\(name)")
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        // 200 nested arrays: deeper than the DER parser's limit.
        var value: [UInt8] = [0x01, 0x01, 0xFF]
        for _ in 0..<200 { value = tlv(0x30, value) }
        let bytes = tlv(0x70, [0x02, 0x01, 0x01] + tlv(0xB0, tlv(0x30, [0x0C, 0x01, 0x6B] + value)))
        #expect(throws: CodeSignatureError.self) { try DEREntitlements(derEncoded: bytes) }
    }

    /// The dictionary as a SEQUENCE retagged [CONTEXT 16]: openssl would sort a SET into DER
    /// order (shortest encoding first), which is not the order entitlements use.
    static let sortedGenconf = """
        asn1 = IMPLICIT:16A,SEQUENCE:root
        [root]
        version = INTEGER:1
        dict = IMPLICIT:16C,SEQUENCE:dict
        [dict]
        e1 = SEQUENCE:e1
        e2 = SEQUENCE:e2
        e3 = SEQUENCE:e3
        e4 = SEQUENCE:e4
        e5 = SEQUENCE:e5
        [e1]
        k = UTF8String:Z-upper
        v = INTEGER:-42
        [e2]
        k = UTF8String:a
        v = BOOLEAN:FALSE
        [e3]
        k = UTF8String:aa
        v = SEQUENCE:list
        [list]
        i1 = UTF8String:x
        i2 = INTEGER:0
        [e4]
        k = UTF8String:b
        v = IMPLICIT:16C,SEQUENCE:nested
        [nested]
        n1 = SEQUENCE:n1
        [n1]
        k = UTF8String:limit
        v = INTEGER:300
        [e5]
        k = FORMAT:UTF8,UTF8String:été
        v = UTF8String:ABCDE12345.com.example

        """

    /// The encoder sorts keys by their UTF-8 bytes at every level ("Z" < "a" < "aa" < "b" < "été")
    /// and encodes each value as openssl's DER encoder does.
    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func encodingIsOpensslsForSortedKeys() throws {
        let scratch = try ScratchDirectory("der-encoding")
        let config = try scratch.write("entitlements.cnf", Array(Self.sortedGenconf.utf8))
        let output = scratch.path("entitlements.der")
        let result = try Command.run("openssl", ["asn1parse", "-genconf", config, "-out", output, "-noout"])
        try #require(result.status == 0, "\(result.stderr)")
        let dictionary: PropertyListDictionary = [
            "été": "ABCDE12345.com.example", "b": ["limit": 300], "aa": ["x", 0], "a": false, "Z-upper": -42,
        ]
        let encoded = try DEREntitlements(dictionary: dictionary).derEncoded()
        #expect(encoded == (try Fixtures.bytesAt(output)))
        #expect(try DEREntitlements(derEncoded: encoded).dictionary == dictionary)
        #expect(try DEREntitlements(dictionary: dictionary).blob() == [0xFA, 0xDE, 0x71, 0x72] + bigEndian(UInt32(8 + encoded.count)) + encoded)
    }

    @Test func integersAtTheEdgesRoundTrip() throws {
        for value: Int64 in [0, 1, -1, 127, 128, -128, -129, 255, 256, .max, .min] {
            let dictionary: PropertyListDictionary = ["n": .integer(PropertyListInteger(value))]
            #expect(try DEREntitlements(derEncoded: DEREntitlements(dictionary: dictionary).derEncoded()).dictionary == dictionary)
        }
        #expect(try DEREntitlements(dictionary: [:]).derEncoded() == [0x70, 0x05, 0x02, 0x01, 0x01, 0xB0, 0x00])
    }

    static let unencodable: [(String, PropertyListDictionary)] = [
        ("a real", ["k": 1.5]),
        ("data", ["k": .data([1])]),
        ("a date", ["k": .date(PropertyListDate(secondsSince1970: 0))]),
        ("a UID", ["k": .uid(1)]),
        ("a 128-bit integer", ["k": .integer(PropertyListInteger(high: 1, low: 0))]),
    ]

    @Test(arguments: unencodable)
    func valuesDEREntitlementsCannotHoldAreRefused(_ what: String, _ dictionary: PropertyListDictionary) {
        do {
            _ = try DEREntitlements(dictionary: dictionary).derEncoded()
            Issue.record("\(what) was encoded")
        } catch {
            #expect(error.code == "ENTITLEMENTS_DER_INVALID", "\(what)")
        }
    }

    /// What the encoder writes the decoder reads: nesting past what swift-asn1 parses is refused
    /// when writing, not discovered when reading.
    @Test func nestingIsBoundedWhenWriting() throws {
        var value: PropertyListValue = true
        for _ in 0..<20 { value = ["k": value] }
        #expect(try DEREntitlements(derEncoded: DEREntitlements(dictionary: ["k": value]).derEncoded()).dictionary == ["k": value])
        for _ in 0..<10 { value = ["k": value] }
        #expect(throws: CodeSignatureError.self) { try DEREntitlements(dictionary: ["k": value]).derEncoded() }
    }
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian, Array.init)
}
