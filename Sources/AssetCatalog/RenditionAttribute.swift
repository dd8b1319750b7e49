import FormatSupport

/// One dimension of a rendition key (CoreUI's theme attributes): which asset, at which scale, for
/// which device idiom, appearance, size class, and so on.
public struct RenditionAttribute: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let themeLook = Self(rawValue: 0)
    public static let element = Self(rawValue: 1)
    public static let part = Self(rawValue: 2)
    public static let size = Self(rawValue: 3)
    public static let direction = Self(rawValue: 4)
    public static let placeholder = Self(rawValue: 5)
    public static let value = Self(rawValue: 6)
    /// Light or dark appearance (0 is the default, "any").
    public static let appearance = Self(rawValue: 7)
    public static let dimension1 = Self(rawValue: 8)
    public static let dimension2 = Self(rawValue: 9)
    public static let state = Self(rawValue: 10)
    public static let layer = Self(rawValue: 11)
    /// Scale factor: 1, 2 or 3 (0 for scale-independent renditions such as PDFs).
    public static let scale = Self(rawValue: 12)
    public static let localization = Self(rawValue: 13)
    public static let presentationState = Self(rawValue: 14)
    /// Device family; see `RenditionIdiom`.
    public static let idiom = Self(rawValue: 15)
    /// Device subtype, e.g. 568 for 4-inch iPhones (0 for all).
    public static let subtype = Self(rawValue: 16)
    /// Links renditions to their facet (`FACETKEYS`).
    public static let identifier = Self(rawValue: 17)
    public static let previousValue = Self(rawValue: 18)
    public static let previousState = Self(rawValue: 19)
    public static let horizontalSizeClass = Self(rawValue: 20)
    public static let verticalSizeClass = Self(rawValue: 21)
    public static let memoryClass = Self(rawValue: 22)
    public static let graphicsClass = Self(rawValue: 23)
    public static let displayGamut = Self(rawValue: 24)
    public static let deploymentTarget = Self(rawValue: 25)
    public static let glyphWeight = Self(rawValue: 26)
    public static let glyphSize = Self(rawValue: 27)

    private static let names: [UInt16: String] = [
        0: "themeLook", 1: "element", 2: "part", 3: "size", 4: "direction", 5: "placeholder", 6: "value",
        7: "appearance", 8: "dimension1", 9: "dimension2", 10: "state", 11: "layer", 12: "scale",
        13: "localization", 14: "presentationState", 15: "idiom", 16: "subtype", 17: "identifier",
        18: "previousValue", 19: "previousState", 20: "horizontalSizeClass", 21: "verticalSizeClass",
        22: "memoryClass", 23: "graphicsClass", 24: "displayGamut", 25: "deploymentTarget",
        26: "glyphWeight", 27: "glyphSize",
    ]

    public var description: String { Self.names[rawValue] ?? "attribute\(rawValue)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The device family a rendition is for (the value of the `idiom` attribute).
public enum RenditionIdiom: UInt16, Sendable, CaseIterable, CustomStringConvertible {
    case universal = 0
    case phone = 1
    case pad = 2
    case tv = 3
    case carPlay = 4
    case watch = 5
    /// App Store artwork (the 1024×1024 `ios-marketing` icon).
    case marketing = 6

    public var description: String {
        switch self {
        case .universal: "universal"
        case .phone: "phone"
        case .pad: "pad"
        case .tv: "tv"
        case .carPlay: "carplay"
        case .watch: "watch"
        case .marketing: "marketing"
        }
    }
}

/// `KEYFORMAT` (magic `kfmt`, `tmfk` on disk): the attributes every rendition key lists, in order.
public struct RenditionKeyFormat: Sendable, Equatable {
    public let attributes: [RenditionAttribute]

    public init(attributes: [RenditionAttribute]) {
        self.attributes = attributes
    }

    public init(_ block: ByteReader) throws(AssetCatalogError) {
        var reader = block
        let attributes = try reading(.invalidHeader, "KEYFORMAT") { () throws(OutOfBoundsError) -> [RenditionAttribute]? in
            guard try reader.readBytes(4).elementsEqual("tmfk".utf8) else { return nil }
            _ = try reader.readUInt32(.little)  // reserved
            let count = Int(try reader.readUInt32(.little))
            guard count <= reader.remaining / 4 else {
                throw OutOfBoundsError(offset: reader.position, length: count * 4, size: reader.upperBound)
            }
            var attributes: [RenditionAttribute] = []
            for _ in 0..<count {
                let value = try reader.readUInt32(.little)
                attributes.append(RenditionAttribute(rawValue: UInt16(truncatingIfNeeded: value)))
            }
            return attributes
        }
        guard let attributes else {
            throw AssetCatalogError(.invalidHeader, "KEYFORMAT does not start with the kfmt magic")
        }
        guard !attributes.isEmpty, Set(attributes).count == attributes.count else {
            throw AssetCatalogError(.invalidHeader, "KEYFORMAT lists no attributes, or one attribute twice")
        }
        self.attributes = attributes
    }
}

/// A rendition's key: one value per attribute of the key format.
public struct RenditionKey: Hashable, Sendable, CustomStringConvertible {
    public let format: [RenditionAttribute]
    public let values: [UInt16]

    public init(format: [RenditionAttribute], values: [UInt16]) {
        self.format = format
        self.values = values
    }

    /// The value of `attribute`, or nil when the key format does not have it.
    public subscript(attribute: RenditionAttribute) -> UInt16? {
        guard let index = format.firstIndex(of: attribute), index < values.count else { return nil }
        return values[index]
    }

    /// The non-zero attributes, e.g. `element=85 part=220 idiom=1 scale=2 identifier=6849`.
    public var description: String {
        zip(format, values).filter { $0.1 != 0 }.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }
}

/// A named asset (`FACETKEYS`): an image set, icon set, data set or color, whose renditions share its
/// `identifier` attribute.
public struct Facet: Sendable, Equatable {
    /// The name in the asset catalog, e.g. `AppIcon`.
    public let name: String
    /// Cursor hot spot (macOS cursors only).
    public let hotSpot: (x: UInt16, y: UInt16)
    /// The facet's attributes in file order.
    public let attributes: [(attribute: RenditionAttribute, value: UInt16)]

    /// Links the facet to its renditions.
    public var identifier: UInt16? { attributes.first { $0.attribute == .identifier }?.value }

    public subscript(attribute: RenditionAttribute) -> UInt16? {
        attributes.first { $0.attribute == attribute }?.value
    }

    public static func == (lhs: Facet, rhs: Facet) -> Bool {
        lhs.name == rhs.name && lhs.hotSpot == rhs.hotSpot
            && lhs.attributes.elementsEqual(rhs.attributes) { $0.attribute == $1.attribute && $0.value == $1.value }
    }

    init(name: String, value block: ByteReader) throws(AssetCatalogError) {
        var reader = block
        let parsed = try reading(.invalidHeader, "the attributes of facet \"\(name)\"") { () throws(OutOfBoundsError) in
            let x = try reader.readUInt16(.little)
            let y = try reader.readUInt16(.little)
            let count = Int(try reader.readUInt16(.little))
            guard count <= reader.remaining / 4 else {
                throw OutOfBoundsError(offset: reader.position, length: count * 4, size: reader.upperBound)
            }
            var attributes: [(attribute: RenditionAttribute, value: UInt16)] = []
            for _ in 0..<count {
                let attribute = RenditionAttribute(rawValue: try reader.readUInt16(.little))
                attributes.append((attribute, try reader.readUInt16(.little)))
            }
            return (x, y, attributes)
        }
        self.name = name
        self.hotSpot = (parsed.0, parsed.1)
        self.attributes = parsed.2
    }
}
