import Foundation
import PropertyList

/// Foundation's `PropertyListSerialization` (CoreFoundation's CFPropertyList.c and
/// CFBinaryPList.c on Linux) as an independent reader and writer to compare against.
enum FoundationOracle {
    struct Unconvertible: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses with Foundation and converts the result to our model.
    static func parse(_ bytes: [UInt8]) throws -> (PropertyListValue, PropertyListSerialization.PropertyListFormat) {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
        return (try value(object), format)
    }

    /// Writes `value` with Foundation in `format`.
    static func write(_ value: PropertyListValue, format: PropertyListSerialization.PropertyListFormat) throws -> [UInt8] {
        [UInt8](try PropertyListSerialization.data(fromPropertyList: object(value), format: format, options: 0))
    }

    static func value(_ object: Any) throws -> PropertyListValue {
        if type(of: object) == Bool.self, let flag = object as? Bool {
            return .bool(flag)
        }
        if let string = object as? String {
            return .string(string)
        }
        if let number = object as? NSNumber {
            switch String(cString: number.objCType) {
            case "c", "B":
                return .bool(number.boolValue)
            case "f", "d":
                return .real(number.doubleValue)
            case "Q", "I", "L", "S", "C":
                return .integer(PropertyListInteger(number.uint64Value))
            default:
                return .integer(PropertyListInteger(number.int64Value))
            }
        }
        if let date = object as? Date {
            return .date(PropertyListDate(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        }
        if let data = object as? Data {
            return .data([UInt8](data))
        }
        if let array = object as? [Any] {
            return .array(try array.map(value))
        }
        if let dictionary = object as? [AnyHashable: Any] {
            var result = PropertyListDictionary()
            for (key, element) in dictionary {
                guard let key = key.base as? String else { throw Unconvertible(description: "non-string key \(key)") }
                result.append(try value(element), forKey: key)
            }
            return .dictionary(result)
        }
        throw Unconvertible(description: "unexpected Foundation type \(type(of: object))")
    }

    static func object(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let string): return string
        case .integer(let integer):
            if let signed = integer.int64 { return NSNumber(value: signed) }
            return NSNumber(value: integer.uint64 ?? 0)
        case .real(let real): return NSNumber(value: real)
        case .bool(let flag): return flag
        case .date(let date): return Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
        case .data(let bytes): return Data(bytes)
        case .uid(let uid): return NSNumber(value: uid)
        case .array(let elements): return elements.map(object)
        case .dictionary(let dictionary):
            var result: [String: Any] = [:]
            for (key, element) in dictionary { result[key] = object(element) }
            return result
        }
    }
}

/// A small deterministic generator (SplitMix64), so every run builds the same documents.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Random documents with every type and awkward content: markup characters, CR, astral
/// characters, extreme integers, whole-second dates (XML keeps only seconds).
enum RandomPlist {
    static let pieces = ["a", "Z", "<", ">", "&", "\"", "'", " ", "\t", "\n", "\r", "é", "e\u{301}", "K", "\u{212A}",
                         "日本", "😀", "]]>", "&amp;", "CF$UID", "ß", "\u{FEFF}"]

    /// Keys leave out canonically equivalent spellings: Foundation hands dictionaries to Swift as
    /// `[AnyHashable: Any]`, where "K" and the Kelvin sign would collide.
    /// "CF$UID" is left out too: a dictionary whose only key is CF$UID with an integer value is
    /// how XML spells a UID, so it cannot round-trip as a dictionary.
    static let keyPieces = pieces.filter { $0 != "e\u{301}" && $0 != "\u{212A}" && $0 != "CF$UID" }

    static func string(_ random: inout SeededGenerator, from pieces: [String] = pieces) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            text += pieces.randomElement(using: &random) ?? ""
        }
        return text
    }

    static func integer(_ random: inout SeededGenerator) -> PropertyListInteger {
        switch Int.random(in: 0...5, using: &random) {
        case 0: return PropertyListInteger(Int64.random(in: 0...255, using: &random))
        case 1: return PropertyListInteger(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 2: return PropertyListInteger(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &random))
        case 3: return PropertyListInteger([Int64.min, Int64.max, -1, 0, 255, 256, 65_535, 65_536].randomElement(using: &random) ?? 0)
        case 4: return PropertyListInteger(Int64.random(in: -70_000...70_000, using: &random))
        default: return PropertyListInteger(UInt64.max)
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> PropertyListValue {
        let kind = Int.random(in: depth > 4 ? 0...6 : 0...8, using: &random)
        switch kind {
        case 0: return .string(string(&random))
        case 1: return .integer(integer(&random))
        case 2:
            var real = Double(bitPattern: random.next())
            if !real.isFinite || real == 0 { real = Double.random(in: -1e6...1e6, using: &random) }
            return .real(real)
        case 3: return .bool(Bool.random(using: &random))
        case 4: return .date(PropertyListDate(secondsSinceReferenceDate: Double(Int64.random(in: -3_000_000_000...3_000_000_000, using: &random))))
        case 5: return .data((0..<Int.random(in: 0...80, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 6: return .string(String(repeating: "x", count: Int.random(in: 14...17, using: &random)))
        case 7: return .array((0..<Int.random(in: 0...20, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var dictionary = PropertyListDictionary()
            for _ in 0..<Int.random(in: 0...20, using: &random) {
                dictionary.append(value(&random, depth: depth + 1), forKey: string(&random, from: keyPieces))
            }
            return .dictionary(dictionary)
        }
    }
}
