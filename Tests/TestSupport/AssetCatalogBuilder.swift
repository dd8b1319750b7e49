import CZlib

/// Builds synthetic `Assets.car` files: a BOM store with `CARHEADER`, `KEYFORMAT`,
/// `EXTENDED_METADATA`, `FACETKEYS` and `RENDITIONS`, laid out as CoreUI writes them.
///
/// Used by the asset-catalog tests (well-formed and hostile catalogs) and by the sample app, which
/// needs an icon that exists only in an asset catalog. It writes uncompressed, zlib, LZFSE (stored
/// blocks, or a stream made elsewhere) and LZVN pixel data; the LZVN encoder here is a small greedy
/// one, enough to produce real matches.
///
/// ```swift
/// var builder = AssetCatalogBuilder()
/// builder.addFacet("AppIcon")
/// builder.addBitmap(facet: "AppIcon", name: "AppIcon60x60@3x.png", idiom: 1, scale: 3,
///                   width: 180, height: 180, premultipliedBGRA: pixels, compression: .lzvn)
/// let bytes = builder.build().bytes
/// ```
public struct AssetCatalogBuilder {
    /// How pixel data is stored (`CELM` encoding).
    public enum Compression: Sendable {
        case uncompressed
        /// zlib (CoreUI's "zip").
        case zlib
        /// LZFSE made of stored (`bvx-`) blocks: a valid stream without compression.
        case lzfseStored
        /// LZFSE bytes made elsewhere (e.g. by the reference encoder); used for a single band.
        case lzfse([UInt8])
        /// LZVN from `AssetCatalogBuilder.lzvnEncode`.
        case lzvn
        /// Any encoding code with the payload as given (for proprietary or hostile cases).
        case raw(code: UInt32, payload: [UInt8])

        /// The CELM encoding number.
        public var code: UInt32 {
            switch self {
            case .uncompressed: 0
            case .zlib: 2
            case .lzvn: 3
            case .lzfseStored, .lzfse: 4
            case .raw(let code, _): code
            }
        }
    }

    /// Attribute ids of rendition keys, in order (what Xcode 12 writes for an iOS app).
    public var keyFormat: [UInt16] = [12, 15, 16, 7, 17, 1, 2, 8, 9, 20, 21, 24, 25]
    /// Entries per leaf node; a smaller value gives several leaves under an index node.
    public var leafCapacity = 64
    public var coreUIVersion: UInt32 = 609
    public var versionString = "ipawrap AssetCatalogBuilder"

    private var facets: [(name: String, attributes: [(UInt16, UInt16)])] = []
    private var renditions: [(key: [UInt16: UInt16], value: [UInt8])] = []
    private var nextIdentifier: UInt16 = 1000

    public init() {}

    /// What `build()` produced, with where things are, for tests that damage a catalog on purpose.
    public struct Built: Sendable {
        public var bytes: [UInt8]
        /// File range of each block by index (index 0 is the null block).
        public let blocks: [Range<Int>]
        /// Block index of each variable.
        public let variables: [String: Int]
        /// Offset of the block table (its count field) and of the variable list.
        public let blockTableOffset: Int
        public let variablesOffset: Int
        /// Node blocks of each tree, leaves first in leaf order, then the index node if any.
        public let treeNodes: [String: [Int]]
        /// Value blocks of the renditions, in the order they were added.
        public let renditionValues: [Int]

        /// Overwrites a little- or big-endian integer at a file offset.
        public mutating func patch(_ offset: Int, uint32 value: UInt32, bigEndian: Bool = false) {
            for index in 0..<4 {
                let shift = bigEndian ? 24 - 8 * index : 8 * index
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
            }
        }

        public mutating func patch(_ offset: Int, uint16 value: UInt16, bigEndian: Bool = false) {
            bytes[offset] = UInt8(truncatingIfNeeded: bigEndian ? value >> 8 : value)
            bytes[offset + 1] = UInt8(truncatingIfNeeded: bigEndian ? value : value >> 8)
        }
    }

    // MARK: - Content

    /// Adds a facet (an image or icon set) and returns its identifier.
    @discardableResult
    public mutating func addFacet(_ name: String, element: UInt16 = 85, part: UInt16 = 220) -> UInt16 {
        nextIdentifier &+= 1
        facets.append((name, [(1, element), (2, part), (17, nextIdentifier)]))
        return nextIdentifier
    }

    /// The identifier of a facet added before.
    public func identifier(of facet: String) -> UInt16 {
        facets.first { $0.name == facet }?.attributes.first { $0.0 == 17 }?.1 ?? 0
    }

