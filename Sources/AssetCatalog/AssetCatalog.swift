import FormatSupport
import LZFSE
import PNG

/// A compiled asset catalog (`Assets.car`): CoreUI structures in a BOM store.
///
/// `init(bytes:)` reads the container and every rendition's header, so listing is cheap and every
/// structural problem surfaces at once. Pixels are decoded on demand by `image(for:)`; stored files
/// (PDF, JPEG, PNG data) are returned by `rawData(for:)`.
public struct AssetCatalog: Sendable {
    /// Bounds on what a catalog may make the reader do.
    public struct Limits: Sendable {
        /// Renditions (and facets) read from the trees.
        public var maximumEntries: Int
        /// Index levels of a tree.
        public var maximumTreeDepth: Int
        /// Pixels of one decoded bitmap (64 Mpx: a 8192×8192 image).
        public var maximumPixels: Int
        /// Internal links followed to reach a bitmap.
        public var maximumLinkDepth: Int
        /// The time limit of the work on the input the catalog came from, checked per tree
        /// entry and rendition.
        public var clock: WorkClock = .unlimited

        public init(
            maximumEntries: Int = 500_000, maximumTreeDepth: Int = 32, maximumPixels: Int = 64 * 1024 * 1024,
            maximumLinkDepth: Int = 8
        ) {
            self.maximumEntries = maximumEntries
            self.maximumTreeDepth = maximumTreeDepth
            self.maximumPixels = maximumPixels
            self.maximumLinkDepth = maximumLinkDepth
        }
    }

    public let store: BOMStore
    public let header: CARHeader
    public let extendedMetadata: ExtendedMetadata?
    public let keyFormat: RenditionKeyFormat
    /// Facets in tree order (sorted by name).
    public let facets: [Facet]
    /// Every rendition, in tree order.
    public let renditions: [Rendition]
    /// Appearance names (`APPEARANCEKEYS`), e.g. `NSAppearanceNameDarkAqua`, by attribute value.
    public let appearances: [UInt16: String]
    public let limits: Limits
    private let indexByKey: [RenditionKey: Int]

    /// One unit of work on the catalog: `ARCHIVE_TIME_LIMIT` once the input's deadline has passed.
    static func tick(_ clock: inout WorkClock) throws(AssetCatalogError) {
        if clock.isExpired(after: 1) { throw AssetCatalogError(.timeLimit, clock.timeLimitMessage) }
    }

    public init(bytes: [UInt8], limits: Limits = Limits()) throws(AssetCatalogError) {
        let store = try BOMStore(bytes: bytes)
        guard let headerBlock = try store.block(named: "CARHEADER") else {
            throw AssetCatalogError(.missingVariable, "the BOM store has no CARHEADER: it is not an asset catalog")
        }
        guard let keyFormatBlock = try store.block(named: "KEYFORMAT") else {
            throw AssetCatalogError(.missingVariable, "the asset catalog has no KEYFORMAT")
        }
        let header = try CARHeader(headerBlock)
        let keyFormat = try RenditionKeyFormat(keyFormatBlock)
        let extendedMetadata = (try? store.block(named: "EXTENDED_METADATA")).flatMap { $0 }.flatMap {
            try? ExtendedMetadata($0)
        }

        var clock = limits.clock
        var facets: [Facet] = []
        if let entries = try BOMTree.entries(
            of: "FACETKEYS", in: store, maximumEntries: limits.maximumEntries, maximumDepth: limits.maximumTreeDepth,
            clock: &clock)
        {
            for entry in entries {
                try Self.tick(&clock)
                let name = String(decoding: entry.key.bytes[entry.key.lowerBound..<entry.key.upperBound], as: UTF8.self)
                facets.append(try Facet(name: name, value: entry.value))
            }
        }

        guard
            let renditionEntries = try BOMTree.entries(
                of: "RENDITIONS", in: store, maximumEntries: limits.maximumEntries,
                maximumDepth: limits.maximumTreeDepth, clock: &clock)
        else {
            throw AssetCatalogError(.missingVariable, "the asset catalog has no RENDITIONS")
        }
        let format = keyFormat.attributes
        var renditions: [Rendition] = []
        var indexByKey: [RenditionKey: Int] = [:]
        renditions.reserveCapacity(renditionEntries.count)
        for entry in renditionEntries {
            try Self.tick(&clock)
            guard entry.key.count >= 2 * format.count else {
                throw AssetCatalogError(
                    .invalidRendition,
                    "a rendition key has \(entry.key.count) bytes; KEYFORMAT needs \(2 * format.count)")
            }
            var values: [UInt16] = []
            values.reserveCapacity(format.count)
            for index in 0..<format.count {
                let value = try reading(.invalidRendition, "a rendition key") { () throws(OutOfBoundsError) in
                    try entry.key.uint16(at: entry.key.lowerBound + 2 * index, .little)
                }
                values.append(value)
            }
            let key = RenditionKey(format: format, values: values)
            if indexByKey[key] == nil { indexByKey[key] = renditions.count }
            renditions.append(try Rendition(key: key, value: entry.value))
        }

        var appearances: [UInt16: String] = [:]
        if let entries = try? BOMTree.entries(
            of: "APPEARANCEKEYS", in: store, maximumEntries: 1024, maximumDepth: limits.maximumTreeDepth,
            clock: &clock)
        {
            for entry in entries {
                guard let value = try? entry.value.uint16(at: entry.value.lowerBound, .little) else { continue }
                appearances[value] = String(
                    decoding: entry.key.bytes[entry.key.lowerBound..<entry.key.upperBound], as: UTF8.self)
            }
        }

        self.store = store
        self.header = header
        self.extendedMetadata = extendedMetadata
        self.keyFormat = keyFormat
        self.facets = facets
        self.renditions = renditions
        self.appearances = appearances
        self.limits = limits
        self.indexByKey = indexByKey
    }

