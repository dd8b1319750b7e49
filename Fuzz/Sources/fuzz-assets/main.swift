// Fuzzes the asset-catalog reader: `AssetCatalog(bytes:)`, the listing (facets and their
// renditions), `image(for:)`, `rawData(for:)` and `bitmapData(for:)` on each rendition, and
// `appIcon(named:iPadOnly:)` on each facet. Checks that:
// - every rendition is found again by its key and belongs to the facet that lists it;
// - a decoded bitmap has the rendition's dimensions and its raw rows are `bytesPerRow` apart;
// - the chosen app icon is one of the set's renditions, its image is what `image(for:)` gives, and
//   exactly one candidate is marked chosen.
// - under a deadline already passed (`--time-limit`), decoding a bitmap and writing it as a PNG
//   either give what they give without one or stop with `ARCHIVE_TIME_LIMIT`.
// Every refusal is an `AssetCatalogError` by the reader's typed throws.
import AssetCatalog
import FormatSupport
import FuzzDriver
import PNG

let passed = WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "fuzz")

/// Renditions and facets examined per input; the reader's own limits are far larger.
let examined = 64

func fuzzOne(_ bytes: [UInt8]) {
    guard let catalog = try? AssetCatalog(bytes: bytes) else { return }
    for facet in catalog.facets.prefix(examined) {
        for rendition in catalog.renditions(of: facet).prefix(examined) {
            precondition(rendition.identifier == facet.identifier, "a facet lists another facet's rendition")
        }
    }
    for rendition in catalog.renditions.prefix(examined) {
        precondition(catalog.rendition(for: rendition.key)?.key == rendition.key, "a rendition is not found by its key")
        if let facet = catalog.facet(of: rendition) {
            precondition(facet.identifier == rendition.identifier, "facet(of:) names another facet")
        }
        if let image = try? catalog.image(for: rendition), case .bitmap = rendition.content {
            precondition(image.width == rendition.width && image.height == rendition.height,
                         "a \(rendition.width)×\(rendition.height) bitmap decoded to \(image.width)×\(image.height)")
        }
        if let bitmap = try? catalog.bitmapData(for: rendition) {
            precondition(bitmap.bytesPerRow > 0 && bitmap.bytes.count >= bitmap.bytesPerRow * (bitmap.height - 1),
                         "bitmap rows do not fit in its bytes")
        }
        _ = try? catalog.rawData(for: rendition)
    }
    var lateLimits = AssetCatalog.Limits()
    lateLimits.clock = passed
    if let late = try? AssetCatalog(bytes: bytes, limits: lateLimits) {
        for rendition in late.renditions.prefix(examined) {
            do {
                let png = try late.pngFile(for: rendition)
                precondition((try? catalog.pngFile(for: rendition)) == png, "a PNG written under a passed deadline differs")
            } catch {
                precondition(
                    error.reason == .timeLimit || (try? catalog.pngFile(for: rendition)) == nil,
                    "a passed deadline turned into \(error.code): \(error)")
            }
        }
    }
    for facet in catalog.facets.prefix(examined) {
        for iPadOnly in [false, true] {
            guard let selection = try? catalog.appIcon(named: facet.name, iPadOnly: iPadOnly) else { continue }
            precondition(selection.candidates.filter { $0.verdict == .chosen }.count == 1, "not exactly one chosen candidate")
            precondition(selection.candidates.contains { $0.rendition.key == selection.rendition.key },
                         "the chosen rendition is not a candidate")
            precondition((try? catalog.image(for: selection.rendition)) == selection.image,
                         "the chosen icon's image differs from image(for:)")
        }
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
