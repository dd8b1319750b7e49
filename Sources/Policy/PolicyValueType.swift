/// The type of a policy's value (`PolicyType`), which decides what `PolicyDefault` may hold.
///
/// Values are always text, because that is what an app reads back from
/// `getValueOfPolicy:error:`; the type says which texts are meaningful.
public enum PolicyValueType: Sendable, Equatable, CustomStringConvertible {
    /// `true` or `false`.
    case boolean
    /// A decimal integer (`-12`, `0`, `168`), within the inclusive bounds when given.
    case integer(minimum: Int64?, maximum: Int64?)
    /// Any single-line text, including the empty text.
    case string
    /// One of the listed values, by identifier.
    case enumeration([PolicyEnumValue])
    /// Entries separated by `,`; the empty text is the empty list, and no entry is empty or
    /// starts or ends with whitespace.
    case stringList

    /// The `PolicyType` texts this toolkit knows, in the order error messages list them.
    public static let knownTypeNames = ["boolean", "integer", "string", "enum", "stringlist"]

    /// Longest value accepted, in Unicode scalars (the schema's limit on `PolicyDefault`).
    public static let maximumValueLength = 65536

    /// The `PolicyType` text of this type.
    public var typeName: String {
        switch self {
        case .boolean: "boolean"
        case .integer: "integer"
        case .string: "string"
        case .enumeration: "enum"
        case .stringList: "stringlist"
        }
    }

    /// The type with its constraints, for listings: `boolean`, `integer 1...8760`,
    /// `enum Unrestricted|Blocked|Restricted`, `stringlist`.
    public var description: String {
        switch self {
        case .integer(let minimum, let maximum) where minimum != nil || maximum != nil:
            return "integer " + (minimum.map(String.init) ?? "") + "..." + (maximum.map(String.init) ?? "")
        case .enumeration(let values):
            return "enum " + values.map(\.identifier).joined(separator: "|")
        default:
            return typeName
        }
    }

    /// The allowed values of an enum type, in their declared order; empty for other types.
    public var enumValues: [PolicyEnumValue] {
        if case .enumeration(let values) = self { return values }
        return []
    }

    /// Why `value` is not a value of this type, as a sentence fragment, or nil when it is one.
    public func problem(with value: String) -> String? {
        if value.unicodeScalars.count > PolicyValueType.maximumValueLength {
            return "the value is longer than \(PolicyValueType.maximumValueLength) characters"
        }
        if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the value contains the control character U+\(PolicyValueType.hex(control.value)); values are single-line text"
        }
        switch self {
        case .boolean:
            if value == "true" || value == "false" { return nil }
            return "'\(value)' is not a boolean; use true or false"
        case .integer(let minimum, let maximum):
            return PolicyValueType.integerProblem(value, minimum: minimum, maximum: maximum)
        case .string:
            return nil
        case .enumeration(let values):
            if values.contains(where: { $0.identifier == value }) { return nil }
            let identifiers = values.map(\.identifier)
            var message = "'\(value)' is not one of \(identifiers.joined(separator: ", "))"
            if let best = NameSuggestions.closest(to: value, among: identifiers).first {
                message += "; did you mean '\(best)'?"
            }
            return message
        case .stringList:
            guard !value.isEmpty else { return nil }
            for (index, entry) in value.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
                if entry.isEmpty {
                    return "entry \(index + 1) of the list is empty; separate entries with a single ',' and do not end with one"
                }
                if entry.first?.isWhitespace == true || entry.last?.isWhitespace == true {
                    return "entry \(index + 1) of the list, '\(entry)', starts or ends with whitespace; separate entries with ',' only"
                }
            }
            return nil
        }
    }

    private static func integerProblem(_ value: String, minimum: Int64?, maximum: Int64?) -> String? {
        let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
        let isCanonical = !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            && (digits == "0" || digits.first != "0") && value != "-0"
        guard isCanonical else {
            return "'\(value)' is not a decimal integer (digits with an optional leading '-', no leading zeros)"
        }
        guard let number = Int64(value) else {
            return "'\(value)' does not fit in a 64-bit integer"
        }
        if let minimum, number < minimum { return "\(number) is below the minimum of \(minimum)" }
        if let maximum, number > maximum { return "\(number) is above the maximum of \(maximum)" }
        return nil
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
