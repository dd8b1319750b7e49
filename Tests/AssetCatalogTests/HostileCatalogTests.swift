import AssetCatalog
import Foundation
import TestSupport
import Testing

/// Damaged and malicious catalogs. Each is committed as
/// `Tests/Fixtures/assets/hostile/<ERROR_CODE>.<case>.car` and must fail with that code when opened,
/// listed, and every rendition decoded; none may trap.
///
/// The files are made by `HostileCatalogs.all` from `AssetCatalogBuilder` output. After changing
/// either, run `IPAWRAP_WRITE_FIXTURES=1 swift test --filter HostileCatalogTests` to rewrite them.
enum HostileCatalogs {
    static let directory = Fixtures.url("assets/hostile")

    /// A small, valid catalog: an icon set with a banded LZVN bitmap, a zlib bitmap, a packed
    /// atlas with an internal link, and a stored PDF.
    static func base(leafCapacity: Int = 64, link: (x: Int, y: Int, width: Int, height: Int) = (1, 1, 4, 4),
                     linkTarget: [(UInt16, UInt16)] = [(1, 9), (2, 181), (12, 1)]) -> AssetCatalogBuilder.Built {
        var builder = AssetCatalogBuilder()
        builder.leafCapacity = leafCapacity
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "AppIcon60x60@2x.png", idiom: 1, scale: 2, width: 12, height: 12,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 12, height: 12), compression: .lzvn, bands: 2)
        builder.addBitmap(
            facet: "AppIcon", name: "AppIcon60x60@3x.png", idiom: 1, scale: 3, width: 18, height: 18,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 18, height: 18), compression: .zlib)
        builder.addFacet("Glyph", element: 9, part: 181)
        builder.addPackedImage(
            name: "ZZZZPackedAsset-1.0.0", scale: 1, width: 8, height: 8,
            premultipliedPixels: [UInt8](repeating: 0x40, count: 256), compression: .lzfseStored, key: [1: 9, 2: 181])
        builder.addInternalLink(facet: "Glyph", name: "Glyph.pdf", idiom: 0, scale: 1, frame: link, target: linkTarget)
        builder.addRawData(facet: "Glyph", name: "Glyph", pixelFormat: "PDF ", bytes: Array("%PDF-1.3\n%%EOF\n".utf8))
        return builder.build()
    }

    /// Rendition value blocks in `base()` order.
    enum Rendition: Int { case banded = 0, zlib, atlas, link, pdf }

    static func valueStart(_ built: AssetCatalogBuilder.Built, _ rendition: Rendition) -> Int {
        built.blocks[built.renditionValues[rendition.rawValue]].lowerBound
    }

    /// Offset of the rendition data (after the 184-byte header and the resources).
    static func dataStart(_ built: AssetCatalogBuilder.Built, _ rendition: Rendition) -> Int {
        let start = valueStart(built, rendition)
        let resources = Int(built.bytes[start + 168]) | Int(built.bytes[start + 169]) << 8
        return start + 184 + resources
    }

    static func blockTableEntry(_ built: AssetCatalogBuilder.Built, _ index: Int) -> Int {
        built.blockTableOffset + 4 + 8 * index
    }

    /// Every hostile case: file name (code, then case) and bytes.
    static var all: [(name: String, bytes: [UInt8])] {
        var cases: [(String, [UInt8])] = []
        func add(_ name: String, _ change: (inout AssetCatalogBuilder.Built) -> Void, from built: AssetCatalogBuilder.Built = base()) {
            var copy = built
            change(&copy)
            cases.append((name, copy.bytes))
        }

        add("CAR_NOT_BOM_STORE.bad-magic") { $0.bytes[0] = UInt8(ascii: "X") }
        add("CAR_NOT_BOM_STORE.short-file") { $0.bytes = Array($0.bytes.prefix(100)) }
        add("CAR_NOT_BOM_STORE.version-2") { $0.patch(8, uint32: 2, bigEndian: true) }
        add("CAR_TRUNCATED.cut-before-tables") { $0.bytes = Array($0.bytes.prefix($0.variablesOffset)) }
        add("CAR_TRUNCATED.block-count-past-end") { $0.patch($0.blockTableOffset, uint32: 0x0FFF_FFFF, bigEndian: true) }
        add("CAR_TRUNCATED.variable-count-past-end") { $0.patch($0.variablesOffset, uint32: 50_000, bigEndian: true) }
        add("CAR_BLOCK_OUT_OF_RANGE.variable-block-index") { built in
            // The first variable (CARHEADER) names a block far beyond the table.
            built.patch(built.variablesOffset + 4, uint32: 0x00FF_FFFF, bigEndian: true)
        }
        add("CAR_BLOCK_OUT_OF_RANGE.block-past-end") { built in
            let entry = blockTableEntry(built, built.renditionValues[Rendition.zlib.rawValue])
            built.patch(entry + 4, uint32: 0x7FFF_0000, bigEndian: true)
        }
        add("CAR_BLOCK_OUT_OF_RANGE.tree-entry-block") { built in
            let leaf = built.blocks[built.treeNodes["RENDITIONS"]?.first ?? 0].lowerBound
            built.patch(leaf + 12, uint32: 0xFFFF_FFF0, bigEndian: true)  // the first value block
        }
        add("CAR_TREE_LOOP.leaf-forward-to-itself") { built in
            let leafIndex = built.treeNodes["RENDITIONS"]?.first ?? 0
            built.patch(built.blocks[leafIndex].lowerBound + 4, uint32: UInt32(leafIndex), bigEndian: true)
        }
        add("CAR_TREE_LOOP.leaves-link-back", { built in
            let leaves = built.treeNodes["RENDITIONS"] ?? []
            // The last leaf's forward link goes back to the first.
            built.patch(built.blocks[leaves[leaves.count - 2]].lowerBound + 4, uint32: UInt32(leaves[0]), bigEndian: true)
        }, from: base(leafCapacity: 2))
        add("CAR_TREE_LOOP.index-node-is-its-own-child", { built in
            let nodes = built.treeNodes["RENDITIONS"] ?? []
            let index = nodes[nodes.count - 1]
            built.patch(built.blocks[index].lowerBound + 12, uint32: UInt32(index), bigEndian: true)
        }, from: base(leafCapacity: 2))
        add("CAR_TREE_INVALID.node-count-past-block") { built in
            let leaf = built.blocks[built.treeNodes["FACETKEYS"]?.first ?? 0].lowerBound
            built.patch(leaf + 2, uint16: 60_000, bigEndian: true)
        }
        add("CAR_TREE_INVALID.no-tree-magic") { built in
            built.bytes[built.blocks[built.variables["RENDITIONS"] ?? 0].lowerBound] = UInt8(ascii: "X")
        }
        add("CAR_MISSING_VARIABLE.no-renditions") { built in
            // Rename the RENDITIONS variable.
            let name = Array("RENDITIONS".utf8)
            if let start = (built.variablesOffset..<built.bytes.count).first(where: {
                built.bytes[$0..<min($0 + name.count, built.bytes.count)].elementsEqual(name)
            }) {
                built.bytes[start + name.count - 1] = UInt8(ascii: "Z")
            }
        }
        add("CAR_HEADER_INVALID.key-format-count") { built in
            built.patch(built.blocks[built.variables["KEYFORMAT"] ?? 0].lowerBound + 8, uint32: 0x4000_0000)
        }
        add("CAR_HEADER_INVALID.no-car-magic") { built in
            built.bytes[built.blocks[built.variables["CARHEADER"] ?? 0].lowerBound] = 0
        }
        add("CAR_RENDITION_INVALID.data-length-lies") { built in
            built.patch(valueStart(built, .zlib) + 180, uint32: 0x00FF_FFFF)
        }
        add("CAR_RENDITION_INVALID.resource-length-lies") { built in
            // The first resource (slices) claims to run past the resource list.
            built.patch(valueStart(built, .zlib) + 188, uint32: 5000)
        }
        add("CAR_RENDITION_INVALID.bitmap-count") { built in
            built.patch(valueStart(built, .atlas) + 172, uint32: 0x8000_0000)
        }
        add("CAR_RENDITION_INVALID.key-too-short") { built in
            let leaf = built.blocks[built.treeNodes["RENDITIONS"]?.first ?? 0].lowerBound
            let keyBlock = Int(built.bytes[leaf + 16]) << 24 | Int(built.bytes[leaf + 17]) << 16
                | Int(built.bytes[leaf + 18]) << 8 | Int(built.bytes[leaf + 19])
            built.patch(blockTableEntry(built, keyBlock) + 4, uint32: 2, bigEndian: true)
        }
        add("CAR_RENDITION_INVALID.raw-data-length-lies") { built in
            built.patch(dataStart(built, .pdf) + 8, uint32: 1_000_000)
        }
        add("CAR_IMAGE_TOO_LARGE.huge-dimensions") { built in
            let start = valueStart(built, .zlib)
            built.patch(start + 12, uint32: 100_000)
            built.patch(start + 16, uint32: 100_000)
        }
        add("CAR_IMAGE_TOO_LARGE.largest-dimensions") { built in
            // 4294967295 × 4294967295: the pixel count overflows 64 bits.
            let start = valueStart(built, .banded)
            built.patch(start + 12, uint32: 0xFFFF_FFFF)
            built.patch(start + 16, uint32: 0xFFFF_FFFF)
        }
        add("CAR_LINK_INVALID.largest-frame", { _ in }, from: base(link: (Int(UInt32.max), Int(UInt32.max), Int(UInt32.max), Int(UInt32.max))))
        add("CAR_PIXEL_DATA_INVALID.band-count") { built in
            built.patch(dataStart(built, .banded) + 12, uint32: 0x7FFF_FFFF)
        }
        add("CAR_PIXEL_DATA_INVALID.band-rows-lie") { built in
            built.patch(dataStart(built, .banded) + 16 + 12, uint32: 11)  // first band claims 11 of 12 rows
        }
        add("CAR_PIXEL_DATA_INVALID.band-length-lies") { built in
            built.patch(dataStart(built, .banded) + 16 + 16, uint32: 0x0FFF_FFFF)
        }
        add("CAR_PIXEL_DATA_INVALID.zlib-corrupt") { built in
            let payload = dataStart(built, .zlib) + 16
            for offset in 4..<12 { built.bytes[payload + offset] ^= 0xA5 }
        }
        add("CAR_PIXEL_DATA_INVALID.lzfse-truncated") { built in
            // The atlas's stored LZFSE block claims more bytes than follow.
            built.patch(dataStart(built, .atlas) + 16 + 4, uint32: 300)
        }
        add("CAR_PIXEL_DATA_INVALID.bytes-per-row") { built in
            // The bytes-per-row resource (the fifth, after resources of 28, 36, 16 and 12 bytes) says 1.
            built.patch(valueStart(built, .zlib) + 184 + 28 + 36 + 16 + 12 + 8, uint32: 1)
        }
        add("CAR_LINK_INVALID.frame-outside-target", { _ in }, from: base(link: (6, 6, 4, 4)))
        add("CAR_LINK_INVALID.missing-target", { _ in }, from: base(linkTarget: [(1, 9), (2, 182), (12, 1)]))
        add("CAR_LINK_INVALID.unknown-attribute", { _ in }, from: base(linkTarget: [(1, 9), (2, 181), (12, 1), (99, 1)]))
        add("CAR_LINK_INVALID.links-to-itself", { _ in }, from: base(linkTarget: [(1, 85), (2, 220), (12, 1), (15, 0), (17, 1002)]))
        add("CAR_NOT_EXTRACTABLE.palette-img") { built in
            built.patch(dataStart(built, .zlib) + 8, uint32: 8)
        }
        return cases
    }

    /// Opens the catalog, lists it, decodes every rendition and chooses the icon; the first error's code.
    static func firstErrorCode(_ bytes: [UInt8]) -> String? {
        catalogCode {
            let catalog = try AssetCatalog(bytes: bytes)
            for rendition in catalog.renditions {
                _ = "\(rendition.key) \(rendition.name) \(rendition.pixelFormat) \(rendition.layout) \(rendition.content)"
                if case .rawData = rendition.content {
                    _ = try catalog.rawData(for: rendition)
                } else {
                    _ = try catalog.image(for: rendition)
                }
            }
            _ = try catalog.appIcon(named: "AppIcon", iPadOnly: false)
        }
    }
}

