import CLibxml2
import FormatSupport

/// Receives the events of an `XMLStreamParser` run, in document order. Return `false` from any
/// method to stop parsing (the handler keeps its own reason).
///
/// Pointers passed to these methods are valid only during the call.
public protocol XMLStreamHandler: AnyObject {
    func startElement(_ element: XMLStreamElement) -> Bool
    func endElement(_ element: XMLStreamElement) -> Bool
    /// Character data inside an element (text, CDATA, character and predefined-entity
    /// references, whitespace), possibly split over several calls.
    func characters(_ text: UnsafeBufferPointer<UInt8>, line: Int) -> Bool
}

/// An element at its start or end tag, as a streaming handler sees it.
public struct XMLStreamElement {
    /// The local name, UTF-8, without prefix.
    public let localName: UnsafeBufferPointer<UInt8>
    /// Whether the name had a namespace prefix (`<x:dict>`).
    public let hasPrefix: Bool
    /// 1-based line of the tag.
    public let line: Int
    private let attributeCount: Int
    private let attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    init(
        localName: UnsafePointer<xmlChar>?, prefix: UnsafePointer<xmlChar>?, line: Int,
        attributeCount: Int = 0, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>? = nil
    ) {
        if let localName {
            self.localName = UnsafeBufferPointer(start: localName, count: Int(xmlStrlen(localName)))
        } else {
            self.localName = UnsafeBufferPointer(start: nil, count: 0)
        }
        self.hasPrefix = prefix != nil
        self.line = line
        self.attributeCount = attributeCount
        self.attributes = attributes
    }

    /// The local name as a String.
    public var name: String {
        String(decoding: localName, as: UTF8.self)
    }

    /// Whether the local name is `expected`, compared without building a String.
    public func isNamed(_ expected: StaticString) -> Bool {
        expected.withUTF8Buffer { wanted in
            wanted.count == localName.count && wanted.elementsEqual(localName)
        }
    }

    /// The value of an unprefixed attribute, if present.
    public func attribute(_ attributeName: String) -> String? {
        guard let attributes else { return nil }
        let wanted = Array(attributeName.utf8)
        // libxml2 passes five pointers per attribute: localname, prefix, URI, value, value end.
        for index in 0..<attributeCount {
            let base = index * 5
            guard let name = attributes[base], attributes[base + 1] == nil,
                let value = attributes[base + 3], let valueEnd = attributes[base + 4]
            else { continue }
            let nameBuffer = UnsafeBufferPointer(start: name, count: Int(xmlStrlen(name)))
            if nameBuffer.elementsEqual(wanted) {
                return String(decoding: UnsafeBufferPointer(start: value, count: valueEnd - value), as: UTF8.self)
            }
        }
        return nil
    }
}

/// A streaming (SAX) reader over libxml2 for formats too large to build a tree for, with the
/// same safety settings as `XMLDocument`:
/// - `XML_PARSE_NONET`, and no `XML_PARSE_DTDLOAD`: a DOCTYPE's external DTD is never fetched;
/// - no `XML_PARSE_NOENT`; any `<!ENTITY` declaration stops the parser, and so does a reference to
///   an entity that is not one of XML's five predefined ones (no expansion, no XXE);
/// - no `XML_PARSE_HUGE`: libxml2's own depth (256) and name-length limits stay on;
/// - a byte-size limit checked before parsing.
///
/// No tree is built: the handler gets each start tag, end tag and run of text as it is read.
public enum XMLStreamParser {
    /// How a parse that did not throw ended.
    public enum Outcome: Sendable, Equatable {
        /// The whole document was read and is well-formed.
        case completed
        /// The handler returned `false`; it holds the reason.
        case stoppedByHandler
    }

