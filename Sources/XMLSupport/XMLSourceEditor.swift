import FormatSupport

/// Why a source edit could not be made.
public struct XMLSourceError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason {
        /// The bytes are not the well-formed UTF-8 XML the scanner expects (e.g. a construct never closes).
        case unreadable = "XML_SOURCE_UNREADABLE"
        /// The new text holds a character XML 1.0 cannot carry, such as U+0000.
        case unrepresentableText = "XML_TEXT_UNREPRESENTABLE"
        /// Two edits touch the same element.
        case overlappingEdits = "XML_EDITS_OVERLAP"
    }

    public let reason: Reason
    /// Byte offset the scanner stopped at, or 0.
    public let offset: Int
    public let message: String

    public init(reason: Reason, offset: Int, message: String) {
        self.reason = reason
        self.offset = offset
        self.message = message
    }

    public var description: String { message }
}

/// Where one element sits in a document's bytes.
public struct XMLSourceElement: Sendable, Equatable {
    /// The element's name as written.
    public let name: String
    /// From the `<` of the start tag to the `>` of the end tag (or of the empty-element tag).
    public let element: Range<Int>
    /// Between the start tag's `>` and the end tag's `<`; empty and at `element.upperBound` for `<a/>`.
    public let content: Range<Int>
    /// Written as an empty-element tag, `<a/>`.
    public let isEmptyElementTag: Bool
}

/// A change of one element's text.
public struct XMLTextEdit: Sendable, Equatable {
    public let element: XMLSourceElement
    public let text: String

    public init(element: XMLSourceElement, text: String) {
        self.element = element
        self.text = text
    }
}

