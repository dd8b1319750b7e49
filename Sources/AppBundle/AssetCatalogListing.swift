import AssetCatalog
import Foundation

/// What `assets list` reports of a catalog: each rendition with its facet, size, scale, idiom,
/// pixel format, layout or compression, and whether ipawrap can extract it. The `--json` form is
/// this value encoded; the text form is rendered from the same rows.
public struct AssetCatalogListing: Encodable, Sendable {
    /// The catalog's path (`Payload/App.app/Assets.car`, or a bare file as given).
    public let path: String
    public let renditions: [Row]

    public init(path: String, catalog: AssetCatalog) {
        self.path = path
        self.renditions = catalog.renditions.map { Row(rendition: $0, facet: catalog.facet(of: $0)?.name) }
    }

    public struct Row: Encodable, Sendable {
        public let facet: String?
        public let name: String
        public let width: Int
        public let height: Int
        /// `2`, `3`, `1.5`: as short as the number allows.
        public let scale: String
        public let idiom: String
        public let pixelFormat: String
        public let layout: String
        public let compression: String?
        public let extractable: Bool

        public init(rendition: Rendition, facet: String?) {
            self.facet = facet
            self.name = rendition.name
            self.width = rendition.width
            self.height = rendition.height
            self.scale = String(format: "%g", rendition.scale)
            self.idiom = rendition.idiomName
            self.pixelFormat = "\(rendition.pixelFormat)"
            self.layout = "\(rendition.layout)"
            self.compression = rendition.compression.map { "\($0)" }
            self.extractable = rendition.isExtractable
        }
    }
}
