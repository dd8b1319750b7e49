import AppBundle
import ArgumentParser
import AssetCatalog
import FormatSupport
import Foundation
import OutputFiles
import Reporting
import Zip

struct AssetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "Read the app's compiled asset catalog (Assets.car).",
        subcommands: [List.self, Extract.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the facets and renditions of the app's Assets.car.",
            discussion: """
                Shows every rendition with its size, scale, idiom, pixel format, compression and whether \
                ipawrap can extract it. The input is an .ipa (its app's Assets.car) or a bare Assets.car file. \
                Exit codes: 0 listed, 1 the app has no Assets.car, 65 bad input, 74 I/O.
                """)

        @Argument(help: "The .ipa (or .app folder or .xcarchive) whose app catalog to list, or an Assets.car file.")
        var ipa: String

        @Flag(help: "Print the listing as JSON.")
        var json = false

        @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

        func run() throws {
            let found = try reportingErrors(json: json ? ipa : nil) {
                guard let (path, catalog) = try AssetsCommand.catalog(in: ipa, limits: limits.limits) else { return false }
                let listing = AssetCatalogListing(path: path, catalog: catalog)
                if json {
                    print(try ReportJSON.string(listing))
                } else {
                    print("\(path): \(catalog.facets.count) facets, \(catalog.renditions.count) renditions "
                        + "(CoreUI \(catalog.header.coreUIVersion), \(catalog.header.versionString))")
                    for row in listing.renditions {
                        print("  \(Terminal.escaped(row.facet ?? "-"))  \(Terminal.escaped(row.name))  \(row.width)x\(row.height) @\(row.scale)x  "
                            + "idiom \(row.idiom)  \(row.pixelFormat)  \(row.compression ?? row.layout)"
                            + (row.extractable ? "" : "  (not extractable)"))
                    }
                }
                return true
            }
            if !found { throw ExitCode(1) }
        }
    }

    struct Extract: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extract",
            abstract: "Write one rendition of an Assets.car (in an .ipa, or a bare file) as a PNG.",
            discussion: """
                NAME is a rendition's name (as `assets list` shows it) or a facet's name, for its largest \
                rendition. Bitmaps are decoded (LZFSE, LZVN, zlib) and written as standard PNGs; stored PNGs as \
                they are. Exit codes: 0 written, 1 no such rendition or no Assets.car, 65 bad input or a \
                rendition that cannot be extracted, 74 I/O.
                """)

        @Argument(help: "The .ipa (or .app folder or .xcarchive) whose app catalog to read, or an Assets.car file.")
        var input: String

        @Argument(help: "The rendition or facet name.")
        var name: String

        @Option(name: [.short, .customLong("output")], help: "Where to write the PNG.")
        var output: String

        @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

        func run() throws {
            let written = try reportingErrors {
                guard let (path, catalog) = try AssetsCommand.catalog(in: input, limits: limits.limits) else { return false }
                guard let rendition = catalog.rendition(namedOrFacet: name) else {
                    Terminal.standardError("ipawrap: \(path): no rendition or facet named '\(name)' (see ipawrap assets list)")
                    return false
                }
                let png = try catalog.pngFile(for: rendition)
                let file = try AtomicOutputFile(destination: output)
                try file.write(png, at: 0)
                try file.commit(length: UInt64(png.count), synchronize: false)
                print("Wrote \(output) (\(rendition.width)x\(rendition.height)) from \(path)#\(rendition.name)")
                return true
            }
            if !written { throw ExitCode(1) }
        }
    }

    /// The catalog of an .ipa's app, or of a bare Assets.car file, with the path it is named by;
    /// nil (after saying so) when the app has none.
    static func catalog(in input: String, limits: ArchiveLimits) throws -> (String, AssetCatalog)? {
        guard let (path, catalog) = try AssetCatalogSource.open(input, limits: limits) else {
            Terminal.standardError("ipawrap: \(input): the app has no Assets.car")
            return nil
        }
        return (path, catalog)
    }
}
