import SwiftASN1

/// Small BER helpers the CMS reader shares: tags, names for messages, swift-asn1 error
/// translation and the extent of an element.
enum BERElement {
    /// `[0]`: explicit content wrappers, implicit `certificates` and signed attributes.
    static let tag0 = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    /// `[1]`: the implicit `crls` set, and unsigned attributes.
    static let tag1 = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    /// Deeper than swift-asn1's own limit (50), so `length(of:)` never refuses what it parses.
    static let maximumDepth = 64

    /// The OID that starts an `AlgorithmIdentifier` SEQUENCE, or nil when it is not one.
    static func algorithmOID(_ node: ASN1Node) -> ASN1ObjectIdentifier? {
        guard node.identifier == .sequence, case .constructed(let parts) = node.content,
              let first = parts.first(where: { _ in true }) else { return nil }
        return try? ASN1ObjectIdentifier(berEncoded: first)
    }

    /// The number of bytes the first BER element of `bytes` spans (definite or indefinite
    /// lengths), or nil when it does not fit or nests deeper than `maximumDepth`. Used to find
    /// the zero padding a code signature's blob adds after its CMS.
    static func length(of bytes: [UInt8]) -> Int? {
        end(of: bytes, from: 0, depth: 0)
    }

    private static func end(of bytes: [UInt8], from start: Int, depth: Int) -> Int? {
        guard depth <= maximumDepth, start < bytes.count else { return nil }
        let tag = bytes[start]
        var index = start + 1
        if tag & 0x1F == 0x1F {
            // Long-form tag number: base-128 digits, the last without the high bit.
            var digits = 0
            while true {
                guard index < bytes.count, digits < 8 else { return nil }
                let digit = bytes[index]
                index += 1
                digits += 1
                if digit & 0x80 == 0 { break }
            }
        }
        guard index < bytes.count else { return nil }
        let first = bytes[index]
        index += 1
        if first == 0x80 {
            // Indefinite: children until an end-of-contents (00 00); only constructed elements.
            guard tag & 0x20 != 0 else { return nil }
            while true {
                guard index + 1 < bytes.count else { return nil }
                if bytes[index] == 0, bytes[index + 1] == 0 { return index + 2 }
                guard let childEnd = end(of: bytes, from: index, depth: depth + 1) else { return nil }
                index = childEnd
            }
        }
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count <= 4, index + count <= bytes.count else { return nil }
            length = 0
            for byte in bytes[index..<(index + count)] { length = length << 8 | Int(byte) }
            index += count
        }
        guard length <= bytes.count - index else { return nil }
        return index + length
    }

    /// The bytes of an OCTET STRING, primitive or constructed (BER: a sequence of OCTET STRINGs,
    /// themselves possibly constructed), with the number of primitive pieces. `place` names the
    /// field in the message (`the signed content`).
    static func joinedOctets(_ node: ASN1Node, in place: String) throws(CMSError) -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var pieces = 0
        // Depth-first, in order; nesting is bounded by the ASN.1 parser's depth limit.
        var pending: [ASN1Node] = [node]
        while let current = pending.popLast() {
            guard current.identifier == .octetString else {
                throw CMSError(.malformed, "\(place) holds \(describe(current.identifier)) where an OCTET STRING must be")
            }
            switch current.content {
            case .primitive(let piece):
                bytes.append(contentsOf: piece)
                pieces += 1
            case .constructed(let children):
                pending.append(contentsOf: children.reversed())
            }
        }
        return (bytes, pieces)
    }

    /// Whether any element of the tree is encoded with an indefinite length (length octet 0x80).
    static func containsIndefiniteLength(_ root: ASN1Node) -> Bool {
        var pending: [ASN1Node] = [root]
        while let node = pending.popLast() {
            if hasIndefiniteLength(node.encodedBytes) { return true }
            if case .constructed(let children) = node.content { pending.append(contentsOf: children) }
        }
        return false
    }

    private static func hasIndefiniteLength(_ encoded: ArraySlice<UInt8>) -> Bool {
        var index = encoded.startIndex
        guard index < encoded.endIndex else { return false }
        if encoded[index] & 0x1F == 0x1F {
            index += 1
            while index < encoded.endIndex, encoded[index] & 0x80 != 0 { index += 1 }
        }
        index += 1
        return index < encoded.endIndex && encoded[index] == 0x80
    }

    /// A swift-asn1 parse error as a `CMSError`.
    static func translate(_ error: ASN1Error) -> CMSError {
        switch error.code {
        case .truncatedASN1Field:
            return CMSError(.truncated, "the data ends inside an ASN.1 element: the file is cut off")
        default:
            let reason = reason(of: error)
            if reason.hasPrefix("trailing unparsed data") {
                return CMSError(
                    .malformedASN1, "bytes follow the end of the CMS structure (something was appended to the file)")
            }
            if reason.hasPrefix("excessive stack depth") {
                return CMSError(.malformedASN1, "the ASN.1 elements are nested more than 50 deep")
            }
            return CMSError(.malformedASN1, "the data is not valid BER/DER: \(reason)")
        }
    }

    /// The reason text of a swift-asn1 error, without its type name and source location.
    private static func reason(of error: ASN1Error) -> String {
        var text = Substring(error.description)
        if let colon = text.firstRange(of: ": ") { text = text[colon.upperBound...] }
        if let space = text.lastIndex(of: " "), text[text.index(after: space)...].contains(".swift:") {
            text = text[..<space]
        }
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text.isEmpty ? "\(error.code)" : text.prefix(1).lowercased() + text.dropFirst()
    }

    static func describe(_ identifier: ASN1Identifier) -> String {
        switch identifier {
        case .sequence: "a SEQUENCE"
        case .set: "a SET"
        case .octetString: "an OCTET STRING"
        case .integer: "an INTEGER"
        case .objectIdentifier: "an OBJECT IDENTIFIER"
        default:
            switch identifier.tagClass {
            case .universal: "an element tagged [UNIVERSAL \(identifier.tagNumber)]"
            case .application: "an element tagged [APPLICATION \(identifier.tagNumber)]"
            case .contextSpecific: "an element tagged [\(identifier.tagNumber)]"
            case .private: "an element tagged [PRIVATE \(identifier.tagNumber)]"
            }
        }
    }
}
