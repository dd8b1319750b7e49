import Foundation
import Policy
import Testing
import TestSupport

/// Invalid and hostile policy files: each gives its coded issues, on the right lines, all at once.
@Suite struct ValidationTests {
    @Test func everyInvalidFixtureIsCovered() {
        let names = InvalidFixtures.names
        #expect(names.count >= 15)
        let codes = Set(names.map(InvalidFixtures.namedCode))
        for kind in [PolicyIssue.Kind.malformed, .entityDeclaration, .notUTF8, .schema, .unknownType,
                     .invalidConstraint, .invalidDefault, .duplicateName] {
            #expect(codes.contains(kind.rawValue), "no fixture named for \(kind.rawValue)")
        }
    }

    @Test(arguments: InvalidFixtures.names)
    func fixtureGivesExactlyItsMarkedIssues(name: String) throws {
        let bytes = try InvalidFixtures.bytes(name)
        let expected = InvalidFixtures.expectations(bytes)
        try #require(!expected.isEmpty, "\(name) has no expect: markers")
        #expect(expected.contains { $0.code == InvalidFixtures.namedCode(name) }, "\(name) is not named for a code it gives")

        let validation = PolicyDocument.validate(bytes, schema: try Repo.schema())
        #expect(validation.template == nil)
        let found = Set(validation.issues.map { ExpectedIssue(code: $0.code, line: $0.line) })
        #expect(found == expected, "\(name): \(validation.issues)")
        // Issues come in line order, each a sentence.
        #expect(validation.issues.map(\.line) == validation.issues.map(\.line).sorted())
        #expect(validation.issues.allSatisfy { !$0.message.isEmpty && !$0.message.hasSuffix("\n") })

        // Loading throws the same issues.
        #expect { try PolicyTemplate(bytes: bytes, schema: Repo.schema()) } throws: { error in
            (error as? PolicyValidationError)?.issues == validation.issues
        }
    }

    /// xmllint, a separate program, finds schema violations on the same lines, and accepts the
    /// files whose problems only ipawrap's own checks can see.
    @Test(.enabled(if: Xmllint.isAvailable, "xmllint (Debian libxml2-utils) is not installed; oracle skipped"),
          arguments: InvalidFixtures.names.filter { !$0.hasPrefix("XML_") })
    func xmllintAgreesOnSchemaViolations(name: String) throws {
        let expected = InvalidFixtures.expectations(try InvalidFixtures.bytes(name))
        let schemaLines = Set(expected.filter { $0.code == "POLICY_SCHEMA" }.map(\.line))
        let result = try Xmllint.validate(InvalidFixtures.folder.appendingPathComponent(name))
        #expect(result.violationLines == schemaLines, "\(result.output)")
        #expect((result.status == 0) == schemaLines.isEmpty, "\(result.output)")
    }

    @Test func messagesNameThePolicyAndTheFix() throws {
        let schema = try Repo.schema()
        let defaults = PolicyDocument.validate(try InvalidFixtures.bytes("POLICY_INVALID_DEFAULT.every-type.xml"), schema: schema).issues
        let messages = defaults.map(\.message)
        #expect(messages.count == 6)
        #expect(messages[0].contains("'DisableCamera'") && messages[0].contains("use true or false"))
        #expect(messages[1].contains("below the minimum of 1"))
        #expect(messages[2].contains("not a decimal integer"))
        #expect(messages[3].contains("did you mean 'Unrestricted'?"))
        #expect(messages[4].contains("entry 2 of the list is empty"))
        #expect(messages[5].contains("control character U+000A"))

        let types = PolicyDocument.validate(try InvalidFixtures.bytes("POLICY_UNKNOWN_TYPE.xml"), schema: schema).issues
        #expect(types.map(\.message).last?.contains("did you mean 'boolean'?") == true)
        #expect(types.first?.message.contains("known types are boolean, integer, string, enum, stringlist") == true)

        let duplicates = PolicyDocument.validate(try InvalidFixtures.bytes("POLICY_DUPLICATE_NAME.xml"), schema: schema).issues
        #expect(duplicates.allSatisfy { $0.message.contains("first definition is on line 6") })

        let error = PolicyValidationError(issues: defaults)
        #expect(error.code == "POLICY_INVALID_DEFAULT")
        #expect(error.category == .invalidInput)
        #expect(error.description.hasPrefix("the policy file has 6 problems:\n  line 8: [POLICY_INVALID_DEFAULT]"))
    }

    @Test func oversizedFileIsRefusedUnread() throws {
        var bytes = Array("<PolicyMetadata AppMode=\"premium\" FormatVersion=\"1\"><!--".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: PolicyDocument.maximumSize)
        bytes += Array("--></PolicyMetadata>".utf8)
        let issues = PolicyDocument.validate(bytes, schema: try Repo.schema()).issues
        #expect(issues.map(\.code) == ["XML_TOO_LARGE"])
    }

    @Test func deepNestingIsMalformedNotACrash() throws {
        let bytes = Array(("<PolicyMetadata>" + String(repeating: "<Policies>", count: 5000)
            + String(repeating: "</Policies>", count: 5000) + "</PolicyMetadata>").utf8)
        let issues = PolicyDocument.validate(bytes, schema: try Repo.schema()).issues
        #expect(issues.map(\.code) == ["XML_MALFORMED"])
    }

    @Test func emptyAndBinaryInputAreMalformed() throws {
        let schema = try Repo.schema()
        for bytes in [[], [0x00, 0x01, 0x02], Array("PK\u{3}\u{4}".utf8), [0xEF, 0xBB, 0xBF]] as [[UInt8]] {
            let issues = PolicyDocument.validate(bytes, schema: schema).issues
            #expect(issues.count == 1)
            #expect(["XML_MALFORMED", "POLICY_NOT_UTF8"].contains(issues.first?.code ?? ""), "\(issues)")
        }
    }

    @Test func manyProblemsAreCappedWithACount() throws {
        var text = "<PolicyMetadata AppMode=\"premium\" FormatVersion=\"1\"><Policies>\n"
        for index in 0..<1500 {
            text += "<Policy><PolicyName>P\(index)</PolicyName><PolicyType>boolean</PolicyType>"
                + "<PolicyDefault>maybe</PolicyDefault><PolicyHidden>false</PolicyHidden>"
                + "<PolicyCategory>C</PolicyCategory><PolicyTitle lang=\"en\">T</PolicyTitle>"
                + "<PolicyDescription lang=\"en\">D</PolicyDescription></Policy>\n"
        }
        text += "</Policies></PolicyMetadata>\n"
        let issues = PolicyDocument.validate(Array(text.utf8), schema: try Repo.schema()).issues
        #expect(issues.count == PolicyDocument.issueLimit + 1)
        #expect(issues.last?.code == "POLICY_TOO_MANY_ISSUES")
        #expect(issues.last?.message == "500 further problems were not listed")
    }

    @Test func xmlDeclarationAfterBlankLinesKeepsFileLineNumbers() throws {
        // XMLDocument skips leading whitespace even before an XML declaration (hand-edited files).
        let fixture = try Fixtures.bytes("policy/invalid/POLICY_INVALID_DEFAULT.after-blank-lines.xml")
        let text = "\r\n\n" + String(decoding: fixture.drop { $0 == 0x0A }, as: UTF8.self)
            .replacingOccurrences(of: "<!-- Starts", with: "<?xml version=\"1.0\"?><!-- Starts")
        let issues = PolicyDocument.validate(Array(text.utf8), schema: try Repo.schema()).issues
        #expect(issues.map(\.line) == [10])
    }
}
