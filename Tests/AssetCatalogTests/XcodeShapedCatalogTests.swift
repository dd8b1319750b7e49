import AssetCatalog
import FormatSupport
import PNG
import TestSupport
import Testing

/// The generated app's Assets.car (`XcodeShapedApp`) in the shape actool writes for PDF image sets
/// (isign's, checked in `IsignCatalogTests`): two PDF renditions stored as files, their bitmaps
/// packed into one LZFSE atlas per scale (the reference encoder's streams) and reached through
/// internal links.
@Suite struct XcodeShapedCatalogTests {
    let catalog: AssetCatalog

    init() throws {
        catalog = try AssetCatalog(bytes: try XcodeShapedApp.bytes("Assets.car"))
    }

    @Test func header() {
        #expect(catalog.header.coreUIVersion == 371)
        #expect(catalog.header.renditionCount == 11)
        #expect(catalog.facets.map(\.name).sorted() == ["first", "second"])
    }

    @Test func listsEveryRendition() throws {
        #expect(catalog.renditions.count == 11)
        let summary = catalog.renditions.map {
            "\($0.name) \($0.width)x\($0.height)@\($0.scaleFactor) \($0.pixelFormat) \($0.layout) \($0.compression?.description ?? "-")"
        }
        #expect(summary == [
            "first 0x0@0 PDF vector -",
            "second 0x0@0 PDF vector -",
            "ZZZZPackedAsset-1.0.0 24x32@100 ARGB packed image lzfse",
            "first.pdf 10x10@100 ARGB internal link -",
            "second.pdf 10x10@100 ARGB internal link -",
            "ZZZZPackedAsset-2.0.0 128x128@200 ARGB packed image lzfse",
            "first.pdf 62x62@200 ARGB internal link -",
            "second.pdf 62x62@200 ARGB internal link -",
            "ZZZZPackedAsset-3.0.0 128x128@300 ARGB packed image lzfse",
            "first.pdf 62x62@300 ARGB internal link -",
            "second.pdf 62x62@300 ARGB internal link -",
        ])
        let first = try #require(catalog.facet(named: "first"))
        #expect(catalog.renditions(of: first).count == 4)
        #expect(catalog.renditions.map { catalog.facet(of: $0)?.name ?? "-" } == [
            "first", "second", "-", "first", "second", "-", "first", "second", "-", "first", "second",
        ])
    }

    @Test func pdfRenditionsAreStoredFiles() throws {
        for (name, size) in [("first", 2000), ("second", 1600)] {
            let rendition = try #require(catalog.renditions.first { $0.name == name })
            #expect(rendition.content == .rawData(byteCount: size, format: "PDF"))
            let data = try catalog.rawData(for: rendition)
            #expect(data.count == size)
            #expect(data.starts(with: Array("%PDF-1.3".utf8)))
            #expect(data.suffix(6).elementsEqual("%%EOF\n".utf8))
            #expect(throws: AssetCatalogError.self) { try catalog.image(for: rendition) }
        }
    }

    /// Each atlas decodes to the bytes the reference decoder gave for its stream
    /// (`Tests/Fixtures/lzfse/NAME.bin`).
    @Test func atlasesMatchTheReferenceDecoder() throws {
        let vectors = ["ZZZZPackedAsset-1.0.0": "pixels-3k", "ZZZZPackedAsset-2.0.0": "pixels-64k", "ZZZZPackedAsset-3.0.0": "pixels-64k"]
        for rendition in catalog.renditions where rendition.layout == .packedImage {
            let bitmap = try catalog.bitmapData(for: rendition)
            let vector = try #require(vectors[rendition.name])
            #expect(bitmap.bytes == (try Fixtures.bytes("lzfse/\(vector).bin")), "\(rendition.name)")
            #expect(bitmap.bytesPerRow == rendition.width * 4)
        }
    }

    /// An internal link's image is its frame of the atlas, counted from the bottom-left corner.
    @Test func internalLinksCropTheirFrame() throws {
        var links = 0
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
            links += 1
        }
        #expect(links == 6)
    }

    @Test func noAppIconSet() throws {
        #expect(try catalog.appIcon(named: "AppIcon", iPadOnly: false) == nil)
        // "first" is an image set of packed bitmaps: the largest one is its 3x.
        let selection = try #require(try catalog.appIcon(named: "first", iPadOnly: false))
        #expect(selection.rendition.scaleFactor == 300)
        #expect(selection.candidates.first?.verdict == .notBitmap)
    }
}
