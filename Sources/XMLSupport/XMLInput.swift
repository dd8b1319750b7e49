import CLibxml2

/// What every XML parse in the toolkit shares, so `XMLDocument` and `XMLStreamParser` cannot
/// drift apart: libxml2's options, how input bytes are prepared, and how errors are reported.
enum XMLInput {
    /// `XML_PARSE_NONET` and no `XML_PARSE_DTDLOAD`/`NOENT`/`HUGE`: no network, no external DTD, no
    /// entity substitution, libxml2's depth and size limits on; errors collected, not printed.
    static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue)

    static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// A new parser context for a document of `count` bytes, refusing documents above `maximumSize`
    /// or above what libxml2 takes (its lengths are C ints). The caller frees the context.
    static func makeContext(for bytes: [UInt8], maximumSize: Int) throws(XMLParseError) -> xmlParserCtxtPtr {
        let limit = min(maximumSize, Int(Int32.max))
        guard bytes.count <= limit else {
            throw XMLParseError(
                reason: .tooLarge, line: 0, message: "document is \(bytes.count) bytes, above the limit of \(limit)")
        }
        try refuseTooManyAttributes(bytes)
        _ = initialized
        guard let context = xmlNewParserCtxt() else {
            throw XMLParseError(reason: .malformed, line: 0, message: "out of memory creating the XML parser")
        }
        return context
    }

    /// Most attributes one element may have. libxml2 checks an element's attributes for
    /// duplicates in time quadratic in their number (650,000 took minutes), so a larger count is
    /// refused before libxml2 sees the document. Real property lists and policies use at most a few.
    static let maximumAttributesPerElement = 1024

    /// Counts the attributes of every start tag (the `=` outside quotes) in one linear pass,
    /// skipping comments, CDATA sections and processing instructions, and throws `XML_TOO_LARGE`
    /// for an element over `maximumAttributesPerElement`. Works on UTF-8 and on UTF-16 (whose
    /// ASCII characters keep their byte values).
    static func refuseTooManyAttributes(_ bytes: [UInt8]) throws(XMLParseError) {
        // This pass runs over every byte of every document: it works on the buffer with no
        // captured state and allocates nothing, so it stays fast in a debug build too.
        let tagLine = bytes.withUnsafeBufferPointer { firstElementOverAttributeLimit(in: $0) }
        if let tagLine {
            throw XMLParseError(
                reason: .tooLarge, line: tagLine,
                message: "an element has more than \(maximumAttributesPerElement) attributes, above the limit")
        }
    }

    /// The line of the first start tag with more than `maximumAttributesPerElement` attributes.
    private static func firstElementOverAttributeLimit(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = bytes.count
        var index = 0
        var line = 1
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1 }
            guard byte == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            var terminator: StaticString?
            let next = index + 1 < count ? bytes[index + 1] : 0
            if next == UInt8(ascii: "!") {
                if matches("<!--", in: bytes, at: index) {
                    index += 4
                    terminator = "-->"
                } else if matches("<![CDATA[", in: bytes, at: index) {
                    index += 9
                    terminator = "]]>"
                } else {
                    index += 2
                    continue
                }
            } else if next == UInt8(ascii: "?") {
                index += 2
                terminator = "?>"
            } else if next == UInt8(ascii: "/") {
                index += 2
                continue
            }
            if let terminator {
                let first = terminator.withUTF8Buffer { $0[0] }
                while index < count {
                    if bytes[index] == 0x0A { line += 1 }
                    if bytes[index] == first, matches(terminator, in: bytes, at: index) {
                        index += terminator.utf8CodeUnitCount
                        break
                    }
                    index += 1
                }
                continue
            }
            let tagLine = line
            var attributes = 0
            var quote: UInt8?
            index += 1
            while index < count {
                let character = bytes[index]
                if character == 0x0A { line += 1 }
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == UInt8(ascii: "\"") || character == UInt8(ascii: "'") {
                    quote = character
                } else if character == UInt8(ascii: "=") {
                    attributes += 1
                    if attributes > maximumAttributesPerElement { return tagLine }
                } else if character == UInt8(ascii: ">") || character == UInt8(ascii: "<") {
                    break
                }
                index += 1
            }
        }
        return nil
    }

    /// Whether the ASCII `literal` starts at `index` of `bytes`.
    private static func matches(_ literal: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard bytes.count - index >= length else { return false }
        return literal.withUTF8Buffer { literalBytes in
            var offset = 0
            while offset < length, bytes[index + offset] == literalBytes[offset] { offset += 1 }
            return offset == length
        }
    }

    /// The bytes to give libxml2. Hand-edited files often have whitespace before the XML
    /// declaration, which XML does not allow; it is moved to just after the declaration, so every
    /// later line keeps the number it has in the file. Anything else is returned unchanged.
    static func prepared(_ bytes: [UInt8]) -> [UInt8] {
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var markup = bom
        while markup < bytes.count, isSpace(bytes[markup]) { markup += 1 }
        guard markup > bom, bytes[markup...].starts(with: Array("<?xml".utf8)),
              let end = declarationEnd(in: bytes, from: markup) else { return bytes }
        var result = Array(bytes[0..<bom])
        result.reserveCapacity(bytes.count)
        result += bytes[markup..<end]
        result += bytes[bom..<markup]
        result += bytes[end...]
        return result
    }

    /// Whether the input holds nothing but a byte-order mark and whitespace.
    static func isBlank(_ bytes: [UInt8]) -> Bool {
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return bytes[bom...].allSatisfy(isSpace)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Just past the `?>` closing the declaration that starts at `start`.
    private static func declarationEnd(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") { return index + 2 }
            index += 1
        }
        return nil
    }

    /// Per-parse state reachable from libxml2's callbacks through the context's `_private`.
    /// It records the first error libxml2 raises: later ones are usually consequences of it
    /// (an unclosed element is reported again at the end of the file).
    class ParseState {
        private(set) var firstError: (line: Int, message: String)?

        /// The state of the parse running in `rawContext`, the `ctx` libxml2 passes to callbacks
        /// (the parser context itself, as no separate user data is set).
        static func of(_ rawContext: UnsafeMutableRawPointer?) -> (xmlParserCtxtPtr, ParseState)? {
            guard let rawContext else { return nil }
            let context = rawContext.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let state = context.pointee._private else { return nil }
            return (context, Unmanaged<ParseState>.fromOpaque(state).takeUnretainedValue())
        }

        /// Installs the state and the structured-error hook on a context.
        func attach(to context: xmlParserCtxtPtr) {
            context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
            context.pointee.sax.pointee.serror = { userData, error in
                guard let error, let (_, state) = ParseState.of(userData) else { return }
                guard state.firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
                var message = error.pointee.message.map { String(cString: $0) } ?? "not well-formed XML"
                while message.last?.isWhitespace == true { message.removeLast() }
                state.firstError = (Int(error.pointee.line), message)
            }
        }

        /// The first error, else libxml2's last one, as a coded error.
        func malformed(_ context: xmlParserCtxtPtr) -> XMLParseError {
            if let firstError {
                return XMLParseError(reason: .malformed, line: firstError.line, message: firstError.message)
            }
            let error = context.pointee.lastError
            var message = error.message.map { String(cString: $0) } ?? "not well-formed XML"
            while message.last?.isWhitespace == true { message.removeLast() }
            return XMLParseError(reason: .malformed, line: Int(error.line), message: message)
        }
    }
}
