import FormatSupport
import XMLSupport

/// An XML property list (`<plist version="1.0">`), read with libxml2 through `XMLStreamParser`.
///
/// Reading accepts what Xcode, `plutil` and hand editors produce: a byte-order mark or whitespace
/// before the declaration, a missing DOCTYPE, a root object without the `<plist>` wrapper, UTF-16,
/// whitespace around numbers and dates, and Core Foundation's `CF$UID` dictionaries. It refuses
/// entities (declarations and references other than XML's five), unknown elements, text between
/// elements, and keys without values, with the line of the problem.
public struct XMLPropertyList: Sendable {
    public let root: PropertyListValue

    public init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) {
        let builder = XMLPropertyListBuilder(
            maximumDepth: limits.maximumDepth, clock: limits.clock, refusesDuplicateKeys: limits.refusesDuplicateKeys)
        let outcome: XMLStreamParser.Outcome
        do {
            outcome = try XMLStreamParser.parse(bytes: bytes, maximumSize: limits.maximumSize, handler: builder)
        } catch {
            throw PropertyListError(xml: error)
        }
        if let error = builder.error { throw error }
        guard outcome == .completed, let root = builder.root else {
            throw PropertyListError(.xmlStructure, line: builder.lastLine, "the document holds no property list object")
        }
        self.root = root
    }

    /// Writes `root` in Core Foundation's XML layout; see `XMLPropertyListWriter`.
    public static func encode(_ root: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        try XMLPropertyListWriter.encode(root)
    }
}

extension PropertyListError {
    init(xml error: XMLParseError) {
        let line = error.line > 0 ? error.line : nil
        switch error.reason {
        case .tooLarge:
            self.init(.tooLarge, error.message)
        case .entityDeclaration:
            self.init(.xmlEntity, line: line, error.message)
        case .malformed:
            // libxml2's own nesting limit (256 elements without XML_PARSE_HUGE) is our depth limit.
            if error.message.contains("Excessive depth") {
                self.init(.tooDeep, line: line, "nesting is deeper than libxml2's limit of 256 elements")
            } else {
                self.init(.malformedXML, line: line, "not well-formed XML: \(error.message)")
            }
        }
    }
}

/// Builds values from parser events with an explicit stack (no recursion, so depth costs no
/// native stack).
final class XMLPropertyListBuilder: XMLStreamHandler {
    private enum ContainerKind { case plist, array, dictionary }

    private struct Frame {
        let kind: ContainerKind
        let line: Int
        var values: [PropertyListValue] = []
        var keys: [String] = []
    }

    private enum LeafKind { case key, string, integer, real, date, data, boolTrue, boolFalse }

    private let maximumDepth: Int
    private var clock: WorkClock
    private let refusesDuplicateKeys: Bool
    private var stack: [Frame] = []
    /// Containers (arrays and dictionaries) currently open.
    private var containerDepth = 0
    private var leaf: LeafKind?
    private var leafLine = 0
    private var text: [UInt8] = []

    private(set) var root: PropertyListValue?
    private(set) var error: PropertyListError?
    private(set) var lastLine = 0

    init(maximumDepth: Int, clock: WorkClock, refusesDuplicateKeys: Bool = false) {
        self.maximumDepth = maximumDepth
        self.clock = clock
        self.refusesDuplicateKeys = refusesDuplicateKeys
        text.reserveCapacity(256)
    }

    // MARK: Events

