import Testing
import XMLSupport

/// The XMLSupport pieces added for policies: XSD validation and in-place text edits.
@Suite struct XMLSchemaTests {
    private let schemaText = """
        <?xml version="1.0"?>
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
          <xs:element name="r">
            <xs:complexType>
              <xs:sequence><xs:element name="n" type="xs:integer" maxOccurs="unbounded"/></xs:sequence>
            </xs:complexType>
          </xs:element>
        </xs:schema>
        """

    @Test func validatesAndReportsEveryViolationWithItsLine() throws {
        let schema = try XMLSchema(bytes: Array(schemaText.utf8))
        #expect(try schema.validate(bytes: Array("<r><n>1</n><n>2</n></r>".utf8)).isValid)
        let result = try schema.validate(bytes: Array("<r>\n<n>x</n>\n<n>2</n>\n<m/>\n</r>".utf8))
        #expect(result.violations.map(\.line) == [2, 4])
        #expect(result.violations.first?.message.contains("'x' is not a valid value") == true)
        #expect(result.omitted == 0)
    }

    @Test func refusesSchemasThatReadOtherFiles() {
        for element in [#"<xs:import namespace="urn:x" schemaLocation="http://example.invalid/x.xsd"/>"#,
                        #"<xs:include schemaLocation="/etc/passwd"/>"#,
                        #"<xs:redefine schemaLocation="other.xsd"/>"#] {
            let text = "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\">\n\(element)\n</xs:schema>"
            #expect {
                try XMLSchema(bytes: Array(text.utf8))
            } throws: { error in
                guard let error = error as? XMLSchemaError else { return false }
                return error.code == "XML_SCHEMA_INVALID" && error.line == 2 && error.message.contains("refused")
            }
        }
    }

    @Test func refusesBrokenSchemas() {
        let cases = [
            "<notaschema/>",
            "<xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"><xs:element name=\"r\" type=\"Missing\"/></xs:schema>",
            "<xs:schema",
            "<!DOCTYPE x [<!ENTITY e \"e\">]><xs:schema xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"/>",
        ]
        for text in cases {
            #expect(throws: XMLSchemaError.self) { try XMLSchema(bytes: Array(text.utf8)) }
        }
    }

    @Test func oneSchemaServesManyConcurrentValidations() async throws {
        let schema = try XMLSchema(bytes: Array(schemaText.utf8))
        let counts = await withTaskGroup(of: Int.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let text = index.isMultiple(of: 2) ? "<r><n>\(index)</n></r>" : "<r><n>bad</n><n>worse</n></r>"
                    return (try? schema.validate(bytes: Array(text.utf8)))?.violations.count ?? -1
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.sorted() == Array(repeating: 0, count: 32) + Array(repeating: 2, count: 32))
    }

    @Test func documentsThatDoNotParseAreNotValidated() throws {
        let schema = try XMLSchema(bytes: Array(schemaText.utf8))
        #expect(throws: XMLParseError.self) { try schema.validate(bytes: Array("<r><n>".utf8)) }
        #expect(throws: XMLParseError.self) { try schema.validate(bytes: Array("<r/>".utf8), maximumSize: 3) }
    }
}

@Suite struct XMLSourceEditorTests {
    @Test func findsElementsByPathOnly() throws {
        let text = "<a><b><c>1</c></b><c>no</c><b><c/><d><c>no</c></d><c x='>'>3</c></b></a>"
        let editor = XMLSourceEditor(bytes: Array(text.utf8))
        let found = try editor.elements(atPath: ["a", "b", "c"])
        #expect(found.count == 3)
        #expect(found.map(\.isEmptyElementTag) == [false, true, false])
        #expect(found.map { String(decoding: editor.bytes[$0.content], as: UTF8.self) } == ["1", "", "3"])
        #expect(try editor.elements(atPath: ["x"]).isEmpty)
        #expect(try editor.elements(atPath: []).isEmpty)
    }

    @Test func editsKeepEveryOtherByte() throws {
        let text = "<?xml version='1.0'?>\r\n<a>\r\n  <b q=\"/>\" />\r\n  <b>old &amp; <![CDATA[x]]></b>\r\n</a>\r\n"
        let editor = XMLSourceEditor(bytes: Array(text.utf8))
        let found = try editor.elements(atPath: ["a", "b"])
        let output = try editor.applying([
            XMLTextEdit(element: found[1], text: "new"),
            XMLTextEdit(element: found[0], text: "<1>"),
        ])
        #expect(String(decoding: output, as: UTF8.self)
            == "<?xml version='1.0'?>\r\n<a>\r\n  <b q=\"/>\">&lt;1&gt;</b>\r\n  <b>new</b>\r\n</a>\r\n")
        #expect(try editor.applying([]) == editor.bytes)
        #expect(try editor.applying([XMLTextEdit(element: found[0], text: "")]) == editor.bytes)
    }

    @Test func refusesWhatItCannotDoSafely() throws {
        for text in ["<a><!-- never closed", "<a><b>", "<a></b>", "<a x='1>", "<a><![CDATA[x</a>", "<!DOCTYPE a [ <a/>", "< a/>"] {
            #expect(throws: XMLSourceError.self, "\(text)") {
                try XMLSourceEditor(bytes: Array(text.utf8)).elements(atPath: ["a"])
            }
        }
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        #expect(throws: XMLSourceError.self) { try XMLSourceEditor(bytes: Array(deep.utf8)).elements(atPath: ["a"]) }

        let editor = XMLSourceEditor(bytes: Array("<a><b>1</b></a>".utf8))
        let b = try #require(try editor.elements(atPath: ["a", "b"]).first)
        #expect { try editor.applying([XMLTextEdit(element: b, text: "x"), XMLTextEdit(element: b, text: "y")]) } throws: {
            ($0 as? XMLSourceError)?.code == "XML_EDITS_OVERLAP"
        }
        #expect { try editor.applying([XMLTextEdit(element: b, text: "a\u{1}b")]) } throws: {
            ($0 as? XMLSourceError)?.code == "XML_TEXT_UNREPRESENTABLE"
        }
        #expect(try XMLSourceEditor.escapedText("a\rb\tc\nd") == Array("a&#13;b\tc\nd".utf8))
    }
}
