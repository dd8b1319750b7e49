/// Writes XML property lists in Core Foundation's layout (`_CFAppendXML0`), byte for byte where
/// the model allows: the XML declaration and Apple DOCTYPE, `<plist version="1.0">`, one tab per
/// level, `<dict/>`/`<array/>` when empty, `<data>` as base64 lines at the element's indent,
/// `<true/>`/`<false/>`, UIDs as `CF$UID` dictionaries, and only `<`, `>` and `&` escaped.
///
/// Unlike Core Foundation, dictionary keys are written in the model's order rather than re-sorted,
/// so rewriting a file keeps its order; files from `plutil` or Xcode are already sorted and stay
/// so. A carriage return is written as `&#13;`, because XML readers turn a raw one into a line feed.
enum XMLPropertyListWriter {
    static let prologue = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)
    static let epilogue = Array("</plist>\n".utf8)

    static func encode(_ root: PropertyListValue, maximumDepth: Int = PropertyListLimits.default.maximumDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        output.append(contentsOf: prologue)
        try append(root, indent: 0, depth: 1, maximumDepth: maximumDepth, to: &output)
        output.append(contentsOf: epilogue)
        return output
    }

    private static func append(
        _ value: PropertyListValue, indent: Int, depth: Int, maximumDepth: Int, to output: inout [UInt8]
    ) throws(PropertyListError) {
        guard depth <= maximumDepth else {
            throw PropertyListError(.tooDeep, "the value is nested deeper than the limit of \(maximumDepth)")
        }
        appendTabs(indent, to: &output)
        switch value {
        case .string(let string):
            output.append(contentsOf: "<string>".utf8)
            try appendEscaped(string, to: &output)
            output.append(contentsOf: "</string>\n".utf8)
        case .integer(let integer):
            appendLeaf("integer", integer.description, to: &output)
        case .real(let real):
            appendLeaf("real", formatReal(real), to: &output)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "<true/>\n" : "<false/>\n").utf8)
        case .date(let date):
            appendLeaf("date", date.iso8601, to: &output)
        case .data(let bytes):
            output.append(contentsOf: "<data>\n".utf8)
            Base64.appendLines(of: bytes, indent: indent, to: &output)
            appendTabs(indent, to: &output)
            output.append(contentsOf: "</data>\n".utf8)
        case .uid(let uid):
            output.append(contentsOf: "<dict>\n".utf8)
            appendTabs(indent + 1, to: &output)
            output.append(contentsOf: "<key>CF$UID</key>\n".utf8)
            appendTabs(indent + 1, to: &output)
            appendLeaf("integer", String(uid), to: &output)
            appendTabs(indent, to: &output)
            output.append(contentsOf: "</dict>\n".utf8)
        case .array(let elements):
            guard !elements.isEmpty else {
                output.append(contentsOf: "<array/>\n".utf8)
                return
            }
            output.append(contentsOf: "<array>\n".utf8)
            for element in elements {
                try append(element, indent: indent + 1, depth: depth + 1, maximumDepth: maximumDepth, to: &output)
            }
            appendTabs(indent, to: &output)
            output.append(contentsOf: "</array>\n".utf8)
        case .dictionary(let dictionary):
            guard !dictionary.isEmpty else {
                output.append(contentsOf: "<dict/>\n".utf8)
                return
            }
            output.append(contentsOf: "<dict>\n".utf8)
            for (key, element) in dictionary {
                appendTabs(indent + 1, to: &output)
                output.append(contentsOf: "<key>".utf8)
                try appendEscaped(key, to: &output)
                output.append(contentsOf: "</key>\n".utf8)
                try append(element, indent: indent + 1, depth: depth + 1, maximumDepth: maximumDepth, to: &output)
            }
            appendTabs(indent, to: &output)
            output.append(contentsOf: "</dict>\n".utf8)
        }
    }

    private static func appendLeaf(_ tag: String, _ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "<"))
        output.append(contentsOf: tag.utf8)
        output.append(UInt8(ascii: ">"))
        output.append(contentsOf: text.utf8)
        output.append(contentsOf: "</".utf8)
        output.append(contentsOf: tag.utf8)
        output.append(contentsOf: ">\n".utf8)
    }

    private static func appendTabs(_ count: Int, to output: inout [UInt8]) {
        for _ in 0..<count { output.append(UInt8(ascii: "\t")) }
    }

    /// Escapes `<`, `>`, `&` (as Core Foundation does) and CR; refuses characters XML 1.0 cannot
    /// hold at all (controls other than tab, LF, CR; U+FFFE; U+FFFF).
    private static func appendEscaped(_ string: String, to output: inout [UInt8]) throws(PropertyListError) {
        let utf8 = string.utf8
        var needsWork = false
        for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "&") || byte == 0xEF
        {
            needsWork = true
            break
        }
        guard needsWork else {
            output.append(contentsOf: utf8)
            return
        }
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case 0x0D: output.append(contentsOf: "&#13;".utf8)
            case 0x09, 0x0A: output.append(byte)
            case 0x00..<0x20:
                throw PropertyListError(
                    .xmlUnrepresentable,
                    "a string holds the control character U+\(String(format4: byte)), which XML 1.0 cannot represent")
            default:
                if byte >= 0xBE, byte <= 0xBF, previous == (0xEF, 0xBF) {
                    throw PropertyListError(
                        .xmlUnrepresentable,
                        "a string holds the noncharacter U+FFF\(byte == 0xBE ? "E" : "F"), which XML 1.0 cannot represent")
                }
                output.append(byte)
            }
            previous = (previous.1, byte)
        }
    }
}

extension String {
    /// Four upper-case hex digits.
    init(format4 value: UInt8) {
        let digits = String(value, radix: 16, uppercase: true)
        self = String(repeating: "0", count: 4 - digits.count) + digits
    }
}