    func startElement(_ element: XMLStreamElement) -> Bool {
        lastLine = element.line
        if clock.isExpired(after: 1) { return fail(.timeLimit, element.line, clock.timeLimitMessage) }
        if leaf != nil {
            return fail(.xmlStructure, element.line, "element <\(element.name)> inside a <\(leafName)> value")
        }
        guard !element.hasPrefix else {
            return fail(.xmlStructure, element.line, "unknown element <\(element.name)> with a namespace prefix")
        }
        let name = element.localName
        if element.isNamed("plist") {
            guard stack.isEmpty, root == nil else {
                return fail(.xmlStructure, element.line, "<plist> is only allowed as the document element")
            }
            stack.append(Frame(kind: .plist, line: element.line))
            return true
        }
        if element.isNamed("key") {
            guard let top = stack.last, top.kind == .dictionary else {
                return fail(.xmlStructure, element.line, "<key> outside a <dict>")
            }
            guard top.keys.count == top.values.count else {
                return fail(.xmlStructure, element.line, "two keys in a row: key \"\(top.keys.last ?? "")\" has no value")
            }
            beginLeaf(.key, element.line)
            return true
        }
        let kind: LeafKind?
        var container: ContainerKind?
        switch name.count {
        case 4 where element.isNamed("dict"): kind = nil; container = .dictionary
        case 5 where element.isNamed("array"): kind = nil; container = .array
        case 6 where element.isNamed("string"): kind = .string
        case 7 where element.isNamed("integer"): kind = .integer
        case 4 where element.isNamed("real"): kind = .real
        case 4 where element.isNamed("date"): kind = .date
        case 4 where element.isNamed("data"): kind = .data
        case 4 where element.isNamed("true"): kind = .boolTrue
        case 5 where element.isNamed("false"): kind = .boolFalse
        default:
            return fail(.xmlStructure, element.line, "unknown element <\(element.name)>")
        }
        guard checkValueAllowed(element) else { return false }
        if let container {
            guard containerDepth < maximumDepth else {
                return fail(.tooDeep, element.line, "nesting is deeper than the limit of \(maximumDepth)")
            }
            containerDepth += 1
            stack.append(Frame(kind: container, line: element.line))
        } else if let kind {
            guard containerDepth < maximumDepth else {
                return fail(.tooDeep, element.line, "nesting is deeper than the limit of \(maximumDepth)")
            }
            beginLeaf(kind, element.line)
        }
        return true
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>, line: Int) -> Bool {
        if leaf != nil {
            self.text.append(contentsOf: text)
            return true
        }
        for byte in text where !isXMLWhitespace(byte) {
            let context = stack.last.map { "inside <\(name(of: $0.kind))>" } ?? "outside the root element"
            return fail(.xmlStructure, line, "unexpected text \(context)")
        }
        return true
    }

    func endElement(_ element: XMLStreamElement) -> Bool {
        lastLine = element.line
        if let kind = leaf {
            leaf = nil
            return finishLeaf(kind, element.line)
        }
        guard let frame = stack.popLast() else {
            return fail(.xmlStructure, element.line, "unexpected end tag </\(element.name)>")
        }
        switch frame.kind {
        case .plist:
            guard let value = frame.values.first else {
                return fail(.xmlStructure, element.line, "<plist> holds no object")
            }
            root = value
            return true
        case .array:
            containerDepth -= 1
            return add(.array(frame.values), element.line)
        case .dictionary:
            containerDepth -= 1
            guard frame.keys.count == frame.values.count else {
                return fail(.xmlStructure, element.line, "key \"\(frame.keys.last ?? "")\" has no value")
            }
            // Core Foundation's spelling of a keyed-archiver UID in XML.
            if frame.keys.count == 1, frame.keys[0] == "CF$UID", case .integer(let number) = frame.values[0],
                let uid = number.uint64
            {
                return add(.uid(uid), element.line)
            }
            let dictionary = PropertyListDictionary(keys: frame.keys, values: frame.values)
            if refusesDuplicateKeys && dictionary.count != frame.keys.count {
                return fail(.duplicateKey, frame.line, "a <dict> names the key \"\(PropertyListDictionary.firstDuplicate(frame.keys))\" twice")
            }
            return add(.dictionary(dictionary), element.line)
        }
    }

    // MARK: Values

    private func beginLeaf(_ kind: LeafKind, _ line: Int) {
        leaf = kind
        leafLine = line
        text.removeAll(keepingCapacity: true)
    }

    /// Whether a value may start here: as the root, as the single child of `<plist>`, in an
    /// array, or in a dictionary right after its key.
    private func checkValueAllowed(_ element: XMLStreamElement) -> Bool {
        guard let top = stack.last else {
            guard root == nil else {
                return fail(.xmlStructure, element.line, "more than one root object")
            }
            return true
        }
        switch top.kind {
        case .plist:
            guard top.values.isEmpty else {
                return fail(.xmlStructure, element.line, "<plist> holds more than one object")
            }
        case .array:
            break
        case .dictionary:
            guard top.keys.count == top.values.count + 1 else {
                return fail(.xmlStructure, element.line, "<\(element.name)> in a <dict> without a preceding <key>")
            }
        }
        return true
    }

    private func add(_ value: PropertyListValue, _ line: Int) -> Bool {
        guard !stack.isEmpty else {
            root = value
            return true
        }
        stack[stack.count - 1].values.append(value)
        return true
    }

