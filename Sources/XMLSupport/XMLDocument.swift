import CLibxml2
import FormatSupport

/// Why an XML document was refused.
public struct XMLParseError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason {
        /// Not well-formed XML (or libxml2 refused it, e.g. nesting deeper than its limit).
        case malformed = "XML_MALFORMED"
        /// The document declares entities; expanding them is how "billion laughs" and external
        /// entity (XXE) attacks work, and no property list or policy file needs them.
        case entityDeclaration = "XML_ENTITY_DECLARATION"
        /// Larger than the configured limit.
        case tooLarge = "XML_TOO_LARGE"
    }

    public let reason: Reason
    /// 1-based line of the problem, or 0 when unknown.
    public let line: Int
    public let message: String

    public init(reason: Reason, line: Int, message: String) {
        self.reason = reason
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "line \(line): \(message)" : message
    }
}

/// A parsed XML document, read by libxml2 with every network and entity feature off.
///
/// Safety settings, in one place for every XML format of the toolkit:
/// - `XML_PARSE_NONET`, and no `XML_PARSE_DTDLOAD`: a DOCTYPE's external DTD is never fetched;
/// - no `XML_PARSE_NOENT`, and any `<!ENTITY` declaration stops the parser (billion laughs, XXE);
/// - no `XML_PARSE_HUGE`: libxml2's own depth (256) and text-node size limits stay on;
/// - a byte-size limit checked before parsing.
///
/// Elements are views onto libxml2's tree; each keeps the document alive.
public final class XMLDocument {
    /// Default size limit: property lists and policy files are far smaller.
    public static let defaultMaximumSize = 64 * 1024 * 1024

    fileprivate let pointer: xmlDocPtr

    /// Parses `bytes`, which may start with a byte-order mark or whitespace, and may be UTF-8 or
    /// UTF-16 as declared.
    public init(bytes: [UInt8], maximumSize: Int = XMLDocument.defaultMaximumSize) throws(XMLParseError) {
        let context = try XMLInput.makeContext(for: bytes, maximumSize: maximumSize)
        defer { xmlFreeParserCtxt(context) }
        let guardState = EntityGuardState()
        // The SAX hooks run inside xmlCtxtReadMemory; `_private` carries our state to them.
        guardState.attach(to: context)
        context.pointee.sax.pointee.entityDecl = { rawContext, _, _, _, _, _ in
            XMLDocument.refuseEntity(rawContext)
        }
        let input = XMLInput.prepared(bytes)
        let document: xmlDocPtr? = withExtendedLifetime(guardState) {
            input.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { base in
                    base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        xmlCtxtReadMemory(context, $0, Int32(buffer.count), nil, nil, XMLInput.options)
                    }
                }
            }
        }
        context.pointee._private = nil
        if guardState.sawEntityDeclaration {
            if let document { xmlFreeDoc(document) }
            throw XMLParseError(
                reason: .entityDeclaration, line: guardState.line,
                message: "the document declares an XML entity; entity declarations are refused")
        }
        guard let document, context.pointee.wellFormed != 0 else {
            if let document { xmlFreeDoc(document) }
            throw guardState.malformed(context)
        }
        self.pointer = document
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// The root element.
    public var root: XMLElement? {
        guard let node = xmlDocGetRootElement(pointer) else { return nil }
        return XMLElement(document: self, node: node)
    }

    /// The DOCTYPE's public identifier, if any (e.g. `-//Apple//DTD PLIST 1.0//EN`).
    public var doctypePublicID: String? {
        guard let subset = pointer.pointee.intSubset, let id = subset.pointee.ExternalID else { return nil }
        return String(cString: id)
    }

    /// The raw libxml2 document, for schema validation inside this toolkit.
    public var libxml2Document: xmlDocPtr { pointer }

    // MARK: libxml2 plumbing

    private final class EntityGuardState: XMLInput.ParseState {
        var sawEntityDeclaration = false
        var line = 0
    }

    private static func refuseEntity(_ rawContext: UnsafeMutableRawPointer?) {
        guard let (context, state) = XMLInput.ParseState.of(rawContext) else { return }
        if let guardState = state as? EntityGuardState {
            guardState.sawEntityDeclaration = true
            guardState.line = Int(context.pointee.input?.pointee.line ?? 0)
        }
        xmlStopParser(context)
    }
}

/// An element of an `XMLDocument`.
public struct XMLElement {
    private let document: XMLDocument
    private let node: xmlNodePtr

    fileprivate init(document: XMLDocument, node: xmlNodePtr) {
        self.document = document
        self.node = node
    }

    /// The element's local name.
    public var name: String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// Whether the element's name is `expected`, compared without building a String.
    public func isNamed(_ expected: StaticString) -> Bool {
        guard let name = node.pointee.name else { return false }
        return expected.withUTF8Buffer { wanted in
            var index = 0
            while index < wanted.count {
                if name[index] != wanted[index] { return false }
                index += 1
            }
            return name[index] == 0
        }
    }

    /// 1-based source line.
    public var line: Int { Int(xmlGetLineNo(node)) }

    /// Child elements in document order (text, comments and processing instructions skipped).
    public var children: [XMLElement] {
        var result: [XMLElement] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                result.append(XMLElement(document: document, node: current))
            }
            child = current.pointee.next
        }
        return result
    }

    /// The first child element with this name.
    public func child(named childName: String) -> XMLElement? {
        children.first { $0.name == childName }
    }

    /// Whether the element has any child element.
    public var hasElementChildren: Bool {
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { return true }
            child = current.pointee.next
        }
        return false
    }

    /// The concatenated text of the element and its descendants, as libxml2 decoded it.
    public var text: String {
        guard let content = xmlNodeGetContent(node) else { return "" }
        defer { ipawrap_xml_free(content) }
        return String(cString: content)
    }

    /// The value of an attribute, if present.
    public func attribute(_ attributeName: String) -> String? {
        guard let value = xmlGetProp(node, attributeName) else { return nil }
        defer { ipawrap_xml_free(value) }
        return String(cString: value)
    }
}
