import FormatSupport

/// One variant of a facet: a bitmap, stored file or link for one combination of scale, idiom,
/// appearance and so on (`RENDITIONS`).
///
/// Its value in the tree is a CSI header (magic `CTSI`, `ISTC` on disk, 184 bytes with the usual one
/// bitmap-list entry), a list of tagged resources, then the rendition data. All little-endian.
public struct Rendition: Sendable {
    public let key: RenditionKey
    /// The source file name Xcode recorded, e.g. `AppIcon60x60@2x.png`.
    public let name: String
    public let version: UInt32
    /// CSI flags (vector-based, opaque, …) as stored.
    public let flags: UInt32
    /// Size in pixels.
    public let width: Int
    public let height: Int
    /// Scale factor times 100 (200 for @2x; 0 for scale-independent renditions).
    public let scaleFactor: Int
    public let pixelFormat: PixelFormat
    /// Color space: 0 sRGB, 1 generic gray, 2 Display P3, … (low four bits of the field).
    public let colorSpaceID: Int
    public let layout: RenditionLayout
    public let content: RenditionContent
    /// Row stride of the decoded pixels, from the bytes-per-row resource (1007) when present.
    public let bytesPerRow: Int?
    /// Tags of the resources between header and data (1001 slices, 1003 metrics, 1007 bytes per row,
    /// 1010 internal link, …).
    public let resourceTags: [UInt32]
    /// Bytes of the rendition's value in the tree: header, resources and data.
    public let byteSize: Int
    /// Where the rendition data lies in the catalog file.
    let dataRange: Range<Int>

    /// Scale as a number: 1, 2, 3 (0 when scale-independent).
    public var scale: Double { Double(scaleFactor) / 100 }
    /// The compression of a bitmap's pixels; nil for anything else.
    public let compression: RenditionCompression?
    /// Where an internal link's pixels are; nil for anything else.
    public let internalLink: InternalLink?
    public var idiom: UInt16 { key[.idiom] ?? 0 }
    public var identifier: UInt16? { key[.identifier] }
    public var appearance: UInt16 { key[.appearance] ?? 0 }
    /// Pixel count, for choosing the largest rendition (saturating: the dimensions come from the file).
    public var area: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    static let resourceBytesPerRow: UInt32 = 1007
    static let resourceInternalLink: UInt32 = 1010

    init(key: RenditionKey, value block: ByteReader) throws(AssetCatalogError) {
        let start = block.lowerBound
        let label = "the rendition with key \(key)"
        let header = try reading(.invalidRendition, "the CSI header of \(label)") { () throws(OutOfBoundsError) in
            (
                magic: Array(try block.bytes(at: start, count: 4)),
                version: try block.uint32(at: start + 4, .little),
                flags: try block.uint32(at: start + 8, .little),
                width: Int(try block.uint32(at: start + 12, .little)),
                height: Int(try block.uint32(at: start + 16, .little)),
                scale: Int(try block.uint32(at: start + 20, .little)),
                pixelFormat: try block.uint32(at: start + 24, .little),
                colorSpace: Int(try block.uint32(at: start + 28, .little) & 0xF),
                layout: try block.uint16(at: start + 36, .little),
                name: try block.nulTerminatedField(at: start + 40, size: 128),
                resourcesLength: Int(try block.uint32(at: start + 168, .little)),
                bitmapCount: Int(try block.uint32(at: start + 172, .little))
            )
        }
        guard header.magic == Array("ISTC".utf8) else {
            throw AssetCatalogError(.invalidRendition, "\(label) does not start with the CTSI magic")
        }
        // The bitmap list: a count, one length per bitmap, then the rendition data length.
        guard header.bitmapCount <= 64 else {
            throw AssetCatalogError(.invalidRendition, "\(label) lists \(header.bitmapCount) bitmaps")
        }
        let lengthOffset = start + 176 + 4 * header.bitmapCount
        let dataLength = try reading(.invalidRendition, "the CSI header of \(label)") { () throws(OutOfBoundsError) in
            Int(try block.uint32(at: lengthOffset, .little))
        }
        let resourcesStart = lengthOffset + 4
        guard header.resourcesLength <= block.upperBound - resourcesStart,
            dataLength <= block.upperBound - resourcesStart - header.resourcesLength
        else {
            throw AssetCatalogError(
                .invalidRendition,
                "\(label) declares \(header.resourcesLength) bytes of resources and \(dataLength) of data, "
                    + "more than the \(block.upperBound - resourcesStart) bytes after its header")
        }
        let dataStart = resourcesStart + header.resourcesLength

        // Resources: (tag, length, bytes) up to the declared length.
        var resources = try reading(.invalidRendition, "the resources of \(label)") { () throws(OutOfBoundsError) in
            try block.window(offset: resourcesStart, length: header.resourcesLength)
        }
        var tags: [UInt32] = []
        var bytesPerRow: Int? = nil
        var link: InternalLink? = nil
        while !resources.isAtEnd {
            let (tag, body) = try reading(.invalidRendition, "a resource of \(label)") { () throws(OutOfBoundsError) in
                let tag = try resources.readUInt32(.little)
                let length = Int(try resources.readUInt32(.little))
                let body = try resources.window(offset: resources.position, length: length)
                try resources.skip(length)
                return (tag, body)
            }
            tags.append(tag)
            switch tag {
            case Self.resourceBytesPerRow:
                bytesPerRow = (try? body.uint32(at: body.lowerBound, .little)).map(Int.init)
            case Self.resourceInternalLink:
                link = try Self.internalLink(body, label: label)
            default:
                break
            }
        }

        self.key = key
        self.name = String(decoding: header.name, as: UTF8.self)
        self.version = header.version
        self.flags = header.flags
        self.width = header.width
        self.height = header.height
        self.scaleFactor = header.scale
        self.pixelFormat = PixelFormat(rawValue: header.pixelFormat)
        self.colorSpaceID = header.colorSpace
        self.layout = RenditionLayout(rawValue: header.layout)
        self.bytesPerRow = bytesPerRow
        self.resourceTags = tags
        self.byteSize = block.count
        self.dataRange = dataStart..<(dataStart + dataLength)
        let content = try Self.content(block, data: dataRange, link: link, label: label)
        self.content = content
        // Stored rather than computed from `content`: Swift 6.3.1's optimizer crashed (CopyPropagation)
        // on callers that inlined the enum match across modules.
        if case .bitmap(let compression, _, _) = content { self.compression = compression } else { self.compression = nil }
        self.internalLink = link
    }