    private func finishLeaf(_ kind: LeafKind, _ line: Int) -> Bool {
        let bytes = text[...]
        switch kind {
        case .key:
            guard !stack.isEmpty else { return fail(.xmlStructure, leafLine, "<key> outside a <dict>") }
            stack[stack.count - 1].keys.append(String(decoding: bytes, as: UTF8.self))
            return true
        case .string:
            return add(.string(String(decoding: bytes, as: UTF8.self)), line)
        case .integer:
            guard let value = PropertyListInteger(utf8: bytes) else {
                return fail(.xmlValue, leafLine, "<integer> \(quoted(bytes)) is not a decimal or hex integer of at most 128 bits")
            }
            return add(.integer(value), line)
        case .real:
            guard let value = parseReal(bytes) else {
                return fail(.xmlValue, leafLine, "<real> \(quoted(bytes)) is not a number")
            }
            return add(.real(value), line)
        case .date:
            guard let value = PropertyListDate(iso8601UTF8: bytes) else {
                return fail(.xmlValue, leafLine, "<date> \(quoted(bytes)) is not YYYY-MM-DDTHH:MM:SSZ")
            }
            return add(.date(value), line)
        case .data:
            guard let value = Base64.decode(bytes) else {
                return fail(.xmlValue, leafLine, "<data> is not base64")
            }
            return add(.data(value), line)
        case .boolTrue, .boolFalse:
            guard bytes.allSatisfy(isXMLWhitespace) else {
                return fail(.xmlStructure, leafLine, "<\(kind == .boolTrue ? "true" : "false")> must be empty")
            }
            return add(.bool(kind == .boolTrue), line)
        }
    }

    private func fail(_ reason: PropertyListError.Reason, _ line: Int, _ message: String) -> Bool {
        if error == nil {
            error = PropertyListError(reason, line: line, message)
        }
        return false
    }

    private var leafName: String {
        switch leaf {
        case .key: "key"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .date: "date"
        case .data: "data"
        case .boolTrue: "true"
        case .boolFalse: "false"
        case nil: ""
        }
    }

    private func name(of kind: ContainerKind) -> String {
        switch kind {
        case .plist: "plist"
        case .array: "array"
        case .dictionary: "dict"
        }
    }

    private func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return "\"\(text)\(bytes.count > 40 ? "…" : "")\""
    }
}

/// Parses `<real>` text: a decimal number (`1`, `-2.5`, `1e-05`, `.5`) or Core Foundation's
/// special spellings `nan`, `inf`, `infinity` with an optional sign, in any case; surrounding
/// whitespace is ignored. Hex floats and other `strtod` extensions are refused.
func parseReal(_ bytes: ArraySlice<UInt8>) -> Double? {
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end, isXMLWhitespace(bytes[start]) { start += 1 }
    while end > start, isXMLWhitespace(bytes[end - 1]) { end -= 1 }
    guard start < end, end - start <= 400 else { return nil }
    let body = bytes[start..<end]
    var index = body.startIndex
    var negative = false
    if body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") {
        negative = body[index] == UInt8(ascii: "-")
        index += 1
    }
    let word = String(decoding: body[index...], as: UTF8.self).lowercased()
    if word == "nan" { return .nan }
    if word == "inf" || word == "infinity" { return negative ? -.infinity : .infinity }
    // digits [. digits] [e [sign] digits], with at least one digit in the mantissa.
    var mantissaDigits = 0
    while index < body.endIndex, asciiDigit(body[index]) != nil { index += 1; mantissaDigits += 1 }
    if index < body.endIndex, body[index] == UInt8(ascii: ".") {
        index += 1
        while index < body.endIndex, asciiDigit(body[index]) != nil { index += 1; mantissaDigits += 1 }
    }
    guard mantissaDigits > 0 else { return nil }
    if index < body.endIndex, body[index] == UInt8(ascii: "e") || body[index] == UInt8(ascii: "E") {
        index += 1
        if index < body.endIndex, body[index] == UInt8(ascii: "+") || body[index] == UInt8(ascii: "-") { index += 1 }
        var exponentDigits = 0
        while index < body.endIndex, asciiDigit(body[index]) != nil { index += 1; exponentDigits += 1 }
        guard exponentDigits > 0 else { return nil }
    }
    guard index == body.endIndex else { return nil }
    return Double(String(decoding: body, as: UTF8.self))
}