@Suite("Hostile catalogs")
struct HostileCatalogTests {
    @Test func theBaseCatalogIsValid() throws {
        #expect(HostileCatalogs.firstErrorCode(HostileCatalogs.base().bytes) == nil)
        #expect(HostileCatalogs.firstErrorCode(HostileCatalogs.base(leafCapacity: 2).bytes) == nil)
        let catalog = try AssetCatalog(bytes: HostileCatalogs.base().bytes)
        #expect(Set(catalog.renditions.map(\.name)) == [
            "AppIcon60x60@2x.png", "AppIcon60x60@3x.png", "ZZZZPackedAsset-1.0.0", "Glyph.pdf", "Glyph",
        ])
    }

    @Test func committedFilesMatchTheGenerator() throws {
        let generated = HostileCatalogs.all
        if ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1" {
            try FileManager.default.createDirectory(at: HostileCatalogs.directory, withIntermediateDirectories: true)
            for (name, bytes) in generated {
                try Data(bytes).write(to: HostileCatalogs.directory.appendingPathComponent("\(name).car"))
            }
        }
        let committed = try FileManager.default.contentsOfDirectory(atPath: HostileCatalogs.directory.path)
            .filter { $0.hasSuffix(".car") }.sorted()
        #expect(committed == generated.map { "\($0.name).car" }.sorted(), "rewrite with IPAWRAP_WRITE_FIXTURES=1")
        for (name, bytes) in generated {
            #expect(try Fixtures.bytes("assets/hostile/\(name).car") == bytes, "\(name)")
        }
    }

    @Test(arguments: HostileCatalogs.all.map(\.name))
    func failsWithTheCodeInItsName(name: String) throws {
        let bytes = try Fixtures.bytes("assets/hostile/\(name).car")
        let expected = String(name.prefix { $0 != "." })
        #expect(HostileCatalogs.firstErrorCode(bytes) == expected)
    }

    /// The icon choice ranks a rendition of 4294967295² pixels first (its area saturates) and moves on
    /// when it cannot be decoded.
    @Test func iconChoiceSurvivesOverflowingDimensions() throws {
        let catalog = try AssetCatalog(bytes: try Fixtures.bytes("assets/hostile/CAR_IMAGE_TOO_LARGE.largest-dimensions.car"))
        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: false))
        #expect(selection.rendition.name == "AppIcon60x60@3x.png")
        let huge = try #require(selection.candidates.first { $0.rendition.width == Int(UInt32.max) })
        #expect(huge.rendition.area == Int.max)
        guard case .notExtractable(let code, _) = huge.verdict else {
            Issue.record("expected not extractable, got \(huge.verdict)")
            return
        }
        #expect(code == "CAR_IMAGE_TOO_LARGE")
    }

    /// Every prefix of a valid catalog fails cleanly.
    @Test func everyTruncationFailsCleanly() {
        let bytes = HostileCatalogs.base().bytes
        for length in stride(from: 0, to: bytes.count, by: 7) {
            let code = HostileCatalogs.firstErrorCode(Array(bytes.prefix(length)))
            #expect(code?.hasPrefix("CAR_") == true, "cut at \(length): \(code ?? "no error")")
        }
    }
}
