import FormatSupport
/// A property-list document: its root object and the format it was read in.
///
/// `PropertyList(bytes:)` tells XML from binary by the first bytes and refuses other formats
/// (OpenStep text, JSON, `bplist1x`) with `PLIST_UNSUPPORTED_FORMAT`. `serialized()` writes the
/// document back in its own format, so a binary Info.plist stays binary, and an XML one keeps its
/// key order and Apple's layout: a one-key edit gives a one-key diff.
public struct PropertyList: Sendable {
    public enum Format: String, Sendable, Equatable, Codable {
        case xml
        case binary
    }

    public var root: PropertyListValue
    public var format: Format

    public init(root: PropertyListValue, format: Format) {
        self.root = root
        self.format = format
    }

    /// Reads an XML or `bplist00` property list.
    public init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) {
        let format = try PropertyList.detectFormat(bytes)
        switch format {
        case .binary:
            self.init(root: try BinaryPropertyList(bytes: bytes, limits: limits).root, format: .binary)
        case .xml:
            self.init(root: try XMLPropertyList(bytes: bytes, limits: limits).root, format: .xml)
        }
    }

    /// The document in its own format (XML is always written as UTF-8, whatever it was read as).
    public func serialized() throws(PropertyListError) -> [UInt8] {
        switch format {
        case .xml: try xmlData()
        case .binary: try binaryData()
        }
    }

    /// The document as XML in Apple's layout (keys in the model's order).
    public func xmlData() throws(PropertyListError) -> [UInt8] {
        try XMLPropertyListWriter.encode(root)
    }

    /// The document as `bplist00` (uniqued scalars, smallest widths).
    public func binaryData() throws(PropertyListError) -> [UInt8] {
        try BinaryPropertyListWriter.encode(root)
    }

    /// The format of `bytes`, judged by their start, or the reason they are not a supported plist.
    public static func detectFormat(_ bytes: [UInt8]) throws(PropertyListError) -> Format {
        let binaryMagic = Array("bplist".utf8)
        if bytes.starts(with: binaryMagic) {
            if bytes.starts(with: Array("bplist00".utf8)) { return .binary }
            let version = String(decoding: bytes.dropFirst(6).prefix(2), as: UTF8.self)
            throw PropertyListError(
                .unsupportedFormat, offset: 0,
                "binary property list version \"\(version)\" is not supported; only bplist00 is")
        }
        // UTF-16 and UTF-32 byte-order marks, and UTF-16 "<" without one: libxml2 decodes these.
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
            || bytes.starts(with: [0x00, 0x3C]) || bytes.starts(with: [0x3C, 0x00])
        {
            return .xml
        }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, isXMLWhitespace(bytes[index]) { index += 1 }
        guard index < bytes.count else {
            throw PropertyListError(.unsupportedFormat, "the file is empty")
        }
        switch bytes[index] {
        case UInt8(ascii: "<"):
            return .xml
        case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "\""), UInt8(ascii: "/"):
            throw PropertyListError(
                .unsupportedFormat,
                "this looks like an OpenStep (old-style text) or JSON property list; only XML and binary (bplist00) are supported")
        default:
            throw PropertyListError(
                .unsupportedFormat, "not a property list: neither XML nor binary (bplist00)")
        }
    }
}

/// Bounds that keep hostile property lists cheap to refuse.
public struct PropertyListLimits: Sendable, Equatable {
    /// Largest input accepted, in bytes.
    public var maximumSize: Int
    /// Deepest nesting accepted; the root object is at depth 1.
    ///
    /// 250 by default because libxml2, without `XML_PARSE_HUGE`, refuses XML nested deeper than
    /// 256 elements: with this limit every plist this toolkit reads can also be written as XML
    /// (value depth + `<plist>`) and read back.
    public var maximumDepth: Int
    /// Largest number of objects a binary plist may expand to when its shared references are
    /// followed, as a multiple of its size in bytes. Without shared collections a file expands to
    /// at most one object per reference, so fewer than its size; this stops exponential "DAG
    /// bombs" (arrays that hold the next array twice, sixty times over) and nothing legitimate.
    public var expansionFactor: Int
    /// The time limit of the work on the input the plist came from, checked per object.
    public var clock: WorkClock
    /// Refuse a dictionary that names a key twice (`PLIST_DUPLICATE_KEY`) instead of keeping the
    /// last value, as Core Foundation does. For entitlements: a parser that keeps the first and
    /// one that keeps the last would grant different things.
    public var refusesDuplicateKeys: Bool

    public init(
        maximumSize: Int = 64 * 1024 * 1024, maximumDepth: Int = 250, expansionFactor: Int = 8,
        clock: WorkClock = .unlimited, refusesDuplicateKeys: Bool = false
    ) {
        self.maximumSize = maximumSize
        self.maximumDepth = maximumDepth
        self.expansionFactor = expansionFactor
        self.clock = clock
        self.refusesDuplicateKeys = refusesDuplicateKeys
    }

    public static let `default` = PropertyListLimits()
}