    /// Adds a bitmap rendition of `facet` from premultiplied rows (BGRA8 for `ARGB`, gray and alpha
    /// for `GA8 `), split into `bands` row bands when more than one.
    public mutating func addBitmap(
        facet: String, name: String, idiom: UInt16, scale: Int, width: Int, height: Int,
        premultipliedPixels pixels: [UInt8], pixelFormat: String = "ARGB", compression: Compression = .uncompressed,
        bands: Int = 1, bytesPerRow: Int? = nil, opaque: Bool = false, appearance: UInt16 = 0,
        attributes extra: [UInt16: UInt16] = [:]
    ) {
        let bytesPerPixel = pixelFormat == "GA8 " ? 2 : 4
        let stride = bytesPerRow ?? width * bytesPerPixel
        var celm = Self.celmHeader(compression: compression.code, banded: bands > 1, opaque: opaque)
        if bands > 1 {
            celm += le32(bands)
            let rowsPerBand = (height + bands - 1) / bands
            var row = 0
            while row < height {
                let rows = min(rowsPerBand, height - row)
                let payload = Self.compress(Array(pixels[(row * stride)..<((row + rows) * stride)]), compression)
                celm += Array("KCBC".utf8) + le32(0) + le32(0) + le32(rows) + le32(payload.count) + payload
                row += rows
            }
        } else {
            let payload = Self.compress(pixels, compression)
            celm += le32(payload.count) + payload
        }
        let resources: [(UInt32, [UInt8])] = [
            (1001, le32(1) + le32(0) + le32(0) + le32(width) + le32(height)),  // one slice
            (1003, le32(1) + le32(0) + le32(0) + le32(0) + le32(0) + le32(width) + le32(height)),  // metrics
            (1004, le32(0) + [0, 0, 0x80, 0x3F]),  // normal blending, opacity 1.0
            (1006, le32(1)),  // EXIF orientation
            (1007, le32(stride)),  // bytes per row
        ]
        var key = extra
        key[12] = UInt16(scale)
        key[15] = idiom
        key[7] = appearance
        key[17] = identifier(of: facet)
        key[1] = key[1] ?? 85
        key[2] = key[2] ?? 220
        renditions.append((key, Self.csi(
            name: name, width: width, height: height, scale: scale * 100, pixelFormat: pixelFormat, layout: 12,
            resources: resources, data: celm)))
    }

    /// Adds a stored-file rendition (`RAWD`): a PDF, JPEG, PNG or data blob.
    public mutating func addRawData(
        facet: String, name: String, pixelFormat: String = "DATA", bytes: [UInt8], idiom: UInt16 = 0, scale: Int = 0,
        width: Int = 0, height: Int = 0, layout: UInt16 = 1000
    ) {
        let data = Array("DWAR".utf8) + le32(0) + le32(bytes.count) + bytes
        renditions.append((
            [12: UInt16(scale), 15: idiom, 17: identifier(of: facet), 1: 85, 2: 220],
            Self.csi(name: name, width: width, height: height, scale: scale * 100, pixelFormat: pixelFormat,
                     layout: layout, resources: [(1006, le32(1))], data: data)))
    }

    /// Adds an internal link: the rendition's pixels are the frame (bottom-left origin) of the
    /// rendition whose key has the `target` attributes.
    public mutating func addInternalLink(
        facet: String, name: String, idiom: UInt16, scale: Int, frame: (x: Int, y: Int, width: Int, height: Int),
        target: [(UInt16, UInt16)], layout: UInt16 = 12
    ) {
        var pairs: [UInt8] = []
        for (attribute, value) in target { pairs += le16(Int(attribute)) + le16(Int(value)) }
        pairs += le16(0) + le16(0)
        let link = Array("KLNI".utf8) + le32(0) + le32(frame.x) + le32(frame.y) + le32(frame.width)
            + le32(frame.height) + le16(Int(layout)) + le32(pairs.count) + pairs
        renditions.append((
            [12: UInt16(scale), 15: idiom, 17: identifier(of: facet), 1: 85, 2: 220],
            Self.csi(name: name, width: frame.width, height: frame.height, scale: scale * 100, pixelFormat: "ARGB",
                     layout: 1003, resources: [(1010, link), (1006, le32(1))], data: [])))
    }