    /// The facet called `name` (exact, case-sensitive, as CoreUI looks names up).
    public func facet(named name: String) -> Facet? {
        facets.first { $0.name == name }
    }

    /// The renditions of a facet: those whose identifier attribute equals the facet's.
    public func renditions(of facet: Facet) -> [Rendition] {
        guard let identifier = facet.identifier else { return [] }
        return renditions.filter { $0.identifier == identifier }
    }

    /// The facet a rendition belongs to (by its identifier attribute), for listings.
    public func facet(of rendition: Rendition) -> Facet? {
        guard let identifier = rendition.identifier else { return nil }
        return facets.first { $0.identifier == identifier }
    }

    /// What `assets extract NAME` writes: the rendition called `name`, else the largest rendition
    /// (by pixel area, the first of equals) of the facet called `name`.
    public func rendition(namedOrFacet name: String) -> Rendition? {
        if let exact = renditions.first(where: { $0.name == name }) { return exact }
        guard let facet = facet(named: name) else { return nil }
        return renditions(of: facet).max { $0.area < $1.area }
    }

    /// The rendition with exactly this key.
    public func rendition(for key: RenditionKey) -> Rendition? {
        indexByKey[key].map { renditions[$0] }
    }

    // MARK: - Pixels

    /// The pixels of a bitmap rendition as straight RGBA, following internal links.
    ///
    /// - Throws: `AssetCatalogError` `.notExtractable` for renditions that are not bitmaps this library
    ///   decodes (PDF, JPEG, HEIF, data, proprietary compressions), `.invalidPixelData`,
    ///   `.imageTooLarge` or `.invalidLink` for damaged ones.
    public func image(for rendition: Rendition) throws(AssetCatalogError) -> RGBAImage {
        try image(for: rendition, depth: 0)
    }

    /// The bytes of a stored-file rendition (`RAWD`: PDF, JPEG, HEIF, PNG, data sets), following
    /// internal links to raw data. A PNG can then be decoded with the PNG library.
    public func rawData(for rendition: Rendition) throws(AssetCatalogError) -> [UInt8] {
        var current = rendition
        for _ in 0...limits.maximumLinkDepth {
            switch current.content {
            case .rawData(let count, _):
                return try reading(.invalidRendition, "the raw data of \(current.name)") { () throws(OutOfBoundsError) in
                    Array(try store.reader.bytes(at: current.dataRange.lowerBound + 12, count: count))
                }
            case .internalLink(let link):
                current = try target(of: link, from: current)
            default:
                throw AssetCatalogError(
                    .notExtractable, "\(describe(current)) holds no stored file (\(current.pixelFormat), \(current.layout))")
            }
        }
        throw AssetCatalogError(.invalidLink, "\(describe(rendition)) links through more than \(limits.maximumLinkDepth) renditions")
    }