    private static func internalLink(_ body: ByteReader, label: String) throws(AssetCatalogError) -> InternalLink {
        var reader = body
        let link = try reading(.invalidRendition, "the internal link of \(label)") {
            () throws(OutOfBoundsError) -> InternalLink? in
            guard try reader.readBytes(4).elementsEqual("KLNI".utf8) else { return nil }
            _ = try reader.readUInt32(.little)  // flags
            let x = Int(try reader.readUInt32(.little))
            let y = Int(try reader.readUInt32(.little))
            let width = Int(try reader.readUInt32(.little))
            let height = Int(try reader.readUInt32(.little))
            let layout = RenditionLayout(rawValue: try reader.readUInt16(.little))
            let length = Int(try reader.readUInt32(.little))
            var pairs = try reader.window(offset: reader.position, length: length)
            var target: [(attribute: RenditionAttribute, value: UInt16)] = []
            while pairs.remaining >= 4 {
                let attribute = try pairs.readUInt16(.little)
                let value = try pairs.readUInt16(.little)
                if attribute == 0 && value == 0 { break }  // the list's terminator
                target.append((RenditionAttribute(rawValue: attribute), value))
            }
            return InternalLink(x: x, y: y, width: width, height: height, layout: layout, target: target)
        }
        guard let link else {
            throw AssetCatalogError(.invalidRendition, "the internal link of \(label) does not start with the INLK magic")
        }
        return link
    }

    private static func content(
        _ block: ByteReader, data: Range<Int>, link: InternalLink?, label: String
    ) throws(AssetCatalogError) -> RenditionContent {
        if let link { return .internalLink(link) }
        guard data.count >= 4 else { return data.isEmpty ? .empty : .other(tag: FourCharacterCode(rawValue: 0)) }
        let fields = try reading(.invalidRendition, "the data of \(label)") { () throws(OutOfBoundsError) in
            (
                tag: Array(try block.bytes(at: data.lowerBound, count: 4)),
                rawTag: try block.uint32(at: data.lowerBound, .little)
            )
        }
        switch fields.tag {
        case Array("MLEC".utf8):
            let (flags, encoding) = try reading(.invalidRendition, "the CELM header of \(label)") {
                () throws(OutOfBoundsError) in
                (try block.uint32(at: data.lowerBound + 4, .little), try block.uint32(at: data.lowerBound + 8, .little))
            }
            return .bitmap(
                compression: RenditionCompression(rawValue: encoding), banded: flags & 1 != 0, opaque: flags & 2 != 0)
        case Array("DWAR".utf8):
            let length = try reading(.invalidRendition, "the RAWD header of \(label)") { () throws(OutOfBoundsError) in
                Int(try block.uint32(at: data.lowerBound + 8, .little))
            }
            guard length <= data.count - 12 else {
                throw AssetCatalogError(
                    .invalidRendition, "the raw data of \(label) declares \(length) bytes but \(data.count - 12) follow")
            }
            let head = (try? Array(block.bytes(at: data.lowerBound + 12, count: min(length, 16)))) ?? []
            return .rawData(byteCount: length, format: sniff(head))
        default:
            return .other(tag: FourCharacterCode(rawValue: fields.rawTag))
        }
    }

    /// The file type of a stored blob, from its magic number.
    static func sniff(_ head: [UInt8]) -> String? {
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if head.starts(with: Array("%PDF".utf8)) { return "PDF" }
        if head.starts(with: Array("GIF8".utf8)) { return "GIF" }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "heif", "mif1", "msf1"].contains(brand) { return "HEIF" }
        }
        return nil
    }
}

extension Rendition {
    /// The idiom's name, as Xcode's asset catalog editor names it (`phone`, `pad`...), or
    /// `idiom N` for one it does not know.
    public var idiomName: String {
        switch idiom {
        case 0: "universal"
        case 1: "phone"
        case 2: "pad"
        case 3: "tv"
        case 4: "car"
        case 5: "watch"
        case 6: "marketing"
        case 7: "mac"
        case 8: "vision"
        default: "idiom \(idiom)"
        }
    }

    /// Whether `pngFile(for:)` can write it: a bitmap in a compression ipawrap decodes, or a link
    /// to one.
    public var isExtractable: Bool {
        switch content {
        case .bitmap(let compression, _, _): compression.isExtractable
        case .internalLink: true
        case .rawData, .other, .empty: false
        }
    }
}
