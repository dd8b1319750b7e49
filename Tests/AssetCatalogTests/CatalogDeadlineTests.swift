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
