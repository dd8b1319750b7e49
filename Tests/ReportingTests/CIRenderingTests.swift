import Foundation
import FoundationXML
@testable import Reporting
import Testing

/// JUnit and SARIF as `Reporting` renders them from a catalogue of its own, read back with
/// independent parsers (Foundation's `XMLParser`, `JSONSerialization`), not with our writer.
@Suite struct CIRenderingTests {
    /// Two areas of two codes each, and a wrap area that only `wrap` runs.
    static let catalogue: [(name: String, codes: [FindingCode])] = [
        ("alpha", [
            FindingCode("ALPHA_BROKEN", .error, summary: "alpha is broken", remedy: "Mend alpha."),
            FindingCode("ALPHA_ODD", .warning, summary: "alpha is odd", remedy: "Look at alpha."),
        ]),
        ("beta", [
            FindingCode("BETA_NOTE", .info, summary: "beta says something", remedy: "Nothing to do."),
            FindingCode("BETA_BROKEN", .error, summary: "beta is broken", remedy: "Mend beta."),
        ]),
        ("wrap", [FindingCode("WRAP_ONLY", .error, summary: "only wrap finds this", remedy: "Do not wrap.")]),
    ]

    static func subjects() -> [ReportSubject] {
        var report = ReportJSONTests.report(judgedAt: nil, expiration: nil)
        report.findings = [
            Finding(code: "ALPHA_BROKEN", severity: .error, message: "alpha <is> broken & gone", remedy: "Mend alpha."),
            Finding(code: "BETA_NOTE", severity: .info, message: "a note"),
            Finding(code: "NOT_IN_THE_CATALOGUE", severity: .warning, message: "from nowhere"),
        ]
        return [
            ReportSubject(path: "/builds/a.ipa", name: "a.ipa", outcome: .report(report)),
            ReportSubject(
                path: "/builds/b.ipa", name: "b.ipa", outcome: .failure(InputFailure(code: "ARCHIVE_NOT_ZIP", message: "not a zip archive"))),
        ]
    }

    /// An element of an XML document as `XMLParser` read it: its attributes, its text, and the
    /// testcase and testsuite it sits in.
    struct Element {
        let name: String
        let attributes: [String: String]
        var text = ""
        let testcase: String?
        let testsuite: String?
    }

