import XMLSupport

/// The result of checking a policy file: every problem, and the template when there is none.
public struct PolicyValidation: Sendable {
    /// Every problem found, ordered by line.
    public let issues: [PolicyIssue]
    /// The parsed template; nil when there is any issue.
    public let template: PolicyTemplate?

    public var isValid: Bool { issues.isEmpty }
}

/// Checks policy XML: parse (with `XMLDocument`'s safety settings), validate against
/// `policy_metadata.xsd`, then check what the schema cannot express (known types, defaults valid
/// for their type, consistent constraints, unique names). All problems are collected, not only
/// the first, so one run of `policy validate` shows everything to fix.
public enum PolicyDocument {
    /// Policy files are a few hundred kilobytes at most; anything far larger is refused unread.
    public static let maximumSize = 4 * 1024 * 1024
    /// Most bytes read from a policy file: a file above `maximumSize` is still read (up to this)
    /// so the parser refuses it as `XML_TOO_LARGE`, the format's error, not an I/O one.
    public static let readLimit = 64 * 1024 * 1024

    /// Issues kept per file; beyond this they are counted in one `POLICY_TOO_MANY_ISSUES` issue.
    public static let issueLimit = 1000

    /// The elements from the root to each policy's default, for in-place edits.
    static let defaultPath = ["PolicyMetadata", "Policies", "Policy", "PolicyDefault"]

    public static func validate(_ bytes: [UInt8], schema: XMLSchema) -> PolicyValidation {
        // XMLDocument skips whitespace before the first '<', so its line numbers start there.
        let document: XMLDocument
        do {
            document = try XMLDocument(bytes: bytes, maximumSize: maximumSize)
        } catch {
            let kind: PolicyIssue.Kind = switch error.reason {
            case .malformed: .malformed
            case .entityDeclaration: .entityDeclaration
            case .tooLarge: .tooLarge
            }
            let line = error.line
            return PolicyValidation(issues: [PolicyIssue(kind, line: line, error.message)], template: nil)
        }

        var issues: [PolicyIssue] = []
        if let problem = encodingProblem(bytes, declared: document.declaredEncoding) {
            issues.append(PolicyIssue(.notUTF8, line: 1, problem))
        }
        let validation = schema.validate(document)
        for violation in validation.violations {
            issues.append(PolicyIssue(.schema, line: violation.line, violation.message))
        }
        var omitted = validation.omitted
        let reader = SemanticReader()
        let (mode, policies) = reader.read(document)
        issues.append(contentsOf: reader.issues)

        // Stable: problems on one line keep the order they were found in.
        issues = issues.enumerated()
            .sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
            .map(\.element)
        if issues.count > issueLimit {
            omitted += issues.count - issueLimit
            issues.removeLast(issues.count - issueLimit)
        }
        if omitted > 0 {
            issues.append(PolicyIssue(.tooManyIssues, line: 0, "\(omitted) further problems were not listed"))
        }
        guard issues.isEmpty else {
            return PolicyValidation(issues: issues, template: nil)
        }
        // The schema requires both; this only guards against a validator that let one through.
        guard let mode, !policies.isEmpty else {
            return PolicyValidation(issues: [PolicyIssue(.schema, line: 0, "the file declares no app mode or no complete policy")], template: nil)
        }

        let elements: [XMLSourceElement]
        do {
            elements = try XMLSourceEditor(bytes: bytes).elements(atPath: defaultPath)
        } catch {
            return PolicyValidation(issues: [PolicyIssue(.layout, line: 0, error.message)], template: nil)
        }
        guard elements.count == policies.count else {
            return PolicyValidation(issues: [PolicyIssue(.layout, line: 0,
                "found \(elements.count) PolicyDefault elements in the text but \(policies.count) policies in the document")],
                template: nil)
        }
        let template = PolicyTemplate(mode: mode, policies: policies, sourceBytes: bytes, defaultElements: elements)
        return PolicyValidation(issues: [], template: template)
    }

    /// Why the file is not UTF-8, or nil. The embedded policy file must be UTF-8, and in-place
    /// editing relies on it.
    static func encodingProblem(_ bytes: [UInt8], declared: String?) -> String? {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return "the file is UTF-16 (it starts with a UTF-16 byte-order mark); policy files must be UTF-8"
        }
        if bytes.count >= 2, bytes[0] == 0 || bytes[1] == 0 {
            return "the file is not UTF-8 (it starts with a zero byte); policy files must be UTF-8"
        }
        if let declared, !["UTF-8", "UTF8", "US-ASCII", "ASCII"].contains(declared.uppercased()) {
            return "the file declares the encoding '\(declared)'; policy files must be UTF-8"
        }
        return nil
    }
}

/// Reads the policies out of a parsed document and checks what the schema cannot. It reads
/// whatever is there even when the schema failed, so one run reports schema and semantic
/// problems together; only policies complete enough to check are checked.
private final class SemanticReader {
    var issues: [PolicyIssue] = []

    func read(_ document: XMLDocument) -> (AppMode?, [Policy]) {
        guard let root = document.root, root.name == "PolicyMetadata" else { return (nil, []) }
        let mode = root.attribute("AppMode").flatMap(AppMode.init(rawValue:))
        guard let container = root.child(named: "Policies") else { return (mode, []) }
        var policies: [Policy] = []
        var firstLine: [String: Int] = [:]
        for element in container.children where element.name == "Policy" {
            if let name = element.child(named: "PolicyName")?.text {
                let line = line(of: element.child(named: "PolicyName") ?? element)
                if let first = firstLine[name] {
                    issues.append(PolicyIssue(.duplicateName, line: line,
                        "the policy '\(name)' is defined again; its first definition is on line \(first)"))
                } else {
                    firstLine[name] = line
                }
            }
            if let policy = readPolicy(element) { policies.append(policy) }
        }
        return (mode, policies)
    }

