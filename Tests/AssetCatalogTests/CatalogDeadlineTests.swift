import FormatSupport
import Testing
import TestSupport
@testable import AssetCatalog

/// `--time-limit` inside the tree loops (issue 19): reading a catalog handed a deadline already
/// passed stops with `ARCHIVE_TIME_LIMIT` after one batch of entries, not after all of them.
@Suite struct CatalogDeadlineTests {
    @Test func aPassedDeadlineStopsTheTreeWalk() throws {
        var builder = AssetCatalogBuilder()
        // 8,200 facets: two units of work each (the tree entry and the facet), past one batch.
        for index in 0..<8_200 { builder.addFacet("Facet\(index)") }
        builder.addBitmap(
            facet: "Facet0", name: "Icon.png", idiom: 1, scale: 1, width: 2, height: 2,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 2, height: 2))
        let bytes = builder.build().bytes
        var limits = AssetCatalog.Limits()
        limits.clock = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")
        #expect(throws: AssetCatalogError(.timeLimit, limits.clock.timeLimitMessage)) {
            _ = try AssetCatalog(bytes: bytes, limits: limits)
        }
        // The same catalog reads with time to spare: the loop, not the catalog, stopped.
        #expect(try AssetCatalog(bytes: bytes).renditions.count == 1)
    }
}

/// `--time-limit` inside a bitmap's decode and its PNG encoding (issue 19): the zlib windows of
/// the pixel data (whole or in bands), the steps between decompression and conversion, and the
/// encoder of `pngFile(for:)`. A catalog of a few entries is read under a passed deadline (its
/// tree walks do not reach one batch of work), so what stops is the pixel work.
@Suite struct BitmapDeadlineTests {
    static let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "App.ipa")

    @Test(arguments: [
        (AssetCatalogBuilder.Compression.zlib, 1), (.zlib, 4), (.uncompressed, 1), (.lzfseStored, 1), (.lzvn, 2),
    ])
    func aPassedDeadlineStopsTheBitmapDecodeAndItsPNG(_ compression: AssetCatalogBuilder.Compression, bands: Int) throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("AppIcon")
        builder.addBitmap(
            facet: "AppIcon", name: "Big.png", idiom: 1, scale: 1, width: 512, height: 256,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 512, height: 256), compression: compression, bands: bands)
        let bytes = builder.build().bytes
        var limits = AssetCatalog.Limits()
        limits.clock = Self.passed
        let catalog = try AssetCatalog(bytes: bytes, limits: limits)
        let rendition = try #require(catalog.renditions.first)
        let timeLimit = AssetCatalogError(.timeLimit, Self.passed.timeLimitMessage)
        #expect(throws: timeLimit) { _ = try catalog.image(for: rendition) }
        #expect(throws: timeLimit) { _ = try catalog.pngFile(for: rendition) }
        // With time to spare the same rendition decodes.
        let spare = try AssetCatalog(bytes: bytes)
        #expect(try spare.image(for: rendition).width == 512)
        #expect(try spare.pngFile(for: rendition).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
