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
            ReportSubject(path: "/builds/a.ipa", name: "a.ipa", report: report),
            ReportSubject(
                path: "/builds/b.ipa", name: "b.ipa", report: nil,
                failure: InputFailure(code: "ARCHIVE_NOT_ZIP", message: "not a zip archive")),
        ]
    }

    /// The elements of an XML document with their attributes, in document order.
    final class ElementCollector: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append((elementName, attributes))
        }
    }

    static func elements(ofXML text: String) throws -> [(name: String, attributes: [String: String])] {
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
        #expect(elements.filter { $0.name == "failure" }.count == 1)
        let error = try #require(elements.first { $0.name == "error" })
        #expect(error.attributes["type"] == "ARCHIVE_NOT_ZIP")
        let root = try #require(elements.first)
        #expect(root.name == "testsuites")
        #expect(root.attributes["tests"] == "4")
        #expect(root.attributes["failures"] == "1")
        #expect(root.attributes["errors"] == "1")
        // The message's markup characters are escaped, so the parser read them as text.
        #expect(xml.contains("alpha &lt;is&gt; broken &amp; gone"))
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
        #expect(results.compactMap { $0["level"] as? String } == ["error", "note", "warning"])
        // The input that could not be read is a tool notification, not a result.
        let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
        let notifications = try #require(invocation["toolExecutionNotifications"] as? [[String: Any]])
        #expect(notifications.count == 1)
        #expect((notifications.first?["descriptor"] as? [String: Any])?["id"] as? String == "ARCHIVE_NOT_ZIP")
    }

    @Test func textListsFindingsWithTheirCodesAndRemedies() {
        let findings = Self.subjects()[0].report?.findings ?? []
        let text = TextRendering.findings(findings, style: Style(enabled: false)).joined(separator: "\n")
        #expect(text.contains("ALPHA_BROKEN"))
        #expect(text.contains("Mend alpha."))
        #expect(text.contains("NOT_IN_THE_CATALOGUE"))
        #expect(!text.contains("\u{1B}["), "a style that is off writes no terminal escapes")
        let coloured = TextRendering.findings(findings, style: Style(enabled: true)).joined(separator: "\n")
        #expect(coloured.contains("\u{1B}["))
    }
}
