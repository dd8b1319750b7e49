import PropertyList
import SwiftASN1

/// Entitlements in the DER form `codesign` writes into code-signature slot 7 (blob magic
/// `0xFADE7172`), which iOS 15 and later require beside the XML form.
///
/// ```
/// Entitlements ::= [APPLICATION 16] SEQUENCE { version INTEGER (1), dict Dictionary }
/// Dictionary   ::= [CONTEXT 16] SET OF SEQUENCE { key UTF8String, value Value }   -- keys sorted
/// Value        ::= BOOLEAN | INTEGER | UTF8String | SEQUENCE OF Value | Dictionary
/// ```
///
/// Encoding sorts each dictionary's keys by their UTF-8 bytes, as codesign (CoreEntitlements) and
/// rcodesign do; sigcheck, which decodes it on its own, checks every signed output in the tests.
public struct DEREntitlements: Sendable, Equatable {
    /// The entitlements, keys in the order they are (or will be) encoded.
    public let dictionary: PropertyListDictionary

    private static let rootTag = ASN1Identifier(tagWithNumber: 16, tagClass: .application)
    private static let dictionaryTag = ASN1Identifier(tagWithNumber: 16, tagClass: .contextSpecific)
    /// swift-asn1 refuses DER nested deeper than this many nodes, so the encoder does too.
    static let maximumNodeDepth = 50

    /// The dictionary to encode; keys are sorted at every level.
    public init(dictionary: PropertyListDictionary) {
        self.dictionary = Self.sortedKeys(dictionary)
    }

    public init(derEncoded bytes: [UInt8]) throws(CodeSignatureError) {
        let root: ASN1Node
        do {
            root = try DER.parse(bytes)
        } catch {
            throw Self.invalid("the DER entitlements are not valid DER, or nest deeper than \(Self.maximumNodeDepth) levels")
        }
        guard root.identifier == Self.rootTag, case .constructed(let fields) = root.content else {
            throw Self.invalid("the DER entitlements do not start with the [APPLICATION 16] wrapper")
        }
        var iterator = fields.makeIterator()
        guard let versionNode = iterator.next(), let version = try? Int(derEncoded: versionNode) else {
            throw Self.invalid("the DER entitlements have no version")
        }
        guard version == 1 else {
            throw Self.invalid("the DER entitlements have version \(version), not 1")
        }
        guard let dictionaryNode = iterator.next(), iterator.next() == nil,
              case .dictionary(let dictionary) = try Self.value(dictionaryNode) else {
            throw Self.invalid("the DER entitlements do not hold one dictionary after the version")
        }
        self.dictionary = dictionary
    }

    /// Reads the payload of a `0xFADE7172` blob.
    public init(blob bytes: [UInt8]) throws(CodeSignatureError) {
        try BlobFraming.check(bytes, magic: BlobMagic.derEntitlements, what: "DER entitlements blob", reason: .derEntitlements)
        try self.init(derEncoded: Array(bytes.dropFirst(8)))
    }

