import AppBundle
import AssetCatalog
import Foundation
import Testing
import TestSupport

/// What `assets list` reports of a catalog, in text and as `--json`: one row per rendition.
@Suite struct AssetCatalogListingTests {
    @Test func eachRenditionIsARowWithItsFacet() throws {
        var builder = AssetCatalogBuilder()
        builder.addFacet("Logo")
        builder.addBitmap(
            facet: "Logo", name: "logo", idiom: 1, scale: 2, width: 3, height: 2,
            premultipliedPixels: [UInt8](repeating: 7, count: 3 * 2 * 4))
        let catalog = try AssetCatalog(bytes: builder.build().bytes)
        let listing = AssetCatalogListing(path: "Payload/App.app/Assets.car", catalog: catalog)
        #expect(listing.path == "Payload/App.app/Assets.car")
        let row = try #require(listing.renditions.first)
        #expect(listing.renditions.count == catalog.renditions.count)
        #expect(row.facet == "Logo" && row.name == "logo")
        #expect(row.width == 3 && row.height == 2)
        // The scale as short as the number allows: `2`, not `2.0`.
        #expect(row.scale == "2")
        #expect(row.idiom == catalog.renditions[0].idiomName)
        #expect(row.extractable)
    }
}
