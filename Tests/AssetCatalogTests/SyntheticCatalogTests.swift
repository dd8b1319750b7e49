import AssetCatalog
import Foundation
import PNG
import TestSupport
import Testing

/// Straight RGBA of opaque premultiplied BGRA rows: for alpha 255 the two differ only in byte order,
/// so this is an independent expectation for the decoder's output.
func opaqueRGBA(_ bgra: [UInt8]) -> [UInt8] {
    var rgba = bgra
    for index in stride(from: 0, to: bgra.count, by: 4) {
        rgba[index] = bgra[index + 2]
        rgba[index + 2] = bgra[index]
    }
    return rgba
}

/// The code of the `AssetCatalogError` that `body` throws, or nil.
func catalogCode(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as AssetCatalogError {
        return error.code
    } catch {
        return "unexpected \(type(of: error)): \(error)"
    }
}

@Suite("Synthetic catalogs from AssetCatalogBuilder")
struct SyntheticCatalogTests {
    @Test func appIconSetPrefersTheLargestPhoneRendition() throws {
        let catalog = try AssetCatalog(bytes: AssetCatalogBuilder.appIconCatalog())
        #expect(catalog.facets.map(\.name) == ["AppIcon"])
        #expect(catalog.renditions.count == 6)
        #expect(catalog.renditions.allSatisfy { $0.compression == .lzvn })

        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: false))
        #expect(selection.rendition.name == "AppIcon60x60@3x.png")
        #expect(selection.rendition.idiom == RenditionIdiom.phone.rawValue)
        #expect(selection.image.width == 180 && selection.image.height == 180)
        #expect(!selection.usedFallbackIdiom)
        let expected = opaqueRGBA(AssetCatalogBuilder.iconPixels(width: 180, height: 180, seed: 40))
        #expect(selection.image.pixels == expected)

        let verdicts = Dictionary(uniqueKeysWithValues: selection.candidates.map { ($0.rendition.name, $0.verdict) })
        #expect(verdicts["AppIcon60x60@2x.png"] == .smaller)
        #expect(verdicts["AppIcon60x60@3x.png"] == .chosen)
        #expect(verdicts["AppIcon83.5x83.5@2x~ipad.png"] == .otherIdiom)
        #expect(verdicts["AppIcon1024x1024.png"] == .otherIdiom)
    }

    @Test func iPadOnlyAppsUseThePadRenditions() throws {
        let catalog = try AssetCatalog(bytes: AssetCatalogBuilder.appIconCatalog())
        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: true))
        #expect(selection.rendition.name == "AppIcon83.5x83.5@2x~ipad.png")
        #expect(selection.image.width == 167)
        #expect(selection.image.pixels == opaqueRGBA(AssetCatalogBuilder.iconPixels(width: 167, height: 167, seed: 160)))
    }

    @Test func theIconSetIsTheOneInfoPlistNames() throws {
        let catalog = try AssetCatalog(bytes: AssetCatalogBuilder.appIconCatalog(named: "BrandIcon"))
        #expect(try catalog.appIcon(named: "AppIcon", iPadOnly: false) == nil)
        #expect(try catalog.appIcon(named: "brandicon", iPadOnly: false) == nil)
        let selection = try #require(try catalog.appIcon(named: "BrandIcon", iPadOnly: false))
        #expect(selection.rendition.name == "BrandIcon60x60@3x.png")
    }

    @Test func otherIdiomsAreAFallback() throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("AppIcon")
        for (name, idiom, size) in [("pad", UInt16(2), 152), ("marketing", UInt16(6), 256)] {
            builder.addBitmap(
                facet: "AppIcon", name: name, idiom: idiom, scale: 2, width: size, height: size,
                premultipliedPixels: AssetCatalogBuilder.iconPixels(width: size, height: size))
        }
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: false))
        #expect(selection.rendition.name == "pad")
        #expect(selection.usedFallbackIdiom)
    }

    @Test(arguments: [
        (AssetCatalogBuilder.Compression.uncompressed, 1), (.uncompressed, 4), (.zlib, 1), (.zlib, 3),
        (.lzfseStored, 1), (.lzfseStored, 5), (.lzvn, 1), (.lzvn, 2),
    ])
    func everyExtractableEncodingDecodes(compression: AssetCatalogBuilder.Compression, bands: Int) throws {
        let (width, height) = (45, 37)
        let pixels = AssetCatalogBuilder.iconPixels(width: width, height: height, seed: 7)
        var builder = AssetCatalogBuilder()
        builder.addFacet("Picture")
        builder.addBitmap(
            facet: "Picture", name: "Picture.png", idiom: 0, scale: 1, width: width, height: height,
            premultipliedPixels: pixels, compression: compression, bands: bands)
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let rendition = try #require(catalog.renditions.first)
        #expect(rendition.content == .bitmap(compression: RenditionCompression(rawValue: compression.code), banded: bands > 1, opaque: false))
        let bitmap = try catalog.bitmapData(for: rendition)
        #expect(bitmap.bytes == pixels)
        #expect(try catalog.image(for: rendition).pixels == opaqueRGBA(pixels))
    }

    @Test func paddedRowsAndTransparentEdges() throws {
        let (width, height) = (40, 40)
        let tight = AssetCatalogBuilder.iconPixels(width: width, height: height, transparentCorners: true)
        // Rows of 40 pixels stored 176 bytes apart (16 bytes of padding each).
        var padded: [UInt8] = []
        for row in 0..<height {
            padded += tight[(row * width * 4)..<((row + 1) * width * 4)] + [UInt8](repeating: 0xEE, count: 16)
        }
        var builder = AssetCatalogBuilder()
        builder.addFacet("Icon")
        builder.addBitmap(
            facet: "Icon", name: "Icon.png", idiom: 1, scale: 2, width: width, height: height,
            premultipliedPixels: padded, compression: .zlib, bytesPerRow: width * 4 + 16)
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let image = try catalog.image(for: try #require(catalog.renditions.first))
        #expect(image.width == width)
        for pixel in 0..<(width * height) {
            let (b, g, r, a) = (tight[pixel * 4], tight[pixel * 4 + 1], tight[pixel * 4 + 2], Int(tight[pixel * 4 + 3]))
            #expect(Int(image.pixels[pixel * 4 + 3]) == a)
            if a == 0 {
                #expect(image.pixels[(pixel * 4)..<(pixel * 4 + 3)].allSatisfy { $0 == 0 })
            } else {
                // Straight colour c = c' * 255 / a, within rounding.
                for (channel, premultiplied) in [(0, r), (1, g), (2, b)] {
                    let straight = Double(premultiplied) * 255 / Double(a)
                    #expect(abs(Double(image.pixels[pixel * 4 + channel]) - straight) <= 1.0)
                }
            }
        }
        let corners = [0, width - 1, (height - 1) * width, height * width - 1]
        #expect(corners.allSatisfy { image.pixels[$0 * 4 + 3] == 0 })
    }

    @Test func grayAlphaBitmaps() throws {
        // 3×2 pixels of premultiplied (gray, alpha).
        let pixels: [UInt8] = [0, 0, 128, 255, 64, 128, 255, 255, 10, 20, 0, 255]
        var builder = AssetCatalogBuilder()
        builder.addFacet("Mask")
        builder.addBitmap(
            facet: "Mask", name: "Mask.png", idiom: 0, scale: 1, width: 3, height: 2, premultipliedPixels: pixels,
            pixelFormat: "GA8 ")
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let rendition = try #require(catalog.renditions.first)
        #expect(rendition.pixelFormat.description == "GA8")
        let image = try catalog.image(for: rendition)
        #expect(image.pixels == [
            0, 0, 0, 0, 128, 128, 128, 255, 128, 128, 128, 128,
            255, 255, 255, 255, 128, 128, 128, 20, 0, 0, 0, 255,
        ])
    }

    @Test func opaqueBitmapsIgnoreStoredAlpha() throws {
        let pixels: [UInt8] = [10, 20, 30, 0, 40, 50, 60, 7]
        var builder = AssetCatalogBuilder()
        builder.addFacet("Opaque")
        builder.addBitmap(
            facet: "Opaque", name: "o", idiom: 0, scale: 1, width: 2, height: 1, premultipliedPixels: pixels,
            opaque: true)
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        #expect(try catalog.image(for: catalog.renditions[0]).pixels == [30, 20, 10, 255, 60, 50, 40, 255])
    }

    /// Frames count from the bottom-left corner: in a 4×6 atlas whose top half is red and bottom half
    /// blue, the frame at y = 0 is blue.
    @Test func internalLinksUseABottomLeftOrigin() throws {
        var atlas: [UInt8] = []
        for row in 0..<6 {
            for _ in 0..<4 { atlas += row < 3 ? [0, 0, 255, 255] : [255, 0, 0, 255] }
        }
        var builder = AssetCatalogBuilder()
        builder.addFacet("Glyph")
        builder.addPackedImage(
            name: "ZZZZPackedAsset-1.0.0", scale: 1, width: 4, height: 6, premultipliedPixels: atlas,
            compression: .lzvn, key: [1: 9, 2: 181])
        builder.addInternalLink(
            facet: "Glyph", name: "bottom", idiom: 0, scale: 1, frame: (0, 0, 4, 3), target: [(1, 9), (2, 181), (12, 1)])
        builder.addInternalLink(
            facet: "Glyph", name: "top", idiom: 1, scale: 1, frame: (1, 3, 2, 3), target: [(1, 9), (2, 181), (12, 1)])
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let bottom = try catalog.image(for: try #require(catalog.renditions.first { $0.name == "bottom" }))
        let top = try catalog.image(for: try #require(catalog.renditions.first { $0.name == "top" }))
        #expect(bottom.width == 4 && bottom.height == 3)
        #expect(bottom.pixels == Array([[UInt8]](repeating: [0, 0, 255, 255], count: 12).joined()))
        #expect(top.width == 2 && top.height == 3)
        #expect(top.pixels == Array([[UInt8]](repeating: [255, 0, 0, 255], count: 6).joined()))
    }

    @Test func storedFilesComeBackAsBytes() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 30)
        var builder = AssetCatalogBuilder()
        builder.addFacet("Logo")
        builder.addRawData(facet: "Logo", name: "Logo.png", pixelFormat: "DATA", bytes: png)
        builder.addRawData(facet: "Logo", name: "Logo.pdf", pixelFormat: "PDF ", bytes: Array("%PDF-1.7 x".utf8), idiom: 1)
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let stored = try #require(catalog.renditions.first { $0.name == "Logo.png" })
        #expect(stored.content == .rawData(byteCount: png.count, format: "PNG"))
        #expect(try catalog.rawData(for: stored) == png)
        #expect(catalogCode { _ = try catalog.image(for: stored) } == "CAR_NOT_EXTRACTABLE")
        let pdf = try #require(catalog.renditions.first { $0.name == "Logo.pdf" })
        #expect(pdf.pixelFormat == .pdf)
        #expect(pdf.content == .rawData(byteCount: 10, format: "PDF"))
    }

    @Test(arguments: [UInt32(1), 5, 6, 7, 8, 9, 10, 11, 99])
    func proprietaryEncodingsAreNotExtractable(code: UInt32) throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "big", idiom: 1, scale: 3, width: 60, height: 60,
            premultipliedPixels: [], compression: .raw(code: code, payload: [1, 2, 3, 4]))
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let rendition = try #require(catalog.renditions.first)
        #expect(rendition.compression?.isExtractable == false)
        #expect(catalogCode { _ = try catalog.image(for: rendition) } == "CAR_NOT_EXTRACTABLE")
        #expect(catalogCode { _ = try catalog.appIcon(named: "AppIcon", iPadOnly: false) } == "CAR_NOT_EXTRACTABLE")
    }

    @Test func anUndecodableLargestRenditionFallsBackToTheNext() throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "deepmap", idiom: 1, scale: 3, width: 180, height: 180, premultipliedPixels: [],
            compression: .raw(code: 11, payload: [0]))
        builder.addBitmap(
            facet: "AppIcon", name: "plain", idiom: 1, scale: 2, width: 120, height: 120,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 120, height: 120), compression: .lzvn)
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: false))
        #expect(selection.rendition.name == "plain")
        let deepmap = try #require(selection.candidates.first { $0.rendition.name == "deepmap" })
        guard case .notExtractable(let code, let reason) = deepmap.verdict else {
            Issue.record("expected a not-extractable verdict, got \(deepmap.verdict)")
            return
        }
        #expect(code == "CAR_NOT_EXTRACTABLE")
        #expect(reason.contains("deepmap2"))
    }

    @Test func defaultAppearanceComesBeforeDark() throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "dark", idiom: 0, scale: 1, width: 64, height: 64,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 64, height: 64), appearance: 1)
        builder.addBitmap(
            facet: "AppIcon", name: "light", idiom: 0, scale: 1, width: 32, height: 32,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 32, height: 32))
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let selection = try #require(try catalog.appIcon(named: "AppIcon", iPadOnly: false))
        #expect(selection.rendition.name == "light")
        #expect(selection.candidates.first { $0.rendition.name == "dark" }?.verdict == .otherAppearance)
    }

    @Test func treesWithSeveralLeavesAreReadInFull() throws {
        var builder = AssetCatalogBuilder()
        builder.leafCapacity = 2
        for index in 0..<7 {
            builder.addFacet("Set\(index)")
            builder.addBitmap(
                facet: "Set\(index)", name: "s\(index)", idiom: 1, scale: 2, width: 2, height: 2,
                premultipliedPixels: [UInt8](repeating: UInt8(index), count: 16))
        }
        let built = builder.build()
        #expect(built.treeNodes["RENDITIONS"]?.count == 5)  // four leaves and an index node
        let catalog = try AssetCatalog(bytes: built.bytes)
        #expect(catalog.facets.map(\.name) == (0..<7).map { "Set\($0)" })
        #expect(Set(catalog.renditions.map(\.name)) == Set((0..<7).map { "s\($0)" }))
        for facet in catalog.facets {
            #expect(catalog.renditions(of: facet).count == 1)
        }
    }

    /// `assets extract NAME`: a rendition's own name first, else the largest rendition of the
    /// facet of that name; nothing for a name that is neither.
    @Test func aRenditionIsFoundByItsNameOrItsFacets() throws {
        /// A catalog of one facet holding square renditions of the given names and sides.
        func makeCatalog(facet: String, _ renditions: [(name: String, side: Int)]) throws -> AssetCatalog {
            var builder = AssetCatalogBuilder()
            builder.addFacet(facet)
            for (name, side) in renditions {
                builder.addBitmap(
                    facet: facet, name: name, idiom: 1, scale: 2, width: side, height: side,
                    premultipliedPixels: [UInt8](repeating: 7, count: side * side * 4))
            }
            return try AssetCatalog(bytes: builder.build().bytes)
        }
        let catalog = try makeCatalog(facet: "Logo", [("logo-small", 2), ("logo-large", 4), ("Logo", 1)])
        #expect(catalog.rendition(namedOrFacet: "logo-small")?.width == 2)
        // The rendition called `Logo` wins over the facet of that name, whose largest is 4x4.
        #expect(catalog.rendition(namedOrFacet: "Logo")?.width == 1)
        #expect(catalog.rendition(namedOrFacet: "nothing") == nil)

        let facets = try makeCatalog(facet: "Badge", [("badge-a", 3), ("badge-b", 5), ("badge-c", 4)])
        #expect(facets.rendition(namedOrFacet: "Badge")?.name == "badge-b")
    }

    @Test func limitsAreEnforced() throws {
        let bytes = AssetCatalogBuilder.appIconCatalog()
        #expect(catalogCode { _ = try AssetCatalog(bytes: bytes, limits: .init(maximumEntries: 5)) } == "CAR_TOO_MANY_ENTRIES")
        let small = try AssetCatalog(bytes: bytes, limits: .init(maximumPixels: 150 * 150))
        let big = try #require(small.renditions.first { $0.width == 180 })
        #expect(catalogCode { _ = try small.image(for: big) } == "CAR_IMAGE_TOO_LARGE")
        // The icon choice skips what it cannot decode.
        #expect(try small.appIcon(named: "AppIcon", iPadOnly: false)?.rendition.width == 120)
    }

    @Test func metadataIsListed() throws {
        let catalog = try AssetCatalog(bytes: AssetCatalogBuilder.appIconCatalog())
        #expect(catalog.header.coreUIVersion == 609)
        #expect(catalog.header.versionString == "ipawrap AssetCatalogBuilder")
        #expect(catalog.extendedMetadata?.deploymentPlatform == "ios")
        #expect(catalog.extendedMetadata?.deploymentPlatformVersion == "14.0")
        let rendition = try #require(catalog.renditions.first { $0.name == "AppIcon60x60@3x.png" })
        #expect(rendition.key[.idiom] == 1 && rendition.key[.scale] == 3)
        #expect(rendition.scale == 3)
        #expect(rendition.layout == .onePartScale)
        #expect(rendition.bytesPerRow == 720)
        #expect(rendition.resourceTags == [1001, 1003, 1004, 1006, 1007])
        #expect(rendition.key.description.contains("idiom=1"))
    }

    /// The builder's LZVN encoder, checked against the reference decoder when python3 has the PyPI
    /// `lzfse` module (as `Scripts/make-lzfse-vectors` needs); always against our own decoder.
    @Test func lzvnEncoderAgreesWithTheReferenceDecoder() throws {
        let input = AssetCatalogBuilder.iconPixels(width: 30, height: 30, seed: 3)
        let payload = AssetCatalogBuilder.lzvnEncode(input)
        #expect(payload.count < input.count)
        var builder = AssetCatalogBuilder()
        builder.addFacet("P")
        builder.addBitmap(
            facet: "P", name: "p", idiom: 0, scale: 1, width: 30, height: 30, premultipliedPixels: input,
            compression: .raw(code: 3, payload: payload))
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        #expect(try catalog.bitmapData(for: catalog.renditions[0]).bytes == input)

        guard let reference = ReferenceLZFSE() else { return }
        var block = Array("bvxn".utf8)
        for value in [input.count, payload.count] { block += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        #expect(try reference.decompress(block + payload + Array("bvx$".utf8)) == input)
    }

    /// Random damage to a synthetic catalog: opening, listing and decoding either work or throw
    /// AssetCatalogError; debug builds check every subscript, so an out-of-range read stops the test.
    @Test func mutatedCatalogsNeverTrap() throws {
        var builder = AssetCatalogBuilder()
        builder.leafCapacity = 3
        builder.addFacet("AppIcon")
        for (index, compression) in [AssetCatalogBuilder.Compression.lzvn, .zlib, .lzfseStored, .uncompressed].enumerated() {
            builder.addBitmap(
                facet: "AppIcon", name: "i\(index)", idiom: 1, scale: index + 1, width: 12, height: 10,
                premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 12, height: 10, seed: UInt8(index)),
                compression: compression, bands: index % 2 == 0 ? 2 : 1)
        }
        builder.addPackedImage(
            name: "atlas", scale: 1, width: 8, height: 8, premultipliedPixels: [UInt8](repeating: 9, count: 256),
            key: [1: 9, 2: 181])
        builder.addInternalLink(facet: "AppIcon", name: "link", idiom: 0, scale: 1, frame: (1, 1, 4, 4), target: [(1, 9), (2, 181), (12, 1)])
        let original = builder.build().bytes
        var state: UInt64 = 0x1234_5678
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var failures = 0
        for _ in 0..<600 {
            var bytes = original
            for _ in 0..<(1 + next() % 3) {
                bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next())
            }
            let code = catalogCode {
                let catalog = try AssetCatalog(bytes: bytes)
                _ = try? catalog.appIcon(named: "AppIcon", iPadOnly: false)
                for rendition in catalog.renditions {
                    _ = try? catalog.image(for: rendition)
                    _ = try? catalog.rawData(for: rendition)
                }
            }
            if let code {
                #expect(code.hasPrefix("CAR_"), "\(code)")
                failures += 1
            }
        }
        #expect(failures > 0)
    }
}

/// Apple's reference decoder through python3 and the PyPI `lzfse` module, when both are installed.
struct ReferenceLZFSE {
    init?() {
        guard (try? Self.python(["-c", "import lzfse"], input: nil)) != nil else { return nil }
    }

    func decompress(_ stream: [UInt8]) throws -> [UInt8] {
        try Self.python(
            ["-c", "import lzfse, sys; sys.stdout.buffer.write(lzfse.decompress(sys.stdin.buffer.read()))"],
            input: stream)
    }

    private static func python(_ arguments: [String], input: [UInt8]?) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input ?? []))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
        return [UInt8](output)
    }
}
