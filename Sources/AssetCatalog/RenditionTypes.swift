/// A four-character code as CoreUI stores it: a little-endian `UInt32` whose big-endian bytes spell
/// the code, so `ARGB` appears as `BGRA` in the file.
public struct FourCharacterCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ code: String) {
        var value: UInt32 = 0
        for byte in code.utf8.prefix(4) { value = value << 8 | UInt32(byte) }
        self.rawValue = value
    }

    /// The code with trailing spaces removed (`GA8 ` reads `GA8`); unprintable codes in hex.
    public var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> UInt32($0)) }
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            return "0x" + String(rawValue, radix: 16)
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}

/// What a rendition's pixels or data are: `ARGB` (premultiplied BGRA8), `GA8` (premultiplied gray
/// and alpha), `RGB5`, `RGBW` and `GA16` (deep color), or a stored file (`JPEG`, `HEIF`, `PDF `,
/// `DATA`). Zero for renditions without pixels (links, colors).
public typealias PixelFormat = FourCharacterCode

extension FourCharacterCode {
    public static let argb = FourCharacterCode("ARGB")
    public static let ga8 = FourCharacterCode("GA8 ")
    public static let rgb555 = FourCharacterCode("RGB5")
    public static let argb16 = FourCharacterCode("RGBW")
    public static let ga16 = FourCharacterCode("GA16")
    public static let jpeg = FourCharacterCode("JPEG")
    public static let heif = FourCharacterCode("HEIF")
    public static let pdf = FourCharacterCode("PDF ")
    public static let data = FourCharacterCode("DATA")
}

/// How a rendition is laid out: bitmap slicing (below 1000) or a non-bitmap kind (1000 and above).
public struct RenditionLayout: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let onePartFixedSize = Self(rawValue: 10)
    public static let onePartScale = Self(rawValue: 12)
    public static let rawData = Self(rawValue: 1000)
    public static let externalLink = Self(rawValue: 1001)
    public static let layerStack = Self(rawValue: 1002)
    public static let internalLink = Self(rawValue: 1003)
    /// A packed image: many small bitmaps in one atlas, reached through internal links.
    public static let packedImage = Self(rawValue: 1004)
    public static let nameList = Self(rawValue: 1005)
    public static let texture = Self(rawValue: 1007)
    public static let textureImage = Self(rawValue: 1008)
    public static let color = Self(rawValue: 1009)
    /// The size list of an icon set (`MSIS`), no pixels of its own.
    public static let multisizeImageSet = Self(rawValue: 1010)

    private static let names: [UInt16: String] = [
        6: "gradient", 7: "effect", 9: "vector",
        10: "one-part fixed", 11: "one-part tile", 12: "one-part scale",
        20: "three-part horizontal tile", 21: "three-part horizontal scale", 22: "three-part horizontal uniform",
        23: "three-part vertical tile", 24: "three-part vertical scale", 25: "three-part vertical uniform",
        30: "nine-part tile", 31: "nine-part scale", 32: "nine-part horizontal uniform vertical scale",
        33: "nine-part horizontal scale vertical uniform", 34: "nine-part edges only", 40: "six-part",
        50: "animation filmstrip",
        1000: "raw data", 1001: "external link", 1002: "layer stack", 1003: "internal link", 1004: "packed image",
        1005: "name list", 1006: "add object", 1007: "texture", 1008: "texture image", 1009: "color",
        1010: "multisize image set", 1012: "layer reference", 1013: "content rendition", 1014: "recognition object",
    ]

    public var description: String { Self.names[rawValue] ?? "layout \(rawValue)" }
}

/// How a bitmap's pixel data is compressed (the encoding field of its `CELM` header).
public struct RenditionCompression: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let uncompressed = Self(rawValue: 0)
    public static let rle = Self(rawValue: 1)
    /// zlib or gzip (CoreUI calls it "zip").
    public static let zip = Self(rawValue: 2)
    public static let lzvn = Self(rawValue: 3)
    public static let lzfse = Self(rawValue: 4)
    public static let jpegLZFSE = Self(rawValue: 5)
    public static let blurred = Self(rawValue: 6)
    public static let astc = Self(rawValue: 7)
    public static let paletteImage = Self(rawValue: 8)
    // CoreUI's own names for 9 to 11 differ between sources (Timac lists 9 as deepmap-lzfse, later
    // readers 9 hevc, 10 deepmap, 11 deepmap2); none of them is decoded, so only the label depends on it.
    public static let hevc = Self(rawValue: 9)
    public static let deepmap = Self(rawValue: 10)
    public static let deepmap2 = Self(rawValue: 11)

    /// Whether `AssetCatalog.image(for:)` decodes it. RLE's layout is not documented anywhere we trust,
    /// and the others are proprietary or lossy formats: they are reported, never guessed at.
    public var isExtractable: Bool { rawValue <= 4 && rawValue != 1 }

    public var description: String {
        switch rawValue {
        case 0: "uncompressed"
        case 1: "rle"
        case 2: "zip"
        case 3: "lzvn"
        case 4: "lzfse"
        case 5: "jpeg-lzfse"
        case 6: "blurred"
        case 7: "astc"
        case 8: "palette-img"
        case 9: "hevc"
        case 10: "deepmap"
        case 11: "deepmap2"
        default: "compression \(rawValue)"
        }
    }
}

/// What follows a rendition's CSI header and resources.
public enum RenditionContent: Sendable, Equatable {
    /// A `CELM` bitmap: compressed rows, in one piece or in `KCBC` bands of rows.
    case bitmap(compression: RenditionCompression, banded: Bool, opaque: Bool)
    /// A `RAWD` blob: a stored file (PDF, JPEG, HEIF, PNG, or a data set's bytes). `format` is sniffed
    /// from its first bytes (`PNG`, `JPEG`, `PDF`, `HEIF`, `GIF`, `TIFF`), nil if none matches.
    case rawData(byteCount: Int, format: String?)
    /// An internal link (`INLK` resource): the pixels are a frame of another rendition.
    case internalLink(InternalLink)
    /// Another structure, named by its tag (`COLR` color, `MSIS` icon size list, `TXTR` texture, …).
    case other(tag: FourCharacterCode)
    /// No data follows the header.
    case empty
}

/// Where an internal link's pixels are: a frame of the rendition whose key the link lists.
public struct InternalLink: Sendable, Equatable {
    /// Frame in the target's pixels, with CoreUI's bottom-left origin.
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int
    /// Layout of the linked image (e.g. one-part scale, or raw data for data links).
    public let layout: RenditionLayout
    /// The attributes that identify the target; attributes not listed are zero.
    public let target: [(attribute: RenditionAttribute, value: UInt16)]

    public static func == (lhs: InternalLink, rhs: InternalLink) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.width == rhs.width && lhs.height == rhs.height
            && lhs.layout == rhs.layout
            && lhs.target.elementsEqual(rhs.target) { $0.attribute == $1.attribute && $0.value == $1.value }
    }

    /// The target's full key in `format` order, or nil when the link names an attribute the format
    /// does not have, or one attribute twice.
    public func targetKey(in format: [RenditionAttribute]) -> RenditionKey? {
        var values = [UInt16](repeating: 0, count: format.count)
        var seen: Set<RenditionAttribute> = []
        for (attribute, value) in target {
            guard let index = format.firstIndex(of: attribute), seen.insert(attribute).inserted else { return nil }
            values[index] = value
        }
        return RenditionKey(format: format, values: values)
    }
}
