import Foundation
import Testing
import TestSupport

/// One way through (issue 28): an error's code and category come from its `Reason`, an
/// `ErrorReason` whose raw value is the code (`InputError<Reason>` or a `ReasonCodedError` of its
/// own). This reads every source file and fails on a type that conforms to `CodedError` directly,
/// writing its code by hand, unless it is one of the few listed here with the reason it stays.
@Suite struct CodedErrorMechanismTests {
    /// The direct conformers that stay, and why.
    static let allowed: [String: String] = [
        "LocatedError": "places another coded error in a file and keeps its code",
        "TemplateDirectoryError": "its caller decides the category of one code (usage for --templates, I/O when searched)",
    ]

    /// `struct|enum|class|actor Name: …CodedError…`, or `extension Name: …CodedError…`, where the
    /// conformance is `CodedError` itself.
    static let declaration = try? NSRegularExpression(
        pattern: #"^\s*(?:public |package |internal |private |fileprivate )?(?:final )?(?:struct|enum|class|actor|extension) (\w+)(?:<[^>]*>)?:([^{]*)\{"#)

    /// The types declared in `text` that conform to `CodedError` directly.
    static func directConformers(in text: String) -> [String] {
        var names: [String] = []
        for line in text.split(separator: "\n") {
            let line = String(line)
            guard let expression = declaration,
                  let match = expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
                  let name = Range(match.range(at: 1), in: line), let list = Range(match.range(at: 2), in: line)
            else { continue }
            let conformances = line[list].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if conformances.contains("CodedError") { names.append(String(line[name])) }
        }
        return names
    }

    @Test func everyCodedErrorTakesItsCodeFromAReason() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var found: Set<String> = []
        var read = 0
        for case let file as URL in files where file.pathExtension == "swift" {
            read += 1
            found.formUnion(Self.directConformers(in: try String(contentsOf: file, encoding: .utf8)))
        }
        #expect(read > 200)
        let handRolled = found.subtracting(Self.allowed.keys).sorted()
        #expect(handRolled.isEmpty, "these write their code by hand; give them an ErrorReason: \(handRolled)")
        // A listed type that no longer conforms directly has moved: take it off the list.
        #expect(Set(Self.allowed.keys).subtracting(found).isEmpty, "\(Set(Self.allowed.keys).subtracting(found))")
    }

    @Test func theScanFindsDirectConformersOnly() {
        let text = """
            public struct A: CodedError, Equatable {
            public enum B: CodedError {
            struct C: ReasonCodedError, Equatable {
            public typealias D = InputError<R>
            public protocol E: CodedError {
            extension F: CodedError {}
            extension G: Equatable {
            """
        #expect(Self.directConformers(in: text) == ["A", "B", "F"])
    }
}
