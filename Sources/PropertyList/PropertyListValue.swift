#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One property-list object.
///
/// Equality is exact, so a value that is read, written and read again compares equal to itself:
/// strings compare scalar by scalar (no Unicode normalization), reals and dates by bit pattern
/// (so NaN equals NaN and `0.0` differs from `-0.0`), integers by their 128-bit value, and
/// dictionaries by content regardless of key order.
public enum PropertyListValue: Sendable {
    case string(String)
    case integer(PropertyListInteger)
    case real(Double)
    case bool(Bool)
    case date(PropertyListDate)
    case data([UInt8])
    /// A keyed-archiver object reference (`CF$UID`); binary marker `0x8n`.
    case uid(UInt64)
    case array([PropertyListValue])
    case dictionary(PropertyListDictionary)

    /// A short name of the value's type, for messages: "string", "integer", "dictionary"…
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .uid: "UID"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

// MARK: - Lookups that never trap

extension PropertyListValue {
    /// The value for `key` when this is a dictionary; nil otherwise.
    ///
    /// Setting edits a dictionary in place (nil removes the key; a new key goes where
    /// `PropertyListDictionary.updateValue` puts it) and has no effect on other values, so nested
    /// edits read naturally: `info["CFBundleIcons"]?["CFBundlePrimaryIcon"]?["CFBundleIconName"] = "AppIcon"`.
    public subscript(key: String) -> PropertyListValue? {
        get {
            guard case .dictionary(let dictionary) = self else { return nil }
            return dictionary[key]
        }
        set {
            guard case .dictionary(var dictionary) = self else { return }
            // Release our reference first so the dictionary's storage is edited in place.
            self = .bool(false)
            dictionary[key] = newValue
            self = .dictionary(dictionary)
        }
    }

    /// The element at `index` when this is an array and the index is in range; nil otherwise.
    public subscript(index: Int) -> PropertyListValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The value reached by following dictionary keys, e.g.
    /// `info[path: "CFBundleIcons", "CFBundlePrimaryIcon", "CFBundleIconFiles"]`. Keys may contain
    /// dots (bundle identifiers do), which is why the path is a list rather than a dotted string.
    public subscript(path keys: String...) -> PropertyListValue? {
        value(atPath: keys)
    }

    /// A copy with the keys of every dictionary, at every level, in `CFStringCompare` order, as
    /// `plutil` and Xcode write them.
    public func sortingKeys() -> PropertyListValue {
        switch self {
        case .array(let elements):
            return .array(elements.map { $0.sortingKeys() })
        case .dictionary(let dictionary):
            let sorted = dictionary.sortedByKey()
            return .dictionary(PropertyListDictionary(keys: sorted.keys, values: sorted.values.map { $0.sortingKeys() }))
        default:
            return self
        }
    }