/// Edits the text of elements in place, keeping every other byte of the document: comments,
/// whitespace, attribute quoting and the XML declaration stay exactly as written.
///
/// libxml2 can change a node's text, but saving its tree rewrites the declaration, attribute
/// quotes and empty elements. A file a person wrote (a policy template) should come back with
/// only the changed values different, so this scans the original bytes for the elements instead.
///
/// Expects UTF-8 (or ASCII) XML that `XMLDocument` has already accepted; the scanner is not a
/// validating parser, and it throws rather than guess when the bytes do not have the shape it
/// expects.
public struct XMLSourceEditor: Sendable {
    /// Nesting deeper than this is refused (libxml2 itself stops at 256).
    public static let maximumDepth = 256

    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Every element whose path of names from the root is `path` (e.g. `["a", "b", "c"]` for the
    /// `c` children of the `b` children of the root `a`), in document order.
    public func elements(atPath path: [String]) throws(XMLSourceError) -> [XMLSourceElement] {
        let wanted = path.map { Array($0.utf8) }
        var scanner = Scanner(bytes: bytes)
        var stack: [[UInt8]] = []
        // onPath[k]: the open elements 0...k have the names path[0...k].
        var onPath: [Bool] = []
        var open: (start: Int, contentStart: Int)?
        var found: [XMLSourceElement] = []
        while let start = scanner.next(UInt8(ascii: "<")) {
            if scanner.hasPrefix("<!--", at: start) {
                try scanner.skip(past: "-->", from: start + 4)
            } else if scanner.hasPrefix("<![CDATA[", at: start) {
                try scanner.skip(past: "]]>", from: start + 9)
            } else if scanner.hasPrefix("<?", at: start) {
                try scanner.skip(past: "?>", from: start + 2)
            } else if scanner.hasPrefix("<!", at: start) {
                try scanner.skipDeclaration(from: start + 2)
            } else if scanner.hasPrefix("</", at: start) {
                let name = scanner.name(at: start + 2)
                let end = try scanner.tagEnd(from: start + 2 + name.count)
                guard let top = stack.last, top == name else {
                    throw XMLSourceError(reason: .unreadable, offset: start, message: "end tag at byte \(start) does not match its start tag")
                }
                if stack.count == wanted.count, onPath.last == true, let element = open {
                    found.append(XMLSourceElement(
                        name: String(decoding: name, as: UTF8.self), element: element.start..<(end + 1),
                        content: element.contentStart..<start, isEmptyElementTag: false))
                    open = nil
                }
                stack.removeLast()
                onPath.removeLast()
                scanner.position = end + 1
            } else {
                let name = scanner.name(at: start + 1)
                guard !name.isEmpty else {
                    throw XMLSourceError(reason: .unreadable, offset: start, message: "a '<' at byte \(start) starts no tag")
                }
                let end = try scanner.tagEnd(from: start + 1 + name.count)
                let depth = stack.count
                let matches = (onPath.last ?? true) && depth < wanted.count && wanted[depth] == name
                let isEmpty = end > start && bytes[end - 1] == UInt8(ascii: "/")
                if matches, depth == wanted.count - 1 {
                    if isEmpty {
                        found.append(XMLSourceElement(
                            name: String(decoding: name, as: UTF8.self), element: start..<(end + 1),
                            content: (end + 1)..<(end + 1), isEmptyElementTag: true))
                    } else {
                        open = (start, end + 1)
                    }
                }
                if !isEmpty {
                    guard depth < XMLSourceEditor.maximumDepth else {
                        throw XMLSourceError(reason: .unreadable, offset: start, message: "elements nest deeper than \(XMLSourceEditor.maximumDepth) levels")
                    }
                    stack.append(name)
                    onPath.append(matches)
                }
                scanner.position = end + 1
            }
        }
        guard stack.isEmpty else {
            throw XMLSourceError(reason: .unreadable, offset: bytes.count, message: "the document ends inside an element")
        }
        return found
    }

    /// The document with each edited element's content replaced by its new text, escaped.
    /// An empty-element tag given text is written out as a start tag, the text and an end tag.
    public func applying(_ edits: [XMLTextEdit]) throws(XMLSourceError) -> [UInt8] {
        let ordered = edits.sorted { $0.element.element.lowerBound < $1.element.element.lowerBound }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for edit in ordered {
            let element = edit.element
            guard element.element.lowerBound >= copied, element.element.upperBound <= bytes.count,
                  element.content.lowerBound >= element.element.lowerBound,
                  element.content.upperBound <= element.element.upperBound
            else {
                throw XMLSourceError(reason: .overlappingEdits, offset: element.element.lowerBound, message: "two edits change the element at byte \(element.element.lowerBound)")
            }
            let text = try XMLSourceEditor.escapedText(edit.text)
            if element.isEmptyElementTag {
                if text.isEmpty { continue }
                // `<a x="1"/>` becomes `<a x="1">text</a>`.
                var tagEnd = element.element.upperBound - 2  // the '/' of "/>"
                while tagEnd > element.element.lowerBound, XMLSourceEditor.isSpace(bytes[tagEnd - 1]) { tagEnd -= 1 }
                output.append(contentsOf: bytes[copied..<tagEnd])
                output.append(UInt8(ascii: ">"))
                output.append(contentsOf: text)
                output.append(contentsOf: Array("</\(element.name)>".utf8))
                copied = element.element.upperBound
            } else {
                output.append(contentsOf: bytes[copied..<element.content.lowerBound])
                output.append(contentsOf: text)
                copied = element.content.upperBound
            }
        }
        output.append(contentsOf: bytes[copied...])
        return output
    }

    /// `text` as XML character data in UTF-8: `&`, `<` and `>` escaped, and a carriage return as
    /// `&#13;` so that parsers do not turn it into a line feed.
    public static func escapedText(_ text: String) throws(XMLSourceError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: output.append(contentsOf: Array("&amp;".utf8))
            case 0x3C: output.append(contentsOf: Array("&lt;".utf8))
            case 0x3E: output.append(contentsOf: Array("&gt;".utf8))
            case 0x0D: output.append(contentsOf: Array("&#13;".utf8))
            case 0x09, 0x0A: output.append(UInt8(scalar.value))
            case 0x00..<0x20, 0xFFFE, 0xFFFF:
                throw XMLSourceError(
                    reason: .unrepresentableText, offset: 0,
                    message: "the text holds U+\(String(scalar.value, radix: 16, uppercase: true)), which XML 1.0 cannot carry")
            default: output.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        return output
    }

    fileprivate static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// A forward-only cursor over the bytes; every search is bounded by the end of the input.
private struct Scanner {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Moves to the next `byte` at or after `position` and returns its index.
    mutating func next(_ byte: UInt8) -> Int? {
        guard position < bytes.count, let index = bytes[position...].firstIndex(of: byte) else {
            position = bytes.count
            return nil
        }
        position = index
        return index
    }

    func hasPrefix(_ literal: StaticString, at index: Int) -> Bool {
        literal.withUTF8Buffer { prefix in
            guard index >= 0, prefix.count <= bytes.count - index else { return false }
            var offset = 0
            while offset < prefix.count {
                if bytes[index + offset] != prefix[offset] { return false }
                offset += 1
            }
            return true
        }
    }

    mutating func skip(past terminator: StaticString, from index: Int) throws(XMLSourceError) {
        var probe = index
        while probe < bytes.count {
            if hasPrefix(terminator, at: probe) {
                position = probe + terminator.utf8CodeUnitCount
                return
            }
            probe += 1
        }
        throw XMLSourceError(reason: .unreadable, offset: index, message: "a construct starting before byte \(index) is never closed")
    }

    /// Skips `<!DOCTYPE ...>` with its internal subset, whose brackets, quoted literals,
    /// comments and processing instructions may all contain `>`.
    mutating func skipDeclaration(from index: Int) throws(XMLSourceError) {
        var probe = index
        var brackets = 0
        while probe < bytes.count {
            guard let next = indexPastQuotedLiteral(at: probe) else { break }
            if next != probe {
                probe = next
                continue
            }
            let byte = bytes[probe]
            if hasPrefix("<!--", at: probe) {
                try skip(past: "-->", from: probe + 4)
                probe = position
                continue
            }
            if hasPrefix("<?", at: probe) {
                try skip(past: "?>", from: probe + 2)
                probe = position
                continue
            }
            if byte == UInt8(ascii: "[") { brackets += 1 }
            if byte == UInt8(ascii: "]") { brackets -= 1 }
            if byte == UInt8(ascii: ">"), brackets <= 0 {
                position = probe + 1
                return
            }
            probe += 1
        }
        throw XMLSourceError(reason: .unreadable, offset: index, message: "a declaration starting before byte \(index) is never closed")
    }

    /// The name starting at `index`: bytes up to whitespace, `/`, `>` or the end.
    func name(at index: Int) -> [UInt8] {
        var end = index
        while end < bytes.count {
            let byte = bytes[end]
            if XMLSourceEditor.isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { break }
            end += 1
        }
        return index < end ? Array(bytes[index..<end]) : []
    }

    /// The index of the `>` closing a tag, skipping quoted attribute values.
    func tagEnd(from index: Int) throws(XMLSourceError) -> Int {
        var probe = index
        while probe < bytes.count {
            guard let next = indexPastQuotedLiteral(at: probe) else { break }
            if next != probe {
                probe = next
                continue
            }
            if bytes[probe] == UInt8(ascii: ">") { return probe }
            probe += 1
        }
        throw XMLSourceError(reason: .unreadable, offset: index, message: "a tag starting before byte \(index) is never closed")
    }

    /// When the byte at `index` (below `bytes.count`) opens a quoted literal, `"…"` or `'…'`, the
    /// index past its closing quote, or nil when it is never closed; `index` for any other byte.
    /// Declarations and tags skip their literals alike, since a literal may hold `>`.
    func indexPastQuotedLiteral(at index: Int) -> Int? {
        let quote = bytes[index]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return index }
        return bytes[(index + 1)...].firstIndex(of: quote).map { $0 + 1 }
    }
}