    private func image(for rendition: Rendition, depth: Int) throws(AssetCatalogError) -> RGBAImage {
        switch rendition.content {
        case .internalLink(let link):
            guard depth < limits.maximumLinkDepth else {
                throw AssetCatalogError(
                    .invalidLink, "\(describe(rendition)) links through more than \(limits.maximumLinkDepth) renditions")
            }
            let source = try image(for: try target(of: link, from: rendition), depth: depth + 1)
            return try crop(source, to: link, label: describe(rendition))
        case .bitmap(_, _, let opaque):
            let bitmap = try bitmapData(for: rendition)
            let image = try convert(bitmap, opaque: opaque, label: describe(rendition))
            try checkDeadline()
            return image
        case .rawData(_, let format):
            throw AssetCatalogError(
                .notExtractable,
                "\(describe(rendition)) is a stored \(format ?? rendition.pixelFormat.description) file, not a bitmap; read it with rawData(for:)")
        case .other(let tag):
            throw AssetCatalogError(.notExtractable, "\(describe(rendition)) holds a \(tag) structure, not a bitmap")
        case .empty:
            throw AssetCatalogError(.notExtractable, "\(describe(rendition)) has no data")
        }
    }

    private func target(of link: InternalLink, from rendition: Rendition) throws(AssetCatalogError) -> Rendition {
        guard let key = link.targetKey(in: keyFormat.attributes) else {
            throw AssetCatalogError(
                .invalidLink, "the internal link of \(describe(rendition)) names attributes outside KEYFORMAT")
        }
        guard let target = self.rendition(for: key) else {
            throw AssetCatalogError(.invalidLink, "the internal link of \(describe(rendition)) points to no rendition (\(key))")
        }
        return target
    }

    private func crop(_ source: RGBAImage, to link: InternalLink, label: String) throws(AssetCatalogError) -> RGBAImage {
        // CoreUI frames have a bottom-left origin; rows are stored top first.
        guard link.width > 0, link.height > 0, link.x <= source.width - link.width,
            link.y <= source.height - link.height
        else {
            throw AssetCatalogError(
                .invalidLink,
                "the frame (\(link.x), \(link.y), \(link.width)×\(link.height)) of \(label) lies outside its "
                    + "\(source.width)×\(source.height) target")
        }
        let top = source.height - link.y - link.height
        var pixels: [UInt8] = []
        pixels.reserveCapacity(link.width * link.height * 4)
        for row in top..<(top + link.height) {
            let start = (row * source.width + link.x) * 4
            pixels.append(contentsOf: source.pixels[start..<(start + link.width * 4)])
        }
        guard let image = RGBAImage(width: link.width, height: link.height, pixels: pixels) else {
            throw AssetCatalogError(.invalidLink, "the frame of \(label) is empty")
        }
        return image
    }