    private func line(of element: XMLElement) -> Int {
        element.line
    }

    private func readPolicy(_ element: XMLElement) -> Policy? {
        guard let nameElement = element.child(named: "PolicyName"),
              let typeElement = element.child(named: "PolicyType")
        else { return nil }
        let name = nameElement.text
        guard let type = readType(typeElement, of: element, name: name) else { return nil }
        guard let defaultElement = element.child(named: "PolicyDefault") else { return nil }
        let value = defaultElement.text
        if let problem = type.problem(with: value) {
            issues.append(PolicyIssue(.invalidDefault, line: line(of: defaultElement),
                "the default of '\(name)' (\(type.typeName)) is invalid: \(problem)"))
            return nil
        }
        guard let hidden = element.child(named: "PolicyHidden").flatMap({ Bool(exactly: $0.text) }),
              let category = element.child(named: "PolicyCategory")?.text
        else { return nil }
        let texts = { (elementName: String) in
            element.children.filter { $0.name == elementName }.map {
                LocalizedText(language: $0.attribute("lang") ?? "", text: $0.text)
            }
        }
        return Policy(
            name: name, type: type, defaultValue: value, hidden: hidden, category: category,
            titles: texts("PolicyTitle"), descriptions: texts("PolicyDescription"), line: line(of: element))
    }

    /// The policy's type with its constraints, or nil (after recording why) when it is unknown
    /// or its constraints are unusable.
    private func readType(_ typeElement: XMLElement, of policy: XMLElement, name: String) -> PolicyValueType? {
        let typeName = typeElement.text
        let valuesElement = policy.child(named: "PolicyEnumValues")
        let minimumElement = policy.child(named: "PolicyMinimum")
        let maximumElement = policy.child(named: "PolicyMaximum")
        var usable = true
        func constraintIssue(_ element: XMLElement, _ message: String) {
            issues.append(PolicyIssue(.invalidConstraint, line: line(of: element), message))
            usable = false
        }

        guard PolicyValueType.knownTypeNames.contains(typeName) else {
            var message = "the policy '\(name)' has the unknown type '\(typeName)'; known types are "
                + PolicyValueType.knownTypeNames.joined(separator: ", ")
            if let best = NameSuggestions.closest(to: typeName, among: PolicyValueType.knownTypeNames).first {
                message += "; did you mean '\(best)'?"
            }
            issues.append(PolicyIssue(.unknownType, line: line(of: typeElement), message))
            return nil
        }
        if typeName != "enum", let valuesElement {
            constraintIssue(valuesElement, "the policy '\(name)' is a \(typeName) but lists enum values; only enum policies have PolicyEnumValues")
        }
        if typeName != "integer" {
            for bound in [minimumElement, maximumElement].compactMap({ $0 }) {
                constraintIssue(bound, "the policy '\(name)' is a \(typeName) but has \(bound.name); only integer policies have a range")
            }
        }
        guard usable else { return nil }

        switch typeName {
        case "boolean": return .boolean
        case "string": return .string
        case "stringlist": return .stringList
        case "integer":
            // xs:long allows a '+' and, by the specification, surrounding whitespace; bounds that do
            // not parse are schema violations, already reported.
            let bound = { (element: XMLElement) in Int64(element.text.trimmingXMLWhitespace) }
            let minimum = minimumElement.map(bound)
            let maximum = maximumElement.map(bound)
            if minimum == .some(nil) || maximum == .some(nil) { return nil }
            if let low = minimum ?? nil, let high = maximum ?? nil, low > high, let maximumElement {
                constraintIssue(maximumElement, "the policy '\(name)' has a maximum (\(high)) below its minimum (\(low))")
                return nil
            }
            return .integer(minimum: minimum ?? nil, maximum: maximum ?? nil)
        default:  // "enum"
            guard let valuesElement else {
                constraintIssue(typeElement, "the enum policy '\(name)' lists no allowed values; add PolicyEnumValues")
                return nil
            }
            var values: [PolicyEnumValue] = []
            var seen: [String: Int] = [:]
            for valueElement in valuesElement.children where valueElement.name == "PolicyEnumValue" {
                let identifier = valueElement.text
                if let first = seen[identifier] {
                    constraintIssue(valueElement, "the enum policy '\(name)' lists the value '\(identifier)' twice (first on line \(first))")
                    continue
                }
                seen[identifier] = line(of: valueElement)
                values.append(PolicyEnumValue(identifier: identifier, title: valueElement.attribute("Title") ?? identifier))
            }
            if values.isEmpty {
                constraintIssue(valuesElement, "the enum policy '\(name)' lists no allowed values")
            }
            return usable ? .enumeration(values) : nil
        }
    }
}

extension String {
    /// Without leading and trailing XML whitespace (space, tab, line feed, carriage return).
    fileprivate var trimmingXMLWhitespace: String {
        let isSpace = { (c: Character) in c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

extension Bool {
    /// `true` or `false` exactly, as the schema's boolean literal allows.
    fileprivate init?(exactly text: String) {
        switch text {
        case "true": self = true
        case "false": self = false
        default: return nil
        }
    }
}
