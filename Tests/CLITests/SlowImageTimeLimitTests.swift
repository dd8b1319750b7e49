import Foundation
import Testing
import TestSupport

/// `--time-limit` inside the image loops (issue 19): an app icon that is a large CgBI PNG, and an
/// `Assets.car` bitmap of the same size, each small in the archive (their rows repeat, so they
/// compress a thousandfold) but seconds of work to inflate, convert and re-encode as a standard
/// PNG. Before the PNG expansion, the encoder and the catalog's pixel decode checked the deadline,
/// `icon` and `assets extract` finished that work whatever the limit; now they stop within a
/// second of it. A batch given a folder tree too large to search in time stops the same way.
@Suite struct SlowImageTimeLimitTests {
    // A quarter second, as in SlowInputTimeLimitTests: reached on a quiet machine too.
    static let limit = 0.25
    /// 4096 × 4096 pixels: 64 MiB of RGBA, within the default `--max-memory` with its scanlines.
    static let side = 4096

    /// `count` rows of `side` pixels, each row the same gradient (4 bytes a pixel), each preceded
    /// by `filterByte` when given.
    static func rows(side: Int, filterByte: UInt8?) -> [UInt8] {
        var row: [UInt8] = filterByte.map { [$0] } ?? []
        for x in 0..<side {
            let value = UInt8(truncatingIfNeeded: x)
            row += [value, value &* 3, value &* 7, 255]
        }
        var all: [UInt8] = []
        all.reserveCapacity(row.count * side)
        for _ in 0..<side { all += row }
        return all
    }

    // Without a limit, `icon` and `assets extract` take tens of seconds on these files in a
    // debug build (about 50 s on a loaded machine), so the tests do not run them to the end.

    /// An Apple CgBI PNG (raw deflate, BGRA, opaque) of `side` × `side` pixels.
    static func slowCgBI(side: Int) -> [UInt8] {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        CgBIEncoder.appendChunk("CgBI", CgBIEncoder.be32(0x5000_2002), to: &file)
        let size = CgBIEncoder.be32(UInt32(side))
        CgBIEncoder.appendChunk("IHDR", size + size + [8, 6, 0, 0, 0], to: &file)
        for piece in CgBIEncoder.deflate(rows(side: side, filterByte: 0), zlib: false, flushAt: nil) {
            CgBIEncoder.appendChunk("IDAT", piece, to: &file)
        }
        CgBIEncoder.appendChunk("IEND", [], to: &file)
        return file
    }

