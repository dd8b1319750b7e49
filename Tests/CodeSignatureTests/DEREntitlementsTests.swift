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
}
