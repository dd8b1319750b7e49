import AppBundle
import ArgumentParser
import AssetCatalog
import FormatSupport
import Foundation
import IPAArchive

struct AssetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "Read the app's compiled asset catalog (Assets.car).",
        subcommands: [List.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the facets and renditions of the app's Assets.car.",
            discussion: """
                Shows every rendition with its size, scale, idiom, pixel format, compression and whether \
                ipawrap can extract it. The input is an .ipa (its app's Assets.car) or a bare Assets.car file. \
                Exit codes: 0 listed, 1 the app has no Assets.car, 65 bad input, 74 I/O.
                """)

        @Argument(help: "The .ipa whose app catalog to list, or an Assets.car file.")
        var ipa: String

        @Flag(help: "Print the listing as JSON.")
        var json = false

        @OptionGroup var limits: ArchiveLimitOptions

        func run() throws {
            let found = try reportingErrors {
                let path: String
                let bytes: [UInt8]
                if let bare = try Self.bareCatalog(at: ipa, limit: limits.limits.maximumMemory) {
                    (path, bytes) = (ipa, bare)
                } else {
                    let archive = try AppArchive(path: ipa, limits: limits.limits)
                    path = archive.app.path + "/Assets.car"
                    guard let read = try archive.read(path, maximumSize: .max) else {  // within --max-memory
                        Terminal.standardError("ipawrap: \(ipa): the app has no Assets.car")
                        return false
                    }
                    bytes = read
                }
                let catalog = try AssetCatalog(bytes: bytes)
                let rows = catalog.renditions.map { Row(rendition: $0, facet: catalog.facet(of: $0)?.name) }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(Listing(path: path, renditions: rows)), as: UTF8.self))
                } else {
                    print("\(path): \(catalog.facets.count) facets, \(catalog.renditions.count) renditions "
                        + "(CoreUI \(catalog.header.coreUIVersion), \(catalog.header.versionString))")
                    for row in rows {
                        print("  \(row.facet ?? "-")  \(row.name)  \(row.width)x\(row.height) @\(row.scale)x  "
                            + "idiom \(row.idiom)  \(row.pixelFormat)  \(row.compression ?? row.layout)"
                            + (row.extractable ? "" : "  (not extractable)"))
                    }
                }
                return true
            }
            if !found { throw ExitCode(1) }
        }

        /// The whole file when it is a compiled asset catalog (a BOM store, magic `BOMStore`) and
        /// not a zip archive; nil otherwise. Larger than `limit` is the memory-limit error.
        static func bareCatalog(at path: String, limit: UInt64) throws -> [UInt8]? {
            // Not readable here (a folder, a missing file): the archive reader gives the error.
            guard let source = try? FileByteSource(path: path), source.size >= 8, try source.read(offset: 0, count: 8) == Array("BOMStore".utf8) else { return nil }
            guard source.size <= limit else {
                throw ArchiveError.memoryLimit(archive: path, what: "the catalog", size: source.size, limit: limit)
            }
            return try source.read(offset: 0, count: Int(source.size))
        }
    }

    struct Listing: Encodable {
        let path: String
        let renditions: [Row]
    }

    struct Row: Encodable {
        let facet: String?
        let name: String
        let width: Int
        let height: Int
        let scale: String
        let idiom: String
        let pixelFormat: String
        let layout: String
        let compression: String?
        let extractable: Bool

        init(rendition: Rendition, facet: String?) {
            self.facet = facet
            self.name = rendition.name
            self.width = rendition.width
            self.height = rendition.height
            self.scale = String(format: "%g", rendition.scale)
            self.idiom = Self.idiomName(rendition.idiom)
            self.pixelFormat = "\(rendition.pixelFormat)"
            self.layout = "\(rendition.layout)"
            self.compression = rendition.compression.map { "\($0)" }
            switch rendition.content {
            case .bitmap(let compression, _, _): extractable = compression.isExtractable
            case .internalLink: extractable = true
            case .rawData, .other, .empty: extractable = false
            }
        }

        static func idiomName(_ idiom: UInt16) -> String {
            switch idiom {
            case 0: "universal"
            case 1: "phone"
            case 2: "pad"
            case 3: "tv"
            case 4: "car"
            case 5: "watch"
            case 6: "marketing"
            case 7: "mac"
            case 8: "vision"
            default: "idiom \(idiom)"
            }
        }
    }
}