    /// A standard 1-bit palette PNG of 8192 × 8192 pixels (the 64 Mpx bound): a 1 MiB inflate
    /// and unfiltering, then 64 Mi pixels to expand to RGBA (256 MiB, within `--max-memory`).
    /// Only the expansion is slow, so it shows that loop checks the deadline.
    static func slowPalettePNG() -> [UInt8] {
        let side = 8192
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let size = CgBIEncoder.be32(UInt32(side))
        CgBIEncoder.appendChunk("IHDR", size + size + [1, 3, 0, 0, 0], to: &file)
        CgBIEncoder.appendChunk("PLTE", [0x20, 0x40, 0x80, 0xF0, 0xE0, 0xD0], to: &file)
        let row: [UInt8] = [0] + (0..<(side / 8)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var rows: [UInt8] = []
        rows.reserveCapacity(row.count * side)
        for _ in 0..<side { rows += row }
        for piece in CgBIEncoder.deflate(rows, zlib: true, flushAt: nil) {
            CgBIEncoder.appendChunk("IDAT", piece, to: &file)
        }
        CgBIEncoder.appendChunk("IEND", [], to: &file)
        return file
    }

    /// An app whose only icon is `CFBundleIconFiles` → `Icon.png`: a slow CgBI PNG (inflate,
    /// expansion and re-encoding) or a slow palette PNG (the expansion).
    static func slowIconApp(_ kind: String) throws -> [UInt8] {
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Icon.png", kind == "CgBI" ? slowCgBI(side: side) : slowPalettePNG())
        return try builder.bytes()
    }

    /// An app whose `Assets.car` holds the icon set `AppIcon` with one zlib bitmap of `side` pixels.
    static func slowCatalogApp() throws -> [UInt8] {
        var catalog = AssetCatalogBuilder()
        catalog.addFacet("AppIcon")
        catalog.addBitmap(
            facet: "AppIcon", name: "AppIcon1024x1024.png", idiom: 6, scale: 1, width: side, height: side,
            premultipliedPixels: rows(side: side, filterByte: nil), compression: .zlib, opaque: true)
        var builder = IPABuilder()
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", catalog.build().bytes)
        return try builder.bytes()
    }

    /// Runs `arguments` (the input first) with `--time-limit` and checks docs/commands.md's promise:
    /// exit 65, one `ARCHIVE_TIME_LIMIT` line naming the input, nothing written, within the limit
    /// plus a margin for process start and a loaded machine.
    static func expectStopsInTime(
        _ arguments: [String], input: String, scratch: ScratchDirectory, listing: [String]
    ) throws {
        let run = try TimeLimitRun.ipawrap(arguments + ["--time-limit", "\(limit)"])
        let result = run.result
        let label = arguments.prefix(2).joined(separator: " ")
        #expect(result.status == 65, "\(label): \(result.stderr)")
        #expect(result.stderr.hasPrefix("ipawrap: error[ARCHIVE_TIME_LIMIT]: \(input) took longer"), "\(label): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(label): \(result.stderr)")
        run.expectWithin(limit: limit, sanitized: ResourceLimitTests.sanitized, label)
        #expect(scratch.listing() == listing, "\(label)")
    }

    @Test(arguments: ["CgBI", "palette"])
    func aSlowIconStopsWithinASecondOfTheTimeLimit(_ kind: String) throws {
        let scratch = try ScratchDirectory("slow-icon")
        let bytes = try Self.slowIconApp(kind)
        let input = try scratch.write("Slow.ipa", bytes)
        try Self.expectStopsInTime(
            ["icon", input, "-o", scratch.path("icon.png")], input: input, scratch: scratch, listing: ["Slow.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    @Test func aSlowAssetCatalogBitmapStopsWithinASecondOfTheTimeLimit() throws {
        let scratch = try ScratchDirectory("slow-car")
        let bytes = try Self.slowCatalogApp()
        let input = try scratch.write("Slow.ipa", bytes)
        for command in [["assets", "extract", input, "AppIcon"], ["icon", input]] {
            try Self.expectStopsInTime(
                command + ["-o", scratch.path("icon.png")], input: input, scratch: scratch, listing: ["Slow.ipa"])
        }
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    @Test func aFolderTreeTooLargeToSearchInTimeStopsTheBatch() throws {
        let scratch = try ScratchDirectory("slow-discovery")
        // 6,000 empty .ipa files in 12 folders: several milliseconds to search on a quiet machine
        // (a listing, an lstat and a realpath each), so a limit of a millisecond is passed while
        // the folders are searched, long before a job could start.
        for folder in 0..<12 {
            let path = scratch.path("apps/team\(folder)")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for index in 0..<500 {
                let descriptor = open(path + "/App\(index).ipa", O_CREAT | O_WRONLY, 0o644)
                try #require(descriptor >= 0)
                close(descriptor)
            }
        }
        let folder = scratch.path("apps")
        let before = scratch.listing()
        let run = try TimeLimitRun.ipawrap(["batch", "check", folder, "--time-limit", "0.001"])
        let result = run.result
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ipawrap: error[BATCH_FOLDER_TIME_LIMIT]: \(folder)"), "\(result.stderr)")
        #expect(result.stderr.contains("took longer than the limit of 0.001 s"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no job ran: \(result.stdout)")
        run.expectWithin(limit: 0.001, sanitized: ResourceLimitTests.sanitized, "batch check")
        #expect(scratch.listing() == before)
    }
}