    /// Adds a packed image (an atlas for internal links) with the given key attributes.
    public mutating func addPackedImage(
        name: String, scale: Int, width: Int, height: Int, premultipliedPixels pixels: [UInt8],
        compression: Compression = .uncompressed, key: [UInt16: UInt16]
    ) {
        let payload = Self.compress(pixels, compression)
        let celm = Self.celmHeader(compression: compression.code, banded: false, opaque: false)
            + le32(payload.count) + payload
        var fullKey = key
        fullKey[12] = UInt16(scale)
        renditions.append((fullKey, Self.csi(
            name: name, width: width, height: height, scale: scale * 100, pixelFormat: "ARGB", layout: 1004,
            resources: [(1007, le32(width * 4))], data: celm)))
    }

    /// Adds a rendition with any key and value bytes (the escape hatch for hostile catalogs).
    public mutating func addRendition(key: [UInt16: UInt16], value: [UInt8]) {
        renditions.append((key, value))
    }

    // MARK: - Encodings

    /// A CSI header, its resources, then `data`.
    public static func csi(
        name: String, width: Int, height: Int, scale: Int, pixelFormat: String, layout: UInt16,
        resources: [(UInt32, [UInt8])], data: [UInt8], flags: UInt32 = 0
    ) -> [UInt8] {
        var resourceBytes: [UInt8] = []
        for (tag, body) in resources { resourceBytes += le32(Int(tag)) + le32(body.count) + body }
        var header = Array("ISTC".utf8) + le32(1) + le32(Int(flags)) + le32(width) + le32(height) + le32(scale)
        header += fourCC(pixelFormat) + le32(0) + le32(0) + le16(Int(layout)) + le16(0)
        var nameField = Array(name.utf8.prefix(127))
        nameField += [UInt8](repeating: 0, count: 128 - nameField.count)
        header += nameField
        header += le32(resourceBytes.count) + le32(1) + le32(0) + le32(data.count)
        return header + resourceBytes + data
    }

    static func celmHeader(compression: UInt32, banded: Bool, opaque: Bool) -> [UInt8] {
        Array("MLEC".utf8) + le32((banded ? 1 : 0) | (opaque ? 2 : 0)) + le32(Int(compression))
    }

    static func compress(_ bytes: [UInt8], _ compression: Compression) -> [UInt8] {
        switch compression {
        case .uncompressed: bytes
        case .zlib: zlib(bytes)
        case .lzfseStored: lzfseStored(bytes)
        case .lzfse(let stream): stream
        case .lzvn: lzvnEncode(bytes)
        case .raw(_, let payload): payload
        }
    }

