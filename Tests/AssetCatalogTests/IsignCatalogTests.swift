import AssetCatalog
import FormatSupport
import PNG
import TestSupport
import Testing

/// The Assets.car of isign's Test.app (Xcode 7.2, CoreUI 371.4, in `../shared`): two PDF image
/// sets, their bitmaps packed into one LZFSE atlas per scale and reached through internal links.
/// `XcodeShapedCatalogTests` checks the generated catalog of the same shape.
@Suite("isign Test.app Assets.car", .enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct IsignCatalogTests {
    let catalog: AssetCatalog

    init() throws {
        catalog = try AssetCatalog(bytes: try IsignFixture.bytes("Test.app/Assets.car"))
    }

    @Test func header() {
        #expect(catalog.header.coreUIVersion == 371)
        #expect(catalog.header.storageVersion == 11)
        #expect(catalog.header.renditionCount == 11)
        #expect(catalog.header.mainVersion == "@(#)PROGRAM:CoreUI  PROJECT:CoreUI-371.4")
        #expect(catalog.store.variables.map(\.name) == ["CARHEADER", "RENDITIONS", "FACETKEYS", "KEYFORMAT"])
    }

    @Test func keyFormatAndFacets() {
        #expect(catalog.keyFormat.attributes.map(\.rawValue) == [12, 15, 16, 23, 22, 20, 21, 17, 1, 2, 10, 6, 8])
        #expect(catalog.facets.map(\.name) == ["first", "second"])
        #expect(catalog.facets.map(\.identifier) == [31530, 21834])
        #expect(catalog.facets.first?[.element] == 85)
        #expect(catalog.facets.first?[.part] == 181)
    }

    @Test func listsEveryRendition() throws {
        #expect(catalog.renditions.count == 11)
        let summary = catalog.renditions.map {
            "\($0.name) \($0.width)x\($0.height)@\($0.scaleFactor) \($0.pixelFormat) \($0.layout) \($0.compression?.description ?? "-")"
        }
        #expect(summary == [
            "first 0x0@0 PDF vector -",
            "second 0x0@0 PDF vector -",
            "ZZZZPackedAsset-1.0.0 66x34@100 ARGB packed image lzfse",
            "first.pdf 30x30@100 ARGB internal link -",
            "second.pdf 30x30@100 ARGB internal link -",
            "ZZZZPackedAsset-2.0.0 126x64@200 ARGB packed image lzfse",
            "first.pdf 60x60@200 ARGB internal link -",
            "second.pdf 60x60@200 ARGB internal link -",
            "ZZZZPackedAsset-3.0.0 186x94@300 ARGB packed image lzfse",
            "first.pdf 90x90@300 ARGB internal link -",
            "second.pdf 90x90@300 ARGB internal link -",
        ])
        let first = try #require(catalog.facet(named: "first"))
        #expect(catalog.renditions(of: first).count == 4)
        #expect(catalog.renditions.map { catalog.facet(of: $0)?.name ?? "-" } == [
            "first", "second", "-", "first", "second", "-", "first", "second", "-", "first", "second",
        ])
        // Bands: one piece at 1x, two KCBC bands at 2x and 3x.
        let banding = catalog.renditions.compactMap { rendition -> Bool? in
            if case .bitmap(_, let banded, _) = rendition.content { return banded }
            return nil
        }
        #expect(banding == [false, true, true])
    }

    @Test func pdfRenditionsAreStoredFiles() throws {
        for (name, size) in [("first", 2275), ("second", 2233)] {
            let rendition = try #require(catalog.renditions.first { $0.name == name })
            #expect(rendition.content == .rawData(byteCount: size, format: "PDF"))
            let data = try catalog.rawData(for: rendition)
            #expect(data.count == size)
            #expect(data.starts(with: Array("%PDF-1.3".utf8)))
            #expect(data.suffix(6).elementsEqual("%%EOF\n".utf8))
            #expect(throws: AssetCatalogError.self) { try catalog.image(for: rendition) }
        }
    }

    /// Adler-32 of the decoded premultiplied rows, computed with the reference LZFSE decoder (PyPI
    /// lzfse) when the fixture was examined.
    @Test func atlasesMatchTheReferenceDecoder() throws {
        let expected: [String: (Int, UInt32)] = [
            "ZZZZPackedAsset-1.0.0": (8976, 738_556_332),
            "ZZZZPackedAsset-2.0.0": (32256, 299_100_934),
            "ZZZZPackedAsset-3.0.0": (69936, 2_040_353_003),
        ]
        for rendition in catalog.renditions where rendition.layout == .packedImage {
            let bitmap = try catalog.bitmapData(for: rendition)
            let (size, checksum) = try #require(expected[rendition.name])
            #expect(bitmap.bytes.count == size)
            #expect(bitmap.bytesPerRow == rendition.width * 4)
            #expect(adler32(bitmap.bytes) == checksum, "\(rendition.name)")
        }
    }

    @Test func decodesEveryBitmap() throws {
        var decoded = 0
        for rendition in catalog.renditions where rendition.pixelFormat == .argb {
            let image = try catalog.image(for: rendition)
            #expect(image.width == rendition.width)
            #expect(image.height == rendition.height)
            // The glyphs are drawn: some pixels are opaque, and the atlas has transparent padding.
            let alphas = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
            #expect(alphas.contains(255), "\(rendition.name)")
            #expect(alphas.contains(0), "\(rendition.name)")
            decoded += 1
        }
        #expect(decoded == 9)
    }

    /// An internal link's image is its frame of the atlas, counted from the bottom-left corner.
    @Test func internalLinksCropTheirFrame() throws {
        for rendition in catalog.renditions {
            guard let link = rendition.internalLink else { continue }
            let key = try #require(link.targetKey(in: catalog.keyFormat.attributes))
            let atlasRendition = try #require(catalog.rendition(for: key))
            #expect(atlasRendition.layout == .packedImage)
            let atlas = try catalog.image(for: atlasRendition)
            let image = try catalog.image(for: rendition)
            #expect(link.width == rendition.width && link.height == rendition.height)
            let top = atlas.height - link.y - link.height
            for row in [0, link.height / 2, link.height - 1] {
                let expected = atlas.pixels[((top + row) * atlas.width + link.x) * 4..<((top + row) * atlas.width + link.x + link.width) * 4]
                #expect(image.pixels[row * link.width * 4..<(row + 1) * link.width * 4] == expected)
            }
        }
    }

    @Test func noAppIconSet() throws {
        #expect(try catalog.appIcon(named: "AppIcon", iPadOnly: false) == nil)
        // "first" is an image set of packed bitmaps: the largest phone/universal one is its 3x.
        let selection = try #require(try catalog.appIcon(named: "first", iPadOnly: false))
        #expect(selection.rendition.scaleFactor == 300)
        #expect(selection.image.width == 90)
        #expect(selection.candidates.map(\.verdict) == [.notBitmap, .smaller, .smaller, .chosen])
    }
}

/// Adler-32 as zlib computes it.
func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    var index = 0
    while index < bytes.count {
        let end = min(index + 5552, bytes.count)
        while index < end {
            a += UInt32(bytes[index])
            b += a
            index += 1
        }
        a %= 65521
        b %= 65521
    }
    return b << 16 | a
}
