/// The name of a zip entry exactly as stored: bytes, not a re-encoded string. Round trips keep
/// these bytes (NFD or NFC, UTF-8 flag or not), because CodeResources seals on-disk names.
public struct EntryName: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A name given by a user or built by the toolkit, stored as UTF-8.
    public init(_ string: String) {
        self.bytes = Array(string.utf8)
    }

    /// The name as a string for path logic: UTF-8 when the bytes are valid UTF-8 (as Apple's and
    /// Info-ZIP's tools write), otherwise each byte as Latin-1, which is lossless and unique.
    public var string: String { Self.decode(bytes) }

    /// Bytes as `string` reads them.
    package static func decode(_ bytes: some Collection<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The name for messages: control bytes and invalid UTF-8 shown as `\xNN`.
    public var description: String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : hexEscape($0) }.joined()
        }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += hexEscape(UInt8(scalar.value))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    public var isDirectoryName: Bool { bytes.last == UInt8(ascii: "/") }

    /// Whether the name is plain ASCII (then the UTF-8 flag is irrelevant).
    public var isASCII: Bool { bytes.allSatisfy { $0 < 0x80 } }

    public static func < (lhs: EntryName, rhs: EntryName) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// The reason this name is unsafe to extract or ambiguous, or nil when it is safe.
    ///
    /// Refused: empty names; absolute paths; `..`, `.` and empty components (zip slip and
    /// ambiguity); backslashes (Windows separators that some extractors honour); NUL and other
    /// control bytes.
    public var unsafeReason: String? { Self.unsafeReason(of: bytes[...]) }

    /// `unsafeReason` for a name's bytes, in one pass (every name of an archive is checked).
    package static func unsafeReason(of bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBufferPointer { unsafeReason(of: $0) }
    }

    static func unsafeReason(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.isEmpty { return "the name is empty" }
        if bytes.first == UInt8(ascii: "/") { return "it is an absolute path" }
        var backslash = false, nul = false, control = false
        var component: String?
        // The current component's length and whether it is all dots so far.
        var length = 0
        var dots = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                if component == nil { component = reason(ofComponentLength: length, allDots: dots, last: false) }
                length = 0
                dots = true
                continue
            case UInt8(ascii: "\\"): backslash = true
            case 0: nul = true
            case ..<0x20, 0x7F: control = true
            default: break
            }
            length += 1
            dots = dots && byte == UInt8(ascii: ".")
        }
        if component == nil, length > 0 || bytes.last != UInt8(ascii: "/") {
            component = reason(ofComponentLength: length, allDots: dots, last: length == 0)
        }
        if backslash { return "it contains a backslash" }
        if nul { return "it contains a NUL byte" }
        if control { return "it contains a control character" }
        return component
    }

    private static func reason(ofComponentLength length: Int, allDots: Bool, last: Bool) -> String? {
        if length == 0 {
            // A trailing slash ends a folder's name; any other empty component is refused.
            return last ? nil : "it has an empty path component"
        }
        if allDots && length == 1 { return "it has a '.' component" }
        if allDots && length == 2 { return "it has a '..' component that would escape the extraction folder" }
        return nil
    }
}

private func hexEscape(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}