    /// zlib-wrapped deflate.
    public static func zlib(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count), 9)
            }
        }
        return status == Z_OK ? Array(output.prefix(Int(length))) : []
    }

    /// An LZFSE stream of stored blocks (at most 1 MiB each) and the end block.
    public static func lzfseStored(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = []
        var start = 0
        repeat {
            let count = min(bytes.count - start, 1 << 20)
            stream += Array("bvx-".utf8) + le32(count) + bytes[start..<(start + count)]
            start += count
        } while start < bytes.count
        return stream + Array("bvx$".utf8)
    }

    /// A greedy LZVN encoder: literal runs, matches found by a 4-byte hash (distance up to 65535)
    /// extended with match-only opcodes, and the end-of-stream opcode.
    public static func lzvnEncode(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var table = [Int](repeating: -1, count: 1 << 14)
        var literalStart = 0
        var position = 0

        func emitLiterals(upTo end: Int) {
            var start = literalStart
            while start < end {
                let count = min(end - start, 271)
                output += count >= 16 ? [0xE0, UInt8(count - 16)] : [0xE0 | UInt8(count)]
                output += input[start..<(start + count)]
                start += count
            }
        }

        while position + 4 <= input.count {
            let word = UInt32(input[position]) | UInt32(input[position + 1]) << 8
                | UInt32(input[position + 2]) << 16 | UInt32(input[position + 3]) << 24
            let hash = Int((word &* 2_654_435_761) >> 18)
            let candidate = table[hash]
            table[hash] = position
            let distance = position - candidate
            guard candidate >= 0, distance <= 65535,
                input[candidate..<(candidate + 4)] == input[position..<(position + 4)]
            else {
                position += 1
                continue
            }
            var length = 4
            while position + length < input.count, input[candidate + length] == input[position + length] {
                length += 1
            }
            emitLiterals(upTo: position)
            // Large-distance opcode LLMMM111 with no literal and a match of 3 to 10 bytes.
            let first = min(length, 10)
            output += [UInt8((first - 3) << 3 | 7), UInt8(distance & 0xFF), UInt8(distance >> 8)]
            var rest = length - first
            while rest > 0 {
                let count = min(rest, 271)
                output += count >= 16 ? [0xF0, UInt8(count - 16)] : [0xF0 | UInt8(count)]
                rest -= count
            }
            position += length
            literalStart = position
        }
        emitLiterals(upTo: input.count)
        return output + [0x06, 0, 0, 0, 0, 0, 0, 0]
    }

    // MARK: - Pictures

    /// A recognisable icon-like picture as premultiplied BGRA rows: an opaque rounded square with a
    /// diagonal gradient, a disc whose colour depends on `seed`, and transparent corners with
    /// anti-aliased edges when `transparentCorners`.
    public static func iconPixels(width: Int, height: Int, seed: UInt8 = 0, transparentCorners: Bool = false) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let radius = Double(min(width, height)) * 0.2
        for y in 0..<height {
            for x in 0..<width {
                var alpha = 255.0
                if transparentCorners {
                    let dx = max(abs(Double(x) + 0.5 - Double(width) / 2) - (Double(width) / 2 - radius), 0)
                    let dy = max(abs(Double(y) + 0.5 - Double(height) / 2) - (Double(height) / 2 - radius), 0)
                    alpha = min(max(radius - (dx * dx + dy * dy).squareRoot() + 0.5, 0), 1) * 255
                }
                var red = 30 + 200 * x / max(width, 1)
                var green = 60 + 160 * y / max(height, 1)
                var blue = Int(seed)
                let cx = Double(x) - Double(width) / 2
                let cy = Double(y) - Double(height) / 2
                if cx * cx + cy * cy < Double(width * width) / 16 {
                    (red, green, blue) = (255, 255 - Int(seed), 40)
                }
                let a = Int(alpha.rounded())
                let index = (y * width + x) * 4
                pixels[index] = UInt8(blue * a / 255)
                pixels[index + 1] = UInt8(green * a / 255)
                pixels[index + 2] = UInt8(red * a / 255)
                pixels[index + 3] = UInt8(a)
            }
        }
        return pixels
    }

    /// A typical iOS app icon set: phone 60pt @2x and @3x, pad 76pt @1x/@2x and 83.5pt @2x, and the
    /// 1024-pixel marketing icon, each a distinct picture, LZVN-compressed.
    public static func appIconCatalog(named name: String = "AppIcon", compression: Compression = .lzvn) -> [UInt8] {
        var builder = AssetCatalogBuilder()
        builder.addFacet(name)
        let sizes: [(String, UInt16, Int, Int)] = [
            ("\(name)60x60@2x.png", 1, 2, 120), ("\(name)60x60@3x.png", 1, 3, 180),
            ("\(name)76x76~ipad.png", 2, 1, 76), ("\(name)76x76@2x~ipad.png", 2, 2, 152),
            ("\(name)83.5x83.5@2x~ipad.png", 2, 2, 167), ("\(name)1024x1024.png", 6, 1, 1024),
        ]
        for (index, (file, idiom, scale, size)) in sizes.enumerated() {
            builder.addBitmap(
                facet: name, name: file, idiom: idiom, scale: scale, width: size, height: size,
                premultipliedPixels: iconPixels(width: size, height: size, seed: UInt8(index * 40)),
                compression: compression, opaque: true)
        }
        return builder.build().bytes
    }

    // MARK: - Writing the BOM store

    /// Lays the catalog out as a BOM store.
    public func build() -> Built {
        var blocks: [[UInt8]] = [[]]
        func add(_ bytes: [UInt8]) -> Int {
            blocks.append(bytes)
            return blocks.count - 1
        }
        var variables: [(String, Int)] = []
        var treeNodes: [String: [Int]] = [:]

        var header = Array("RATC".utf8) + le32(Int(coreUIVersion)) + le32(17) + le32(0) + le32(renditions.count)
        header += fixed("@(#)PROGRAM:CoreUI  PROJECT:CoreUI-\(coreUIVersion)\n", 128) + fixed(versionString, 256)
        header += [UInt8](repeating: 0x5A, count: 16) + le32(0) + le32(4) + le32(0) + le32(1)
        variables.append(("CARHEADER", add(header)))

        var keyFormatBytes = Array("tmfk".utf8) + le32(0) + le32(keyFormat.count)
        for attribute in keyFormat { keyFormatBytes += le32(Int(attribute)) }
        variables.append(("KEYFORMAT", add(keyFormatBytes)))

        let metadata = Array("ATEM".utf8) + fixed("", 256) + fixed("14.0", 256) + fixed("ios", 256)
            + fixed(versionString, 256)
        variables.append(("EXTENDED_METADATA", add(metadata)))

        // Trees: sorted entries, each key and value in a block of its own.
        func tree(_ name: String, _ entries: [([UInt8], [UInt8])]) -> [Int] {
            var pairs: [(value: Int, key: Int)] = []
            for (key, value) in entries { pairs.append((add(value), add(key))) }
            let chunks = stride(from: 0, to: max(pairs.count, 1), by: max(leafCapacity, 1)).map {
                Array(pairs[$0..<min($0 + max(leafCapacity, 1), pairs.count)])
            }
            // Node blocks are reserved first so leaves can link forward.
            let leafIndices = chunks.map { _ in add([]) }
            for (position, chunk) in chunks.enumerated() {
                let forward = position + 1 < leafIndices.count ? leafIndices[position + 1] : 0
                let backward = position > 0 ? leafIndices[position - 1] : 0
                var node = be16(1) + be16(chunk.count) + be32(forward) + be32(backward)
                for pair in chunk { node += be32(pair.value) + be32(pair.key) }
                blocks[leafIndices[position]] = node
            }
            var nodes = leafIndices
            var root = leafIndices[0]
            if leafIndices.count > 1 {
                var node = be16(0) + be16(leafIndices.count) + be32(0) + be32(0)
                for (position, leaf) in leafIndices.enumerated() {
                    node += be32(leaf) + be32(chunks[position].first?.key ?? 0)
                }
                root = add(node)
                nodes.append(root)
            }
            let treeHeader = Array("tree".utf8) + be32(1) + be32(root) + be32(4096) + be32(pairs.count) + [0]
            variables.append((name, add(treeHeader)))
            treeNodes[name] = nodes
            return pairs.map(\.value)
        }

        let facetEntries = facets.sorted { $0.name < $1.name }.map { facet -> ([UInt8], [UInt8]) in
            var value = le16(0) + le16(0) + le16(facet.attributes.count)
            for (attribute, number) in facet.attributes { value += le16(Int(attribute)) + le16(Int(number)) }
            return (Array(facet.name.utf8), value)
        }
        _ = tree("FACETKEYS", facetEntries)

        let keyed = renditions.enumerated().map { position, rendition -> (values: [UInt16], value: [UInt8], position: Int) in
            (keyFormat.map { rendition.key[$0] ?? 0 }, rendition.value, position)
        }
        let sorted = keyed.sorted { $0.values.lexicographicallyPrecedes($1.values) }
        let valueBlocks = tree("RENDITIONS", sorted.map { entry in
            (entry.values.flatMap { le16(Int($0)) }, entry.value)
        })
        var renditionValues = [Int](repeating: 0, count: renditions.count)
        for (sortedIndex, entry) in sorted.enumerated() { renditionValues[entry.position] = valueBlocks[sortedIndex] }

        // File: header, blocks, variables, block table.
        var file = [UInt8](repeating: 0, count: 512)
        var ranges: [Range<Int>] = [0..<0]
        for block in blocks.dropFirst() {
            ranges.append(file.count..<(file.count + block.count))
            file += block
        }
        let variablesOffset = file.count
        var variableBytes = be32(variables.count)
        for (name, block) in variables {
            variableBytes += be32(block) + [UInt8(name.utf8.count)] + Array(name.utf8)
        }
        file += variableBytes
        let tableOffset = file.count
        var table = be32(ranges.count)
        for range in ranges { table += be32(range.lowerBound) + be32(range.count) }
        table += be32(0)  // empty free list
        file += table
        let headerFields = Array("BOMStore".utf8) + be32(1) + be32(ranges.count - 1) + be32(tableOffset)
            + be32(table.count) + be32(variablesOffset) + be32(variableBytes.count)
        file.replaceSubrange(0..<headerFields.count, with: headerFields)

        return Built(
            bytes: file, blocks: ranges, variables: Dictionary(uniqueKeysWithValues: variables),
            blockTableOffset: tableOffset, variablesOffset: variablesOffset, treeNodes: treeNodes,
            renditionValues: renditionValues)
    }
}

// MARK: - Byte helpers

func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

/// A four-character code as CoreUI stores it (little-endian, so `ARGB` is written `BGRA`).
func fourCC(_ code: String) -> [UInt8] {
    let bytes = Array(code.utf8.prefix(4)) + [UInt8](repeating: 0x20, count: max(0, 4 - code.utf8.count))
    return bytes.reversed()
}

/// A NUL-padded fixed-size string field.
func fixed(_ text: String, _ size: Int) -> [UInt8] {
    let bytes = Array(text.utf8.prefix(size - 1))
    return bytes + [UInt8](repeating: 0, count: size - bytes.count)
}
