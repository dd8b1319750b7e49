import Foundation
import Testing
import TestSupport

/// The archive limit options (`--max-entries`, `--max-total-size`, `--max-ratio`) through
/// `inspect` and `wrap`: an ordinary app above a lowered limit is refused with exit 65 and the
/// limit's code, and `wrap` writes nothing.
@Suite struct ArchiveLimitCommandTests {
    struct Limit: Sendable, CustomStringConvertible {
        let option: String
        let value: String
        let code: String
        var description: String { "\(option) \(value)" }
    }

    static let limits = [
        Limit(option: "--max-entries", value: "3", code: "ARCHIVE_TOO_MANY_ENTRIES"),
        Limit(option: "--max-total-size", value: "1000", code: "ARCHIVE_TOTAL_SIZE_LIMIT"),
        Limit(option: "--max-ratio", value: "2", code: "ARCHIVE_EXPANSION_RATIO"),
    ]

    /// A clean app with an icon and a 1.5 MiB resource of repeated text (which deflate shrinks
    /// well over 2×, and well under the default 1000×).
    private func app() throws -> [UInt8] {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        let line = Array("\"key\" = \"a localized string, repeated\";\n".utf8)
        var text: [UInt8] = []
        while text.count < 3 << 19 { text += line }
        builder.addFile("en.lproj/Large.strings", text)
        return try builder.bytes()
    }

    @Test func theAppIsWithinTheDefaultLimitsAndAboveTheLoweredOnes() throws {
        let scratch = try ScratchDirectory("cli-limits")
        let input = try scratch.write("App.ipa", app())
        // The oracle: python's zipfile counts the entries and their sizes.
        let entries = try ZipOracle.entries(input)
        #expect(entries.count > 3)
        #expect(entries.reduce(0) { $0 + $1.fileSize } > 1_000)
        let large = try #require(entries.first { $0.nameString.hasSuffix("Large.strings") })
        #expect(large.fileSize >= 1 << 20)
        #expect(large.fileSize > 2 * large.compressedSize)
        #expect(large.fileSize < 1_000 * large.compressedSize)
        let result = try Command.ipawrap(["inspect", input, "--at", "2026-06-01"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func eachRefusalStatesTheArchivesRealFigures() throws {
        let scratch = try ScratchDirectory("cli-limits")
        let input = try scratch.write("App.ipa", app())
        let entries = try ZipOracle.entries(input)
        let large = try #require(entries.first { $0.nameString.hasSuffix("Large.strings") })

        let count = try Command.ipawrap(["inspect", input, "--max-entries", "3"])
        #expect(count.stderr.contains("\(input) has \(entries.count) entries, above the limit of 3"), "\(count.stderr)")
        // The whole archive's size, not the running sum at the entry that crossed the limit.
        let total = entries.reduce(UInt64(0)) { $0 + $1.fileSize }
        let size = try Command.ipawrap(["inspect", input, "--max-total-size", "1000"])
        #expect(size.stderr.contains("\(input) expands to \(total) bytes, above the limit of 1000"), "\(size.stderr)")
        let ratio = try Command.ipawrap(["inspect", input, "--max-ratio", "2"])
        #expect(ratio.stderr.contains("entry '\(large.nameString)' expands \(large.fileSize / large.compressedSize)× (limit 2×)"),
                "\(ratio.stderr)")
    }

    @Test(arguments: limits)
    func inspectRefusesAnArchiveAboveALimit(_ limit: Limit) throws {
        let scratch = try ScratchDirectory("cli-limits")
        let input = try scratch.write("App.ipa", app())
        let result = try Command.ipawrap(["inspect", input, limit.option, limit.value])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("ipawrap: error[\(limit.code)]: "), "\(result.stderr)")
        #expect(result.stderr.contains(input))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test(arguments: limits)
    func wrapRefusesAnArchiveAboveALimitAndWritesNothing(_ limit: Limit) throws {
        let scratch = try ScratchDirectory("cli-limits")
        let bytes = try app()
        let input = try scratch.write("App.ipa", bytes)
        for format in ["ipa", "mdx"] {
            let result = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.\(format)"), "--format", format, limit.option, limit.value])
            #expect(result.status == 65)
            #expect(result.stderr.hasPrefix("ipawrap: error[\(limit.code)]: "), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(scratch.listing() == ["App.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }
}
