import FormatSupport

/// Why a property list could not be read or written.
///
/// Every malformed or hostile input yields one of these, never a crash. XML errors carry the line
/// they were found on; binary errors carry the byte offset of the object or table at fault.
public struct PropertyListError: CodedError, Equatable {
    public enum Kind: Sendable, Equatable, CaseIterable {
        /// Neither XML nor `bplist00`: empty, OpenStep text, JSON, `bplist1x`, or unknown bytes.
        case unsupportedFormat
        /// Larger than the configured size limit.
        case tooLarge
        /// Not well-formed XML (libxml2 refused it).
        case malformedXML
        /// The XML declares an entity or refers to one that is not predefined; entities are how
        /// "billion laughs" and external-entity (XXE) attacks work, and property lists never need them.
        case xmlEntity
        /// Well-formed XML that is not a property list: an unknown element, a `<key>` without a
        /// value, a value without a `<key>`, text between elements, more than one root object.
        case xmlStructure
        /// The text of an `<integer>`, `<real>`, `<date>` or `<data>` cannot be read as one.
        case xmlValue
        /// A value that XML 1.0 cannot carry, such as a string holding a control character.
        case xmlUnrepresentable
        /// The 32-byte trailer of a binary plist is inconsistent with the file.
        case binaryTrailer
        /// An entry of the offset table points outside the object area.
        case binaryOffset
        /// An object reference is not below the object count.
        case binaryReference
        /// An object's marker is unknown or unsupported, its bytes run past the object area, or
        /// its content is invalid (a non-ASCII byte in an ASCII string, a dictionary key that is
        /// not a string, …).
        case binaryObject
        /// An object's element or byte count is larger than the file could hold.
        case binaryCount
        /// An array or dictionary contains itself.
        case cycle
        /// Nesting deeper than the depth limit.
        case tooDeep
        /// The document expands to more objects than the limit, e.g. a binary plist whose
        /// collections share children to multiply its size.
        case tooManyObjects
        /// The work on the input ran past `--time-limit` (the archive's `ARCHIVE_TIME_LIMIT`).
        case timeLimit
        /// A dictionary names one key twice, where the reader was asked to refuse that
        /// (`PropertyListLimits.refusesDuplicateKeys`): entitlements, where parsers that keep the
        /// first and parsers that keep the last would read different grants.
        case duplicateKey
    }

    public let kind: Kind
    /// 1-based line in an XML document, when known.
    public let line: Int?
    /// Byte offset in a binary document, when known.
    public let offset: Int?
    /// One sentence saying what is wrong.
    public let message: String

    public init(_ kind: Kind, line: Int? = nil, offset: Int? = nil, _ message: String) {
        self.kind = kind
        self.line = line
        self.offset = offset
        self.message = message
    }

    public var code: String {
        switch kind {
        case .unsupportedFormat: "PLIST_UNSUPPORTED_FORMAT"
        case .tooLarge: "PLIST_TOO_LARGE"
        case .malformedXML: "PLIST_MALFORMED_XML"
        case .xmlEntity: "PLIST_XML_ENTITY"
        case .xmlStructure: "PLIST_XML_STRUCTURE"
        case .xmlValue: "PLIST_XML_VALUE"
        case .xmlUnrepresentable: "PLIST_XML_UNREPRESENTABLE"
        case .binaryTrailer: "PLIST_BINARY_TRAILER"
        case .binaryOffset: "PLIST_BINARY_OFFSET"
        case .binaryReference: "PLIST_BINARY_REF"
        case .binaryObject: "PLIST_BINARY_OBJECT"
        case .binaryCount: "PLIST_BINARY_COUNT"
        case .cycle: "PLIST_CYCLE"
        case .tooDeep: "PLIST_TOO_DEEP"
        case .tooManyObjects: "PLIST_TOO_MANY_OBJECTS"
        case .timeLimit: WorkClock.timeLimitCode
        case .duplicateKey: "PLIST_DUPLICATE_KEY"
        }
    }

    public var category: ErrorCategory { .invalidInput }

    public var description: String {
        if kind == .timeLimit { return message }
        if let line, line > 0 { return "property list line \(line): \(message)" }
        if let offset { return "binary property list at byte \(offset): \(message)" }
        return "property list: \(message)"
    }
}