    /// The DER bytes. Throws for values the format cannot hold (reals, dates, data, UIDs,
    /// integers beyond 64 bits) and for nesting deeper than readers accept.
    public func derEncoded() throws(CodeSignatureError) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try serializer.appendConstructedNode(identifier: Self.rootTag) { root in
                try root.serialize(1)
                try Self.append(.dictionary(dictionary), to: &root, depth: 2)
            }
        } catch let error as CodeSignatureError {
            throw error
        } catch {
            throw Self.invalid("the entitlements cannot be encoded as DER: \(error)")
        }
        return serializer.serializedBytes
    }

    /// The `0xFADE7172` blob holding `derEncoded()`.
    public func blob() throws(CodeSignatureError) -> [UInt8] {
        try BlobFraming.wrap(derEncoded(), magic: BlobMagic.derEntitlements, what: "DER entitlements blob", reason: .derEntitlements)
    }

    private static func append(_ value: PropertyListValue, to serializer: inout DER.Serializer, depth: Int) throws {
        guard depth <= maximumNodeDepth else {
            throw invalid("the entitlements nest deeper than DER entitlements allow (\(maximumNodeDepth) levels of DER)")
        }
        switch value {
        case .bool(let flag):
            try serializer.serialize(flag)
        case .integer(let integer):
            guard let number = integer.int64 else {
                throw invalid("the integer \(integer) does not fit in the 64 bits DER entitlements allow")
            }
            try serializer.serialize(number)
        case .string(let text):
            try serializer.serialize(ASN1UTF8String(text))
        case .array(let elements):
            try serializer.appendConstructedNode(identifier: .sequence) { sequence in
                for element in elements { try append(element, to: &sequence, depth: depth + 1) }
            }
        case .dictionary(let dictionary):
            try serializer.appendConstructedNode(identifier: dictionaryTag) { set in
                for (key, element) in sortedKeys(dictionary) {
                    try set.appendConstructedNode(identifier: .sequence) { pair in
                        try pair.serialize(ASN1UTF8String(key))
                        try append(element, to: &pair, depth: depth + 2)
                    }
                }
            }
        default:
            throw invalid("a \(value.typeName) cannot be encoded as DER entitlements (only booleans, integers, strings, arrays and dictionaries)")
        }
    }

    /// The keys in UTF-8 byte order, recursively.
    private static func sortedKeys(_ dictionary: PropertyListDictionary) -> PropertyListDictionary {
        let order = dictionary.keys.indices.sorted { dictionary.keys[$0].precedesInUTF8Order(dictionary.keys[$1]) }
        return PropertyListDictionary(order.map { index in
            let value = dictionary.values[index]
            return (dictionary.keys[index], sortedKeys(value))
        })
    }

    private static func sortedKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .dictionary(let dictionary): .dictionary(sortedKeys(dictionary))
        case .array(let elements): .array(elements.map(sortedKeys))
        default: value
        }
    }

    /// Decodes one value; nesting is bounded by the DER parser's depth limit.
    private static func value(_ node: ASN1Node) throws(CodeSignatureError) -> PropertyListValue {
        switch node.identifier {
        case .boolean:
            guard let flag = try? Bool(derEncoded: node) else { throw malformed("a BOOLEAN is malformed") }
            return .bool(flag)
        case .integer:
            guard let number = try? Int64(derEncoded: node) else {
                throw malformed("an INTEGER is malformed or does not fit in 64 bits")
            }
            return .integer(PropertyListInteger(number))
        case .utf8String:
            guard let text = try? ASN1UTF8String(derEncoded: node) else { throw malformed("a UTF8String is malformed") }
            return .string(String(text))
        case .sequence:
            guard case .constructed(let children) = node.content else { throw malformed("an array is not constructed") }
            var items: [PropertyListValue] = []
            for child in children { items.append(try value(child)) }
            return .array(items)
        case dictionaryTag:
            guard case .constructed(let children) = node.content else { throw malformed("a dictionary is not constructed") }
            var dictionary = PropertyListDictionary()
            for entry in children {
                guard entry.identifier == .sequence, case .constructed(let pair) = entry.content else {
                    throw malformed("a dictionary entry is not a SEQUENCE")
                }
                var parts = pair.makeIterator()
                guard let keyNode = parts.next(), let valueNode = parts.next(), parts.next() == nil,
                      let key = try? ASN1UTF8String(derEncoded: keyNode) else {
                    throw malformed("a dictionary entry is not a UTF8String key and one value")
                }
                let keyText = String(key)
                guard dictionary[keyText] == nil else { throw malformed("the key \"\(keyText)\" appears twice in one dictionary") }
                dictionary.append(try value(valueNode), forKey: keyText)
            }
            return .dictionary(dictionary)
        default:
            throw malformed("a value is tagged \(node.identifier), which DER entitlements do not use")
        }
    }

    private static func invalid(_ message: String) -> CodeSignatureError {
        CodeSignatureError(.derEntitlements, message)
    }

    private static func malformed(_ detail: String) -> CodeSignatureError {
        invalid("the DER entitlements are malformed: \(detail)")
    }
}

/// The XML entitlements blob (`0xFADE7171`, slot 5): a property list kept as its bytes, since
/// special slot −5 hashes the blob exactly as written.
public struct EntitlementsBlob: Sendable, Equatable {
    /// The XML property list.
    public let xml: [UInt8]

    public init(xml: [UInt8]) {
        self.xml = xml
    }

    /// The blob for `dictionary` written as Apple's XML property list layout.
    public init(dictionary: PropertyListDictionary) throws(CodeSignatureError) {
        do {
            xml = try PropertyList(root: .dictionary(dictionary), format: .xml).xmlData()
        } catch {
            throw CodeSignatureError(.entitlements, "the entitlements cannot be written as XML: \(error.description)")
        }
    }

    public init(blob bytes: [UInt8]) throws(CodeSignatureError) {
        try BlobFraming.check(bytes, magic: BlobMagic.entitlements, what: "entitlements blob", reason: .entitlements)
        xml = Array(bytes.dropFirst(8))
    }

    public func blob() throws(CodeSignatureError) -> [UInt8] {
        try BlobFraming.wrap(xml, magic: BlobMagic.entitlements, what: "entitlements blob", reason: .entitlements)
    }

    /// The property list, whose root must be a dictionary; `limits` bound the parse.
    public func dictionary(limits: PropertyListLimits = .default) throws(CodeSignatureError) -> PropertyListDictionary {
        let root: PropertyListValue
        do {
            root = try PropertyList(bytes: xml, limits: limits).root
        } catch {
            throw CodeSignatureError(.entitlements, "the XML entitlements are not a property list: \(error.description)")
        }
        guard let dictionary = root.dictionary else {
            throw CodeSignatureError(.entitlements, "the XML entitlements' root is \(root.typeName), not a dictionary")
        }
        return dictionary
    }
}
