import FormatSupport

/// Why a property list could not be read or written.
///
/// Every malformed or hostile input yields one of these, never a crash. XML errors carry the line
/// they were found on; binary errors carry the byte offset of the object or table at fault.
public struct PropertyListError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        /// Neither XML nor `bplist00`: empty, OpenStep text, JSON, `bplist1x`, or unknown bytes.
        case unsupportedFormat = "PLIST_UNSUPPORTED_FORMAT"
        /// Larger than the configured size limit.
        case tooLarge = "PLIST_TOO_LARGE"
        /// Not well-formed XML (libxml2 refused it).
        case malformedXML = "PLIST_MALFORMED_XML"
        /// The XML declares an entity or refers to one that is not predefined; entities are how
        /// "billion laughs" and external-entity (XXE) attacks work, and property lists never need them.
        case xmlEntity = "PLIST_XML_ENTITY"
        /// Well-formed XML that is not a property list: an unknown element, a `<key>` without a
        /// value, a value without a `<key>`, text between elements, more than one root object.
        case xmlStructure = "PLIST_XML_STRUCTURE"
        /// The text of an `<integer>`, `<real>`, `<date>` or `<data>` cannot be read as one.
        case xmlValue = "PLIST_XML_VALUE"
        /// A value that XML 1.0 cannot carry, such as a string holding a control character.
        case xmlUnrepresentable = "PLIST_XML_UNREPRESENTABLE"
        /// The 32-byte trailer of a binary plist is inconsistent with the file.
        case binaryTrailer = "PLIST_BINARY_TRAILER"
        /// An entry of the offset table points outside the object area.
        case binaryOffset = "PLIST_BINARY_OFFSET"
        /// An object reference is not below the object count.
        case binaryReference = "PLIST_BINARY_REF"
        /// An object's marker is unknown or unsupported, its bytes run past the object area, or
        /// its content is invalid (a non-ASCII byte in an ASCII string, a dictionary key that is
        /// not a string, …).
        case binaryObject = "PLIST_BINARY_OBJECT"
        /// An object's element or byte count is larger than the file could hold.
        case binaryCount = "PLIST_BINARY_COUNT"
        /// An array or dictionary contains itself.
        case cycle = "PLIST_CYCLE"
        /// Nesting deeper than the depth limit.
        case tooDeep = "PLIST_TOO_DEEP"
        /// The document expands to more objects than the limit, e.g. a binary plist whose
        /// collections share children to multiply its size.
        case tooManyObjects = "PLIST_TOO_MANY_OBJECTS"
        /// The work on the input ran past `--time-limit` (the archive's `ARCHIVE_TIME_LIMIT`).
        case timeLimit = "ARCHIVE_TIME_LIMIT"
        /// A dictionary names one key twice, where the reader was asked to refuse that
        /// (`PropertyListLimits.refusesDuplicateKeys`): entitlements, where parsers that keep the
        /// first and parsers that keep the last would read different grants.
        case duplicateKey = "PLIST_DUPLICATE_KEY"
    }

    public let reason: Reason
    /// 1-based line in an XML document, when known.
    public let line: Int?
    /// Byte offset in a binary document, when known.
    public let offset: Int?
    /// One sentence saying what is wrong.
    public let message: String

    public init(_ reason: Reason, line: Int? = nil, offset: Int? = nil, _ message: String) {
        self.reason = reason
        self.line = line
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if reason == .timeLimit { return message }
        if let line, line > 0 { return "property list line \(line): \(message)" }
        if let offset { return "binary property list at byte \(offset): \(message)" }
        return "property list: \(message)"
    }
}
