import PropertyList
import ProvisioningProfile
import Testing

/// `EntitlementRules`: what a profile grants, as `sign` and `verify` both judge it.
@Suite struct EntitlementRulesTests {
    @Test(arguments: [
        // granted, signed, granted?
        (PropertyListValue.bool(false), PropertyListValue.bool(false), true),
        (.bool(false), .bool(true), false),
        (.bool(true), .bool(false), true),
        (.string("production"), .string("development"), false),
        (.array(["ABCDE12345.*"]), .array(["ABCDE12345.com.example.app"]), true),
        (.array(["ABCDE12345.*"]), .array(["ZYXWV98765.com.example.app"]), false),
        (.array(["group.a", "group.b"]), .array(["group.b"]), true),
        (.array(["group.a"]), .array(["group.a", "group.c"]), false),
        (.string("*"), .array(["applinks:example.com"]), true),
        (.string("ABCDE12345.*"), .string("ABCDE12345.com.example.app"), true),
        (.array(["group.a"]), .array([.array(["group.a"])]), false),
        (.string("x"), .integer(5), false),
    ])
    func grants(_ granted: PropertyListValue, _ signed: PropertyListValue, _ expected: Bool) {
        #expect(EntitlementRules.grants(granted, signed) == expected)
    }

    @Test func typesAreApples() {
        let signed: PropertyListDictionary = [
            "application-identifier": .integer(5), "get-task-allow": "yes", "keychain-access-groups": ["a", .integer(1)],
            "com.example.private": .integer(3), "aps-environment": "production",
        ]
        let keys = EntitlementRules.typeProblems(in: signed).map(\.key)
        #expect(keys == ["application-identifier", "get-task-allow", "keychain-access-groups"])
        // A profile may grant a list with the wildcard string; a signature may not.
        let wildcard: PropertyListDictionary = ["com.apple.developer.associated-domains": "*"]
        #expect(EntitlementRules.typeProblems(in: wildcard, profileWildcards: true).isEmpty)
        #expect(EntitlementRules.typeProblems(in: wildcard).count == 1)
    }
}