    /// The value reached by following `keys` through nested dictionaries.
    public func value(atPath keys: some Sequence<String>) -> PropertyListValue? {
        var current: PropertyListValue? = self
        for key in keys {
            current = current?[key]
        }
        return current
    }
}

// MARK: - Typed accessors

extension PropertyListValue {
    /// The string, when this is a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// An array of strings. A single string counts as a one-element array, because hand-edited
    /// Info.plists often write `CFBundleIconFiles` that way and iOS accepts it. Nil when this is
    /// neither, or when any element is not a string.
    public var stringArray: [String]? {
        switch self {
        case .string(let value):
            return [value]
        case .array(let elements):
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let value) = element else { return nil }
                strings.append(value)
            }
            return strings
        default:
            return nil
        }
    }

    /// The boolean, only when this is `<true/>` or `<false/>`.
    ///
    /// Strict on purpose: checks that decide security-relevant state (entitlements such as
    /// `get-task-allow`) must not read the string "YES" as true when the OS does not. Use
    /// `lenientBool` for Info.plist keys that iOS itself reads through `-boolValue`.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// A boolean read the way iOS reads many Info.plist flags (`-[NSString boolValue]`,
    /// `-[NSNumber boolValue]`): booleans; integers (non-zero is true); and the strings
    /// "YES"/"NO", "true"/"false", "1"/"0" in any case, trimmed. Any other value gives nil rather
    /// than a guess.
    public var lenientBool: Bool? {
        switch self {
        case .bool(let value):
            return value
        case .integer(let value):
            return value != PropertyListInteger(0)
        case .string(let text):
            switch text.trimmingXMLWhitespace().lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The integer, when this is an integer.
    public var integer: PropertyListInteger? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer as `Int`, when this is an integer that fits.
    public var int: Int? {
        integer?.int
    }

    /// The real, when this is a real.
    public var real: Double? {
        if case .real(let value) = self { return value }
        return nil
    }

    /// A number from an integer or a real (integers beyond 2^53 lose precision).
    public var number: Double? {
        switch self {
        case .real(let value):
            return value
        case .integer(let value):
            if let exact = value.int64 { return Double(exact) }
            if let unsigned = value.uint64 { return Double(unsigned) }
            return Double(value.high) * 18_446_744_073_709_551_616.0 + Double(value.low)
        default:
            return nil
        }
    }

    public var date: PropertyListDate? {
        if case .date(let value) = self { return value }
        return nil
    }

    public var data: [UInt8]? {
        if case .data(let value) = self { return value }
        return nil
    }

    public var uid: UInt64? {
        if case .uid(let value) = self { return value }
        return nil
    }

    public var array: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var dictionary: PropertyListDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// A version such as `CFBundleVersion` or `CFBundleShortVersionString`: a string as written,
    /// or an `<integer>`/`<real>` turned into text the way iOS shows it (`1`, `2.5`), since
    /// hand-edited plists often use numbers here. Nil for other types.
    public var versionString: String? {
        switch self {
        case .string(let value): return value
        case .integer(let value): return value.description
        case .real(let value): return shortestReal(value)
        default: return nil
        }
    }
}

// MARK: - Description

extension PropertyListValue: CustomStringConvertible {
    /// A compact, JSON-like rendering for messages and test failures (data as a byte count,
    /// long strings and collections elided).
    public var description: String {
        switch self {
        case .string(let value):
            let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
            return "\"" + shown.replacingOccurrences("\"", with: "\\\"") + "\""
        case .integer(let value): return value.description
        case .real(let value): return shortestReal(value)
        case .bool(let value): return value ? "true" : "false"
        case .date(let value): return value.iso8601
        case .data(let value): return "<\(value.count) bytes>"
        case .uid(let value): return "UID(\(value))"
        case .array(let elements):
            let shown = elements.prefix(20).map(\.description).joined(separator: ", ")
            return "[" + shown + (elements.count > 20 ? ", … \(elements.count - 20) more" : "") + "]"
        case .dictionary(let dictionary):
            return dictionary.description
        }
    }
}

extension PropertyListDictionary: CustomStringConvertible {
    public var description: String {
        let shown = self.prefix(20).map { "\(PropertyListValue.string($0.key)): \($0.value)" }.joined(separator: ", ")
        return "{" + shown + (count > 20 ? ", … \(count - 20) more" : "") + "}"
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

// MARK: - Equality

extension PropertyListValue: Hashable {
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let left), .string(let right)): exactlyEqual(left, right)
        case (.integer(let left), .integer(let right)): left == right
        case (.real(let left), .real(let right)): left.bitPattern == right.bitPattern
        case (.bool(let left), .bool(let right)): left == right
        case (.date(let left), .date(let right)): left == right
        case (.data(let left), .data(let right)): left == right
        case (.uid(let left), .uid(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.dictionary(let left), .dictionary(let right)): left == right
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(ExactString(value))
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value.bitPattern)
        case .bool(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .date(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .data(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .uid(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(7 as UInt8)
            hasher.combine(value)
        case .dictionary(let value):
            hasher.combine(8 as UInt8)
            hasher.combine(value)
        }
    }
}

// MARK: - Literals, for building plists in code

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(PropertyListDictionary(elements))
    }
}

// MARK: - Helpers shared by readers and writers

extension String {
    func trimmingXMLWhitespace() -> Substring {
        let utf8 = self.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, isXMLWhitespace(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isXMLWhitespace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return self[start..<end]
    }
}

/// The shortest decimal that reads back to the same double, without a trailing `.0`, as iOS shows
/// a number (`1`, `2.5`).
func shortestReal(_ value: Double) -> String {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
}

/// A real as Core Foundation writes `<real>` (`__CFNumberCopyFormattingDescriptionAsFloat64`):
/// `nan`, `+infinity`, `-infinity`, `0.0`, `-0.0`, otherwise `%.17g`, which always reads back to
/// the same double. Matching it keeps Apple-written files byte-identical when rewritten.
func formatReal(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
    if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
    var buffer = [CChar](repeating: 0, count: 48)
    let written = buffer.withUnsafeMutableBufferPointer { pointer -> Int32 in
        guard let base = pointer.baseAddress else { return 0 }
        return withVaList([value]) { vsnprintf(base, pointer.count, "%.17g", $0) }
    }
    guard written > 0, Int(written) < buffer.count else { return shortestReal(value) }
    // The C locale's decimal point is '.'; guard against a process that changed LC_NUMERIC.
    let bytes = buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) == UInt8(ascii: ",") ? UInt8(ascii: ".") : UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
