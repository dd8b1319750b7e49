import Testing
import XMLSupport

/// The streaming libxml2 reader that the XML property-list reader is built on.
@Suite struct XMLStreamParserTests {
    final class Recorder: XMLStreamHandler {
        var events: [String] = []
        var stopAt: String?

        func startElement(_ element: XMLStreamElement) -> Bool {
            var event = "<\(element.name)@\(element.line)"
            if let version = element.attribute("version") { event += " version=\(version)" }
            if element.hasPrefix { event += " prefixed" }
            events.append(event + ">")
            return element.name != stopAt
        }

        func endElement(_ element: XMLStreamElement) -> Bool {
            events.append("</\(element.name)>")
            return true
        }

        func characters(_ text: UnsafeBufferPointer<UInt8>, line: Int) -> Bool {
            let string = String(decoding: text, as: UTF8.self)
            if let last = events.last, last.hasPrefix("\"") {
                events[events.count - 1] = String(last.dropLast()) + string + "\""
            } else {
                events.append("\"\(string)\"")
            }
            return true
        }
    }

    func run(_ text: String, stopAt: String? = nil) throws(XMLParseError) -> (XMLStreamParser.Outcome, [String]) {
        let recorder = Recorder()
        recorder.stopAt = stopAt
        let outcome = try XMLStreamParser.parse(bytes: Array(text.utf8), handler: recorder)
        return (outcome, recorder.events)
    }

    @Test func reportsElementsTextAndLinesInOrder() throws {
        let (outcome, events) = try run("\n\n<plist version=\"1.0\">\n<a>x &amp; <![CDATA[<y>]]>&#65;</a><x:b xmlns:x=\"u\"/>\n</plist>")
        #expect(outcome == .completed)
        #expect(events == ["<plist@3 version=1.0>", "\"\n\"", "<a@4>", "\"x & <y>A\"", "</a>", "<b@4 prefixed>", "</b>", "\"\n\"", "</plist>"])
    }

    @Test func theHandlerCanStopTheParse() throws {
        let (outcome, events) = try run("<r><a/><b/><c/></r>", stopAt: "b")
        #expect(outcome == .stoppedByHandler)
        #expect(events == ["<r@1>", "<a@1>", "</a>", "<b@1>"])
    }

    @Test func entitiesAndMalformedDocumentsAreRefused() {
        #expect(throws: XMLParseError(reason: .entityDeclaration, line: 1, message: "the document declares an XML entity; entity declarations are refused")) {
            try run("<!DOCTYPE r [<!ENTITY e \"v\">]><r>&e;</r>")
        }
        do {
            _ = try run("<!DOCTYPE r SYSTEM \"r.dtd\"><r>&undeclared;</r>")
            Issue.record("an undeclared entity reference was accepted")
        } catch {
            #expect(error.reason == .entityDeclaration)
            #expect(error.message.contains("&undeclared;"))
        }
        do {
            _ = try run("<r>\n<a></b>\n</r>")
            Issue.record("a mismatched tag was accepted")
        } catch {
            #expect(error.reason == .malformed)
            #expect(error.line == 2)
        }
        #expect(throws: XMLParseError.self) { try run("") }
        #expect(throws: XMLParseError.self) { try run("  \n ") }
    }

    @Test func sizeIsLimitedBeforeParsing() {
        #expect(throws: XMLParseError.self) {
            try XMLStreamParser.parse(bytes: Array("<r/>".utf8), maximumSize: 3, handler: Recorder())
        }
    }
}
