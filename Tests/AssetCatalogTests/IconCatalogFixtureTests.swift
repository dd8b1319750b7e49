import AssetCatalog
import Foundation
import TestSupport
import Testing

/// `Tests/Fixtures/assets/AppIcon-lzfse.car`: an icon set whose 1024-pixel marketing rendition holds
/// the reference encoder's LZFSE stream of `lzfse/argb-1024x1024.lzfse` (also what the `lzfse`
/// benchmark decodes), beside phone and pad renditions in the other encodings.
///
/// Rewrite it with `IPAWRAP_WRITE_FIXTURES=1 swift test --filter IconCatalogFixtureTests`.
@Suite("AppIcon-lzfse.car")
struct IconCatalogFixtureTests {
    static let path = "assets/AppIcon-lzfse.car"

    static func generate() throws -> [UInt8] {
        let stream = try Fixtures.bytes("lzfse/argb-1024x1024.lzfse")
        var builder = AssetCatalogBuilder()
        builder.versionString = "ipawrap AssetCatalogBuilder (AppIcon-lzfse.car)"
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "AppIcon1024x1024.png", idiom: 6, scale: 1, width: 1024, height: 1024,
            premultipliedPixels: [], compression: .lzfse(stream))
        let others: [(String, UInt16, Int, Int, AssetCatalogBuilder.Compression, Int)] = [
            ("AppIcon60x60@2x.png", 1, 2, 120, .zlib, 1),
            ("AppIcon60x60@3x.png", 1, 3, 180, .lzvn, 3),
            ("AppIcon83.5x83.5@2x~ipad.png", 2, 2, 167, .lzfseStored, 2),
        ]
        for (index, (name, idiom, scale, size, compression, bands)) in others.enumerated() {
            builder.addBitmap(
                facet: "AppIcon", name: name, idiom: idiom, scale: scale, width: size, height: size,
                premultipliedPixels: AssetCatalogBuilder.iconPixels(
                    width: size, height: size, seed: UInt8(50 * index), transparentCorners: true),
                compression: compression, bands: bands)
        }
        return builder.build().bytes
    }

    @Test func committedFileMatchesTheGenerator() throws {
        let generated = try Self.generate()
        if ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1" {
            try Data(generated).write(to: Fixtures.url(Self.path))
        }
        #expect(try Fixtures.bytes(Self.path) == generated, "rewrite with IPAWRAP_WRITE_FIXTURES=1")
    }

    @Test func referenceEncodedRenditionDecodes() throws {
        let catalog = try AssetCatalog(bytes: try Fixtures.bytes(Self.path))
        let marketing = try #require(catalog.renditions.first { $0.width == 1024 })
        #expect(marketing.compression == .lzfse)
        #expect(marketing.idiom == RenditionIdiom.marketing.rawValue)
        let bitmap = try catalog.bitmapData(for: marketing)
        #expect(bitmap.bytes.count == 1024 * 1024 * 4)
        // The Adler-32 the generator recorded from the encoder's input.
        let manifest = try JSONSerialization.jsonObject(with: Data(try Fixtures.bytes("lzfse/vectors.json"))) as? [String: Any]
        let benchmark = try #require(manifest?["benchmark"] as? [String: Any])
        #expect(adler32(bitmap.bytes) == (benchmark["adler32"] as? NSNumber)?.uint32Value)
        let image = try catalog.image(for: marketing)
        #expect(image.width == 1024)
        // Rounded corners are transparent, the centre opaque.
        #expect(image.pixels[3] == 0)
        #expect(image.pixels[(512 * 1024 + 512) * 4 + 3] == 255)
    }

    @Test func iconChoice() throws {
        let catalog = try AssetCatalog(bytes: try Fixtures.bytes(Self.path))
        #expect(try catalog.appIcon(named: "AppIcon", iPadOnly: false)?.rendition.name == "AppIcon60x60@3x.png")
        #expect(try catalog.appIcon(named: "AppIcon", iPadOnly: true)?.rendition.name == "AppIcon83.5x83.5@2x~ipad.png")
        for rendition in catalog.renditions {
            let image = try catalog.image(for: rendition)
            #expect(image.width == rendition.width && image.height == rendition.height)
        }
    }
}