    /// The decoded rows of a bitmap rendition as CoreUI stores them: premultiplied BGRA (`ARGB`) or
    /// gray and alpha (`GA8`), `bytesPerRow` apart. Internal links are not followed.
    public func bitmapData(for rendition: Rendition) throws(AssetCatalogError) -> BitmapData {
        let label = describe(rendition)
        guard case .bitmap(let compression, let banded, _) = rendition.content else {
            throw AssetCatalogError(.notExtractable, "\(label) is not a bitmap (\(rendition.layout))")
        }
        let bytesPerPixel: Int
        switch rendition.pixelFormat {
        case .argb: bytesPerPixel = 4
        case .ga8: bytesPerPixel = 2
        default:
            throw AssetCatalogError(
                .notExtractable, "\(label) has pixel format \(rendition.pixelFormat), which is not decoded")
        }
        guard compression.isExtractable else {
            throw AssetCatalogError(
                .notExtractable, "\(label) uses CoreUI's \(compression) compression, which is not extractable")
        }
        let width = rendition.width
        let height = rendition.height
        guard width > 0, height > 0, width <= limits.maximumPixels / height else {
            throw AssetCatalogError(
                .imageTooLarge, "\(label) is \(width)×\(height) pixels; the limit is \(limits.maximumPixels) pixels")
        }
        let minimumStride = width * bytesPerPixel
        let stride = rendition.bytesPerRow ?? minimumStride
        // Rows may be padded, but not beyond twice their width (and never below it).
        guard stride >= minimumStride, stride <= 2 * minimumStride + 64 else {
            throw AssetCatalogError(
                .invalidPixelData, "\(label) declares \(stride) bytes per row for \(width) pixels of \(bytesPerPixel) bytes")
        }

        // The CELM header: tag, flags, encoding, then a byte length (or, when banded, a band count).
        var data = try reading(.invalidPixelData, "the pixel data of \(label)") { () throws(OutOfBoundsError) in
            try store.reader.window(offset: rendition.dataRange.lowerBound, length: rendition.dataRange.count)
        }
        let count = try reading(.invalidPixelData, "the CELM header of \(label)") { () throws(OutOfBoundsError) in
            try data.skip(12)
            return Int(try data.readUInt32(.little))
        }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(stride * height)
        var clock = limits.clock
        if banded {
            guard count >= 1, count <= height else {
                throw AssetCatalogError(.invalidPixelData, "\(label) is split into \(count) bands for \(height) rows")
            }
            var rowsSoFar = 0
            for band in 0..<count {
                try Self.tick(&clock)
                let (rows, payload) = try reading(.invalidPixelData, "band \(band) of \(label)") {
                    () throws(OutOfBoundsError) -> (Int, ArraySlice<UInt8>)? in
                    guard try data.readBytes(4).elementsEqual("KCBC".utf8) else { return nil }
                    _ = try data.readUInt32(.little)  // flags
                    _ = try data.readUInt32(.little)  // version
                    let rows = Int(try data.readUInt32(.little))
                    let length = Int(try data.readUInt32(.little))
                    return (rows, try data.readBytes(length))
                } ?? (-1, [])
                guard rows >= 0 else {
                    throw AssetCatalogError(.invalidPixelData, "band \(band) of \(label) does not start with KCBC")
                }
                guard rows <= height - rowsSoFar else {
                    throw AssetCatalogError(.invalidPixelData, "the bands of \(label) hold more than its \(height) rows")
                }
                rowsSoFar += rows
                pixels += try decompress(
                    payload, compression, size: rows * stride, label: "band \(band) of \(label)", clock: &clock)
            }
            guard rowsSoFar == height else {
                throw AssetCatalogError(.invalidPixelData, "the bands of \(label) hold \(rowsSoFar) of its \(height) rows")
            }
        } else {
            let payload = try reading(.invalidPixelData, "the pixel data of \(label)") { () throws(OutOfBoundsError) in
                try data.readBytes(count)
            }
            pixels = try decompress(payload, compression, size: height * stride, label: label, clock: &clock)
        }

        return BitmapData(
            width: width, height: height, pixelFormat: rendition.pixelFormat, bytesPerRow: stride, bytes: pixels)
    }

    private func convert(_ bitmap: BitmapData, opaque: Bool, label: String) throws(AssetCatalogError) -> RGBAImage {
        let bytesPerPixel = bitmap.pixelFormat == .argb ? 4 : 2
        let invalid = AssetCatalogError(.invalidPixelData, "the pixels of \(label) do not fill \(bitmap.width)×\(bitmap.height)")
        guard bitmap.width > 0, bitmap.height > 0, bitmap.bytesPerRow >= bitmap.width * bytesPerPixel,
              bitmap.bytes.count / bitmap.bytesPerRow >= bitmap.height else { throw invalid }
        // In bands of about 1 MiB with the deadline read between them: a bitmap of the largest
        // allowed size takes seconds to convert in a debug build.
        let rowsPerBand = max(1, (1 << 20) / bitmap.bytesPerRow)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(bitmap.width * bitmap.height * 4)
        var row = 0
        while row < bitmap.height {
            try checkDeadline()
            let rows = min(rowsPerBand, bitmap.height - row)
            var band = Array(bitmap.bytes[(row * bitmap.bytesPerRow)..<((row + rows) * bitmap.bytesPerRow)])
            if opaque {
                // CoreUI ignores the stored alpha of opaque bitmaps.
                var index = bytesPerPixel - 1
                while index < band.count {
                    band[index] = 255
                    index += bytesPerPixel
                }
            }
            let converted = bytesPerPixel == 4
                ? RGBAImage(premultipliedBGRA: band, width: bitmap.width, height: rows, bytesPerRow: bitmap.bytesPerRow)
                : Self.grayAlphaImage(band, width: bitmap.width, height: rows, bytesPerRow: bitmap.bytesPerRow)
            guard let converted else { throw invalid }
            pixels += converted.pixels
            row += rows
        }
        guard let image = RGBAImage(width: bitmap.width, height: bitmap.height, pixels: pixels) else { throw invalid }
        return image
    }

