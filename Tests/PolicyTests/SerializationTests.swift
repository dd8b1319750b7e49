import Policy
import Testing
import TestSupport

/// The policy XML wrap embeds: the template's own bytes with only the changed defaults different.
@Suite struct SerializationTests {
    /// The byte ranges where `a` and `b` differ, as (prefix length, differing part of a, of b).
    private func difference(_ a: [UInt8], _ b: [UInt8]) -> (prefix: Int, old: String, new: String) {
        var prefix = 0
        while prefix < min(a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(a.count, b.count) - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        return (prefix, String(decoding: a[prefix..<(a.count - suffix)], as: UTF8.self),
                String(decoding: b[prefix..<(b.count - suffix)], as: UTF8.self))
    }

    @Test(arguments: ["premium", "general"])
    func withoutOverridesTheBytesAreTheTemplate(name: String) throws {
        let template = try Repo.template(name)
        #expect(try template.serialized() == Repo.templateBytes(name))
    }

    @Test func oneOverrideChangesExactlyThatValue() throws {
        let original = try Repo.templateBytes("premium")
        var template = try Repo.template("premium")
        try template.set(name: "DisableCamera", value: "true")
        let output = try template.serialized()

        let diff = difference(original, output)
        #expect(diff.old == "fals" && diff.new == "tru")  // "false" → "true" share the final "e"
        // Independently: the change sits inside DisableCamera's PolicyDefault, found by text search.
        let text = String(decoding: original, as: UTF8.self)
        let policy = try #require(text.range(of: "<PolicyName>DisableCamera</PolicyName>"))
        let open = try #require(text.range(of: "<PolicyDefault>", range: policy.upperBound..<text.endIndex))
        #expect(text.utf8.distance(from: text.startIndex, to: open.upperBound) == diff.prefix)

        let expected = String(text[..<open.upperBound]) + "true" + String(text[open.upperBound...].dropFirst("false".count))
        #expect(output == Array(expected.utf8))

        // The output is itself a valid template with the new value and the same mode.
        let reread = try PolicyTemplate(bytes: output, schema: Repo.schema())
        #expect(reread.policy(named: "DisableCamera")?.defaultValue == "true")
        #expect(reread.mode == .premium)
        #expect(reread.policies.count == template.policies.count)
    }

    @Test(.enabled(if: Xmllint.isAvailable, "xmllint (Debian libxml2-utils) is not installed; oracle skipped"))
    func xmllintAcceptsTheOutputAfterEveryKindOfOverride() throws {
        var template = try Repo.template("premium")
        try template.set(name: "NetworkAccess", value: "TunneledFullVPNAndWebSSO")
        try template.set(name: "MaxOfflinePeriod", value: "24")
        try template.set(name: "EncryptionExclusions", value: "/Library/Caches/cipher.db,/Documents/tmp")
        try template.set(name: "AlternateGatewayAddress", value: "gw.example.com/<a>&\"b\"")
        let result = try Xmllint.validate(bytes: try template.serialized())
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func valuesAreEscapedAndReadBackExactly() throws {
        var template = try Repo.template("premium")
        let value = "a&b<c>]]>\"d\" 'e' 网关"
        try template.set(name: "AlternateGatewayAddress", value: value)
        let output = try template.serialized()
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains("<PolicyDefault>a&amp;b&lt;c&gt;]]&gt;\"d\" 'e' 网关</PolicyDefault>"))
        #expect(try PolicyTemplate(bytes: output, schema: Repo.schema()).policy(named: "AlternateGatewayAddress")?.defaultValue == value)
    }

    @Test func theSameRequestGivesTheSameBytesInAnyOrder() throws {
        var first = try Repo.template("premium")
        try first.set(name: "Paste", value: "Blocked")
        try first.set(name: "DisableICloud", value: "false")
        var second = try Repo.template("premium")
        try second.set(name: "DisableICloud", value: "false")
        try second.set(name: "DisableCamera", value: "true")
        try second.set(name: "Paste", value: "Blocked")
        try second.set(name: "DisableCamera", value: "false")  // back to the template's value
        #expect(try first.serialized() == second.serialized())
        #expect(try first.serialized() == first.serialized())
        #expect(second.changedNames == ["DisableICloud", "Paste"])
    }

    @Test func anUnusualLayoutIsKeptByteForByte() throws {
        let original = try Fixtures.bytes("policy/valid/tricky-layout.xml")
        var template = try PolicyTemplate(bytes: original, schema: Repo.schema())
        #expect(template.names == ["DisableCamera", "AllowedURLs", "AlternateGatewayAddress", "NetworkExclusionList", "Paste", "AppURLSchemes"])
        #expect(template.policy(named: "DisableCamera")?.title(language: "zh-CN") == "禁用相机")
        #expect(template.policy(named: "DisableCamera")?.helpText(language: "ru") == "Блокирует камеру.")
        #expect(template.policy(named: "AllowedURLs")?.defaultValue == "+tel:,^http:=ctxmobilebrowser:")
        #expect(template.policy(named: "AppURLSchemes")?.defaultValue == "+a&b,-c")
        #expect(template.policy(named: "Paste")?.type.enumValues.first?.title == "Allowed > anything")
        #expect(try template.serialized() == original)

        let values = [
            "DisableCamera": "true", "AllowedURLs": "+tel:", "AlternateGatewayAddress": "gw.example.com",
            "NetworkExclusionList": "a.example,b.example", "Paste": "Blocked", "AppURLSchemes": "-x&y",
        ]
        for (name, value) in values { try template.set(name: name, value: value) }
        let output = try template.serialized()
        let text = String(decoding: output, as: UTF8.self)
        #expect(text.contains("<!-- <PolicyDefault>true</PolicyDefault> is only a comment -->\r\n      <PolicyDefault>true</PolicyDefault>"))
        #expect(text.contains("<PolicyDefault>+tel:</PolicyDefault>"))
        #expect(text.contains("<PolicyDefault>gw.example.com</PolicyDefault>\r\n"))
        #expect(text.contains("<PolicyDefault>a.example,b.example</PolicyDefault>"))
        #expect(text.contains("<PolicyDefault   >Blocked</PolicyDefault  >"))
        #expect(text.contains("<PolicyDefault>-x&amp;y</PolicyDefault>"))
        // Everything but the six values is untouched: remove them from both and compare.
        let decoy = "<!-- <PolicyDefault>true</PolicyDefault> is only a comment -->"
        var stripped = String(decoding: original, as: UTF8.self).replacingOccurrences(of: decoy, with: "#")
        for old in ["<PolicyDefault>false</PolicyDefault>", "<PolicyDefault><![CDATA[+tel:,^http:=ctxmobilebrowser:]]></PolicyDefault>",
                    "<PolicyDefault/>", "<PolicyDefault></PolicyDefault>", "<PolicyDefault   >Unrestricted</PolicyDefault  >",
                    "<PolicyDefault>+a&amp;b,&#x2D;c</PolicyDefault>"] {
            stripped = stripped.replacingOccurrences(of: old, with: "@")
        }
        var strippedOutput = text.replacingOccurrences(of: decoy, with: "#")
        for new in ["<PolicyDefault>true</PolicyDefault>", "<PolicyDefault>+tel:</PolicyDefault>", "<PolicyDefault>gw.example.com</PolicyDefault>",
                    "<PolicyDefault>a.example,b.example</PolicyDefault>", "<PolicyDefault   >Blocked</PolicyDefault  >",
                    "<PolicyDefault>-x&amp;y</PolicyDefault>"] {
            strippedOutput = strippedOutput.replacingOccurrences(of: new, with: "@")
        }
        #expect(stripped == strippedOutput)
        #expect(stripped.components(separatedBy: "@").count == 7)

        let reread = try PolicyTemplate(bytes: output, schema: Repo.schema())
        for (name, value) in values { #expect(reread.policy(named: name)?.defaultValue == value, "\(name)") }
    }
}