    final class ElementCollector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        private var open: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let enclosing = open.map { elements[$0] }
            elements.append(Element(
                name: elementName, attributes: attributes,
                testcase: enclosing.last { $0.name == "testcase" }?.attributes["name"],
                testsuite: enclosing.last { $0.name == "testsuite" }?.attributes["name"]))
            open.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let top = open.last { elements[top].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            open.removeLast()
        }
    }

    static func elements(ofXML text: String) throws -> [Element] {
        let parser = XMLParser(data: Data(text.utf8))
        let collector = ElementCollector()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        return collector.elements
    }

    @Test func junitHasATestcasePerAreaAFailurePerFailingAreaAndAnErrorPerUnreadInput() throws {
        let xml = JUnitRendering.render(Self.subjects(), command: "check", catalogue: Self.catalogue)
        let elements = try Self.elements(ofXML: xml)
        let cases = elements.filter { $0.name == "testcase" }
        // a.ipa: alpha, beta and "other" for the uncatalogued code (no wrap area for check); b.ipa: archive.
        #expect(cases.map { $0.attributes["name"] ?? "" } == ["alpha", "beta", "other", "archive"])
        #expect(cases.map { $0.attributes["classname"] ?? "" } == ["a.ipa", "a.ipa", "a.ipa", "b.ipa"])
        #expect(cases.map { $0.testsuite ?? "" } == ["a.ipa", "a.ipa", "a.ipa", "b.ipa"])

        // The one error finding fails its own area, with its message (unescaped by the parser) and remedy.
        let failures = elements.filter { $0.name == "failure" }
        #expect(failures.map { "\($0.testsuite ?? "")/\($0.testcase ?? "")" } == ["a.ipa/alpha"])
        let failure = try #require(failures.first)
        #expect(failure.text.contains("alpha <is> broken & gone"), "\(failure.text)")
        #expect(failure.text.contains("Mend alpha."), "\(failure.text)")

        // The unread input is one error, in its own testsuite's archive testcase.
        let errors = elements.filter { $0.name == "error" }
        #expect(errors.map { "\($0.testsuite ?? "")/\($0.testcase ?? "")" } == ["b.ipa/archive"])
        #expect(errors.first?.attributes["type"] == "ARCHIVE_NOT_ZIP")
        #expect(errors.first?.attributes["message"] == "not a zip archive")

        let suites = elements.filter { $0.name == "testsuite" }
        #expect(suites.map { [$0.attributes["name"], $0.attributes["tests"], $0.attributes["failures"], $0.attributes["errors"]] }
            == [["a.ipa", "3", "1", "0"], ["b.ipa", "1", "0", "1"]])
        let root = try #require(elements.first)
        #expect(root.name == "testsuites")
        #expect([root.attributes["tests"], root.attributes["failures"], root.attributes["errors"]] == ["4", "1", "1"])
    }

    @Test func junitForWrapAddsTheWrapArea() throws {
        let xml = JUnitRendering.render(Self.subjects(), command: "wrap", catalogue: Self.catalogue)
        let names = try Self.elements(ofXML: xml).filter { $0.name == "testcase" }.map { $0.attributes["name"] ?? "" }
        #expect(names == ["alpha", "beta", "wrap", "other", "archive"])
    }

    @Test func junitIsAPureFunctionOfItsInputs() {
        let first = JUnitRendering.render(Self.subjects(), command: "check", catalogue: Self.catalogue)
        #expect(JUnitRendering.render(Self.subjects(), command: "check", catalogue: Self.catalogue) == first)
    }

    @Test func sarifHasARuleForEveryCodeAndAResultForEveryFinding() throws {
        let codes = Self.catalogue.flatMap(\.codes)
        let text = try SARIFRendering.render(Self.subjects(), tool: Report.Tool(name: "ipawrap", version: "9.9"), catalogue: codes)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["version"] as? String == "2.1.0")
        let run = try #require((root["runs"] as? [[String: Any]])?.first)
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        // Every catalogued code, then the one finding's code the catalogue does not know.
        #expect(rules.compactMap { $0["id"] as? String } == codes.map(\.rawValue) + ["NOT_IN_THE_CATALOGUE"])
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.compactMap { $0["ruleId"] as? String } == ["ALPHA_BROKEN", "BETA_NOTE", "NOT_IN_THE_CATALOGUE"])
        #expect(results.compactMap { $0["ruleIndex"] as? Int } == [0, 2, 5])
        #expect(results.compactMap { $0["level"] as? String } == ["error", "note", "warning"])
        #expect(results.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
            == ["a.ipa: alpha <is> broken & gone", "a.ipa: a note", "a.ipa: from nowhere"])
        // Each result is located in the input it came from (these findings name no path inside it).
        let uris = results.map { result -> String? in
            let location = (result["locations"] as? [[String: Any]])?.first
            let physical = location?["physicalLocation"] as? [String: Any]
            return (physical?["artifactLocation"] as? [String: Any])?["uri"] as? String
        }
        #expect(uris == ["file:///builds/a.ipa", "file:///builds/a.ipa", "file:///builds/a.ipa"])
        // The input that could not be read is a tool notification, not a result.
        let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
        let notifications = try #require(invocation["toolExecutionNotifications"] as? [[String: Any]])
        #expect(notifications.count == 1)
        #expect((notifications.first?["descriptor"] as? [String: Any])?["id"] as? String == "ARCHIVE_NOT_ZIP")
        #expect((notifications.first?["message"] as? [String: Any])?["text"] as? String == "not a zip archive")
        #expect(invocation["executionSuccessful"] as? Bool == false)
    }

    @Test func textListsFindingsWithTheirCodesAndRemedies() {
        let findings = Self.subjects()[0].outcome.report?.findings ?? []
        let lines = TextRendering.findings(findings, style: Style(enabled: false))
        #expect(lines == [
            "Findings: 1 error, 1 warning",
            "  error   ALPHA_BROKEN: alpha <is> broken & gone",
            "          → Mend alpha.",
            "  info    BETA_NOTE: a note",
            "  warning NOT_IN_THE_CATALOGUE: from nowhere",
        ])
        let coloured = TextRendering.findings(findings, style: Style(enabled: true))
        #expect(coloured.count == lines.count)
        #expect(coloured[1].hasPrefix("  \u{1B}[31merror  \u{1B}[0m \u{1B}[1mALPHA_BROKEN\u{1B}[0m"), "\(coloured[1])")
    }
}