    /// `ARCHIVE_TIME_LIMIT` once the input's deadline has passed, read now (between the steps of
    /// a decode, each bounded by the pixel limit).
    private func checkDeadline() throws(AssetCatalogError) {
        if limits.clock.isPastDeadline { throw AssetCatalogError(.timeLimit, limits.clock.timeLimitMessage) }
    }

    private func decompress(
        _ payload: ArraySlice<UInt8>, _ compression: RenditionCompression, size: Int, label: String,
        clock: inout WorkClock
    ) throws(AssetCatalogError) -> [UInt8] {
        switch compression {
        case .uncompressed:
            guard payload.count >= size else {
                throw AssetCatalogError(.invalidPixelData, "\(label) stores \(payload.count) bytes of pixels; \(size) are needed")
            }
            return Array(payload.prefix(size))
        case .zip:
            return try Inflate.decompress(payload, size: size, label: label, clock: &clock)
        case .lzvn, .lzfse:
            let decoded: [UInt8]
            do throws(LZFSEError) {
                decoded = compression == .lzvn
                    ? try LZVN.decompress(Array(payload), decodedSize: size)
                    : try LZFSE.decompress(payload, maximumOutput: size)
            } catch {
                throw AssetCatalogError(.invalidPixelData, "the \(compression) data of \(label) does not decode: \(error.detail) [\(error.code)]")
            }
            guard decoded.count == size else {
                throw AssetCatalogError(
                    .invalidPixelData, "the \(compression) data of \(label) decodes to \(decoded.count) bytes instead of \(size)")
            }
            try checkDeadline()
            return decoded
        default:
            throw AssetCatalogError(.notExtractable, "\(label) uses CoreUI's \(compression) compression")
        }
    }

    /// Premultiplied gray + alpha rows to straight RGBA.
    static func grayAlphaImage(_ bytes: [UInt8], width: Int, height: Int, bytesPerRow: Int) -> RGBAImage? {
        guard width > 0, height > 0, bytesPerRow >= width * 2, bytes.count / bytesPerRow >= height else { return nil }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            for column in 0..<width {
                let from = row * bytesPerRow + column * 2
                let alpha = bytes[from + 1]
                let gray = RGBAImage.unpremultiply(bytes[from], alpha: alpha)
                let to = (row * width + column) * 4
                out[to] = gray
                out[to + 1] = gray
                out[to + 2] = gray
                out[to + 3] = alpha
            }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }

    func describe(_ rendition: Rendition) -> String {
        rendition.name.isEmpty ? "the rendition with key \(rendition.key)" : "rendition \"\(rendition.name)\""
    }
}

/// Decoded bitmap rows as stored: premultiplied BGRA8 for `ARGB`, premultiplied gray and alpha for `GA8`.
public struct BitmapData: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixelFormat: PixelFormat
    public let bytesPerRow: Int
    public internal(set) var bytes: [UInt8]
}

extension AssetCatalog {
    /// A rendition as a standard PNG file: bitmaps decoded and encoded, stored PNGs as they are.
    ///
    /// - Throws: `AssetCatalogError` `.notExtractable` for renditions that are neither (PDF, JPEG,
    ///   HEIF, data, proprietary compressions), or the decoding error of a damaged one.
    public func pngFile(for rendition: Rendition) throws(AssetCatalogError) -> [UInt8] {
        if case .rawData = rendition.content {
            let bytes = try rawData(for: rendition)
            guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw AssetCatalogError(.notExtractable, "the rendition \(rendition.name) is stored data that is not a PNG")
            }
            return bytes
        }
        let image = try image(for: rendition)
        do throws(PNGError) {
            return try PNGEncoder.encode(image, clock: limits.clock)
        } catch {
            // The encoder's only error is the time limit.
            throw AssetCatalogError(.timeLimit, error.message)
        }
    }
}