    /// Parses `bytes`, which may start with a byte-order mark or whitespace, and may be UTF-8 or
    /// UTF-16 as declared. Throws for XML that is not well-formed and for entity use.
    public static func parse(
        bytes: [UInt8], maximumSize: Int = XMLDocument.defaultMaximumSize, handler: any XMLStreamHandler
    ) throws(XMLParseError) -> Outcome {
        let context = try XMLInput.makeContext(for: bytes, maximumSize: maximumSize)
        defer { xmlFreeParserCtxt(context) }
        guard let sax = context.pointee.sax else {
            throw XMLParseError(reason: .malformed, line: 0, message: "libxml2 created no SAX handler")
        }
        // Start from an empty handler: no tree, no DTD handling, no entity resolution.
        sax.pointee = xmlSAXHandler()
        sax.pointee.initialized = UInt32(truncatingIfNeeded: XML_SAX2_MAGIC)
        sax.pointee.startElementNs = { rawContext, localName, prefix, _, _, _, attributeCount, _, attributes in
            guard let (context, state) = StreamState.from(rawContext), !state.stopped else { return }
            let element = XMLStreamElement(
                localName: localName, prefix: prefix, line: state.line(context),
                attributeCount: Int(attributeCount), attributes: attributes)
            if !state.handler.startElement(element) { state.stop(context) }
        }
        sax.pointee.endElementNs = { rawContext, localName, prefix, _ in
            guard let (context, state) = StreamState.from(rawContext), !state.stopped else { return }
            let element = XMLStreamElement(localName: localName, prefix: prefix, line: state.line(context))
            if !state.handler.endElement(element) { state.stop(context) }
        }
        let characters: charactersSAXFunc = { rawContext, text, length in
            guard let (context, state) = StreamState.from(rawContext), !state.stopped, let text, length > 0 else { return }
            let buffer = UnsafeBufferPointer(start: text, count: Int(length))
            if !state.handler.characters(buffer, line: state.line(context)) { state.stop(context) }
        }
        sax.pointee.characters = characters
        // Same function, so libxml2 never classifies whitespace as ignorable and drops it.
        sax.pointee.ignorableWhitespace = characters
        sax.pointee.entityDecl = { rawContext, _, _, _, _, _ in
            guard let (context, state) = StreamState.from(rawContext) else { return }
            state.refusal = .entityDeclaration(line: state.line(context))
            state.stop(context)
        }
        sax.pointee.reference = { rawContext, name in
            guard let (context, state) = StreamState.from(rawContext) else { return }
            let entity = name.map { String(cString: $0) } ?? ""
            state.refusal = .undeclaredReference(entity, line: state.line(context))
            state.stop(context)
        }

        let state = StreamState(handler: handler)
        state.attach(to: context)
        let input = XMLInput.prepared(bytes)
        let document: xmlDocPtr? = withExtendedLifetime(state) {
            input.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { base in
                    base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        xmlCtxtReadMemory(context, $0, Int32(buffer.count), nil, nil, XMLInput.options)
                    }
                }
            }
        }
        // With no startDocument callback libxml2 builds no document, but be sure.
        if let document { xmlFreeDoc(document) }
        context.pointee._private = nil

        switch state.refusal {
        case .entityDeclaration(let line):
            throw XMLParseError(
                reason: .entityDeclaration, line: line,
                message: "the document declares an XML entity; entity declarations are refused")
        case .undeclaredReference(let name, let line):
            throw XMLParseError(
                reason: .entityDeclaration, line: line,
                message: "the document refers to the entity &\(name); which is not one of XML's predefined entities")
        case nil:
            break
        }
        if state.stopped { return .stoppedByHandler }
        if XMLInput.isBlank(bytes) {
            throw XMLParseError(reason: .malformed, line: 0, message: "the document is empty")
        }
        guard context.pointee.wellFormed != 0 else {
            throw state.malformed(context)
        }
        return .completed
    }

    // MARK: libxml2 plumbing

    private final class StreamState: XMLInput.ParseState {
        enum Refusal {
            case entityDeclaration(line: Int)
            case undeclaredReference(String, line: Int)
        }

        let handler: any XMLStreamHandler
        var stopped = false
        var refusal: Refusal?

        init(handler: any XMLStreamHandler) {
            self.handler = handler
        }

        /// The parser context and our state, from the `ctx` libxml2 passes to SAX callbacks.
        static func from(_ rawContext: UnsafeMutableRawPointer?) -> (xmlParserCtxtPtr, StreamState)? {
            guard let (context, state) = XMLInput.ParseState.of(rawContext), let stream = state as? StreamState else { return nil }
            return (context, stream)
        }

        func line(_ context: xmlParserCtxtPtr) -> Int {
            Int(context.pointee.input?.pointee.line ?? 0)
        }

        func stop(_ context: xmlParserCtxtPtr) {
            stopped = true
            xmlStopParser(context)
        }
    }

}
