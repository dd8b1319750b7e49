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
public struct DEREntitlements: Sendable {
    /// The entitlements, keys in the order they are encoded.
    public let dictionary: PropertyListDictionary

    private static let rootTag = ASN1Identifier(tagWithNumber: 16, tagClass: .application)
    private static let dictionaryTag = ASN1Identifier(tagWithNumber: 16, tagClass: .contextSpecific)

    public init(derEncoded bytes: [UInt8]) throws(ProfileError) {
        let root: ASN1Node
        do {
            root = try DER.parse(bytes)
        } catch {
            throw ProfileError(.entitlementsInvalid, "the DER entitlements are not valid DER")
        }
        guard root.identifier == Self.rootTag, case .constructed(let fields) = root.content else {
            throw ProfileError(.entitlementsInvalid, "the DER entitlements do not start with the [APPLICATION 16] wrapper")
        }
        var iterator = fields.makeIterator()
        guard let versionNode = iterator.next(), let version = try? Int(derEncoded: versionNode) else {
            throw ProfileError(.entitlementsInvalid, "the DER entitlements have no version")
        }
        guard version == 1 else {
            throw ProfileError(.entitlementsInvalid, "the DER entitlements have version \(version), not 1")
        }
        guard let dictionaryNode = iterator.next(), iterator.next() == nil,
              case .dictionary(let dictionary) = try Self.value(dictionaryNode) else {
            throw ProfileError(.entitlementsInvalid, "the DER entitlements do not hold one dictionary after the version")
        }
        self.dictionary = dictionary
    }

    /// Decodes one value; nesting is bounded by the DER parser's depth limit.
    private static func value(_ node: ASN1Node) throws(ProfileError) -> PropertyListValue {
        switch node.identifier {
        case .boolean:
            guard let flag = try? Bool(derEncoded: node) else { throw invalid("a BOOLEAN is malformed") }
            return .bool(flag)
        case .integer:
            guard let number = try? Int64(derEncoded: node) else {
                throw invalid("an INTEGER is malformed or does not fit in 64 bits")
            }
            return .integer(PropertyListInteger(number))
        case .utf8String:
            guard let text = try? ASN1UTF8String(derEncoded: node) else { throw invalid("a UTF8String is malformed") }
            return .string(String(text))
        case .sequence:
            guard case .constructed(let children) = node.content else { throw invalid("an array is not constructed") }
            var items: [PropertyListValue] = []
            for child in children { items.append(try value(child)) }
            return .array(items)
        case dictionaryTag:
            guard case .constructed(let children) = node.content else { throw invalid("a dictionary is not constructed") }
            var dictionary = PropertyListDictionary()
            for entry in children {
                guard entry.identifier == .sequence, case .constructed(let pair) = entry.content else {
                    throw invalid("a dictionary entry is not a SEQUENCE")
                }
                var parts = pair.makeIterator()
                guard let keyNode = parts.next(), let valueNode = parts.next(), parts.next() == nil,
                      let key = try? ASN1UTF8String(derEncoded: keyNode) else {
                    throw invalid("a dictionary entry is not a UTF8String key and one value")
                }
                let keyText = String(key)
                guard dictionary[keyText] == nil else { throw invalid("the key \"\(keyText)\" appears twice in one dictionary") }
                dictionary.append(try value(valueNode), forKey: keyText)
            }
            return .dictionary(dictionary)
        default:
            throw invalid("a value is tagged \(node.identifier), which DER entitlements do not use")
        }
    }

    private static func invalid(_ detail: String) -> ProfileError {
        ProfileError(.entitlementsInvalid, "the DER entitlements are malformed: \(detail)")
    }
}
