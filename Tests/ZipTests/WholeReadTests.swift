import Foundation
import FormatSupport
import Testing
import TestSupport
@testable import Zip

/// Entries are read whole (libdeflate, one call, the CRC over the result) when they fit
/// `ZipArchive.wholeReadLimit` and `--max-memory`, else streamed (zlib). Both
/// readings must give the same bytes and, for a hostile entry, the same coded error.
@Suite struct WholeReadTests {
    static let path = "Payload/A.app/data.bin"

    /// Text with repeats, which deflate shrinks about threefold.
    static func text(_ count: Int) -> [UInt8] {
        var generator = SplitMix64(seed: 29)
        let words = (0..<300).map { _ in (0..<Int.random(in: 2...9, using: &generator)).map { _ in UInt8.random(in: 97...122, using: &generator) } }
        var bytes: [UInt8] = []
        while bytes.count < count { bytes += words[Int.random(in: 0..<words.count, using: &generator)] + [0x20] }
        return Array(bytes.prefix(count))
    }

    /// An archive holding `entry` at `path`, written to `scratch`.
    static func archive(_ entry: ZipBuilder.Entry, in scratch: ScratchDirectory) throws -> String {
        var zip = ZipBuilder()
        zip.directory("Payload/A.app/")
        zip.entries.append(entry)
        return try scratch.write("entry.ipa", zip.bytes())
    }

    static func entry(_ data: [UInt8], stream: [UInt8]? = nil) -> ZipBuilder.Entry {
        ZipBuilder.Entry(
            name: Array(path.utf8), data: data, mode: 0o100644,
            compression: stream.map { .raw(method: 8, data: $0) } ?? .deflate)
    }

    /// Limits that stream `entry` (its compressed and inflated bytes just over `--max-memory`)
    /// while still admitting it whole in memory for `read`.
    static func streaming(_ entry: ArchiveEntry) -> ArchiveLimits {
        ArchiveLimits(maximumMemory: entry.compressedSize + entry.uncompressedSize - 1)
    }

    /// What reading the entry gives: its bytes (by `read` and by `stream`, which must agree) or
    /// the error's code and message.
    static func outcome(_ path: String, limits: ArchiveLimits = .default) throws -> Result<[UInt8], ArchiveError> {
        let zip = try ZipArchive(path: path, limits: limits)
        let entry = try #require(zip.entry(named: Self.path))
        var streamed: [UInt8] = []
        let byStream = Result { () throws(ArchiveError) -> [UInt8] in
            try zip.stream(entry) { streamed += $0 }
            return streamed
        }
        let zipAgain = try ZipArchive(path: path, limits: limits)
        let byRead = Result { () throws(ArchiveError) -> [UInt8] in
            try zipAgain.read(entry, maximumSize: .max)
        }
        #expect(byStream == byRead)
        return byRead
    }

    /// A hostile entry, how it was made, and the code both readings must refuse it with.
    struct Hostile: CustomTestStringConvertible, Sendable {
        let name: String
        let code: String
        let make: @Sendable () -> ZipBuilder.Entry
        var testDescription: String { name }
    }

    static let original = text(300_000)

    static let hostile: [Hostile] = [
        Hostile(name: "declares more than its stream holds", code: "ARCHIVE_SIZE_MISMATCH") {
            var entry = Self.entry(original + text(1000), stream: ZipBuilder.deflate(original))
            entry.centralCRC = ZipBuilder.crc32(original)
            entry.localCRC = entry.centralCRC
            return entry
        },
        // The CRC is checked over what the stream held first.
        Hostile(name: "declares more, and the CRC of what it declares", code: "ARCHIVE_DATA_ERROR") {
            Self.entry(original + text(1000), stream: ZipBuilder.deflate(original))
        },
        Hostile(name: "declares less than its stream holds", code: "ARCHIVE_SIZE_MISMATCH") {
            var entry = Self.entry(Array(original.prefix(100_000)), stream: ZipBuilder.deflate(original))
            entry.centralCRC = ZipBuilder.crc32(original)
            entry.localCRC = entry.centralCRC
            return entry
        },
        // Found by fuzz-zip: the streamed reading met the stream's end, and the CRC, in the read
        // that went past the declared size, and told a CRC error.
        Hostile(name: "holds one byte more than it declares, with the CRC of what it declares", code: "ARCHIVE_SIZE_MISMATCH") {
            Self.entry(Array(original.dropLast()), stream: ZipBuilder.deflate(original))
        },
        Hostile(name: "a corrupt stream", code: "ARCHIVE_DATA_ERROR") {
            var stream = ZipBuilder.deflate(original)
            for index in stride(from: 500, to: stream.count, by: 61) { stream[index] ^= 0xA5 }
            return Self.entry(original, stream: stream)
        },
        Hostile(name: "a stream cut short", code: "ARCHIVE_DATA_ERROR") {
            let stream = ZipBuilder.deflate(original)
            return Self.entry(original, stream: Array(stream.prefix(stream.count / 2)))
        },
        Hostile(name: "a CRC that does not match", code: "ARCHIVE_DATA_ERROR") {
            var entry = Self.entry(original)
            entry.centralCRC = ZipBuilder.crc32(original) ^ 1
            entry.localCRC = entry.centralCRC
            return entry
        },
        Hostile(name: "a stored entry whose CRC does not match", code: "ARCHIVE_DATA_ERROR") {
            var entry = Self.entry(original)
            entry.compression = .stored
            entry.centralCRC = ZipBuilder.crc32(original) ^ 0x8000_0000
            entry.localCRC = entry.centralCRC
            return entry
        },
    ]

    @Test(arguments: hostile)
    func aHostileEntryIsTheSameErrorWholeOrStreamed(_ hostile: Hostile) throws {
        let scratch = try ScratchDirectory("whole-read")
        let path = try Self.archive(hostile.make(), in: scratch)
        let entry = try #require(try ZipArchive(path: path).entry(named: Self.path))
        // A stored entry is read in place either way (its CRC then checked as libzip did).
        let (wholeReading, streamedReading) = entry.method == 8 ? (ZipArchive.Reading.whole, ZipArchive.Reading.streamed) : (.stored, .stored)
        #expect(try ZipArchive(path: path).reading(of: entry) == wholeReading)
        #expect(try ZipArchive(path: path, limits: Self.streaming(entry)).reading(of: entry) == streamedReading)
        let whole = try Self.outcome(path)
        let streamed = try Self.outcome(path, limits: Self.streaming(entry))
        for result in [whole, streamed] {
            guard case .failure(let error) = result else {
                Issue.record("\(hostile.name): read without an error")
                continue
            }
            #expect(error.code == hostile.code, "\(hostile.name): \(error)")
            #expect(error.category == .invalidInput)
        }
        // Both readings word every fault alike (the streaming inflater is ours, not libzip's).
        if case .failure(let wholeError) = whole, case .failure(let streamedError) = streamed {
            #expect(wholeError == streamedError)
        }
    }

    /// Inputs `fuzz-zip` once failed on (`Tests/Fixtures/archive/fuzz-regressions/CODE--what`): the
    /// first deflated entry that fails is refused with the named code, read whole and streamed;
    /// except where libdeflate takes a code table zlib refuses (`codeTableTakenWhole`).
    @Test func fuzzRegressionsFailAlikeWholeOrStreamed() throws {
        let folder = "archive/fuzz-regressions"
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(folder)).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let path = Fixtures.path("\(folder)/\(name)")
            let code = String(name.prefix { $0 != "-" })
            var failures: [(whole: String, streamed: String)] = []
            for entry in try ZipArchive(path: path).entries where entry.method == 8 && entry.kind == .file {
                let whole = Result { () throws(ArchiveError) -> [UInt8] in try ZipArchive(path: path).read(entry, maximumSize: .max) }
                let streaming = try ZipArchive(path: path, limits: Self.streaming(entry))
                #expect(streaming.reading(of: entry) == .streamed)
                let streamed = Result { () throws(ArchiveError) -> [UInt8] in
                    var bytes: [UInt8] = []
                    try streaming.stream(entry) { bytes += $0 }
                    return bytes
                }
                switch (whole, streamed) {
                case (.failure(let first), .failure(let second)): failures.append((first.code, second.code))
                default: #expect(whole == streamed, "\(name): \(entry.path)")
                }
            }
            #expect(failures.first?.streamed == code, "\(name)")
            #expect(failures.first?.whole == (Self.codeTableTakenWhole.contains(name) ? "ARCHIVE_SIZE_MISMATCH" : code), "\(name)")
        }
    }

    /// Streams whose code-length table zlib refuses ("invalid bit length repeat"): libdeflate
    /// decodes on, here past the declared size. The
    /// entry is refused either way, under one of two codes.
    static let codeTableTakenWhole: Set = ["ARCHIVE_DATA_ERROR--a-code-length-repeat-zlib-refuses.ipa"]

    /// Just within `--max-memory` an entry is read whole, one byte less and it streams: the same
    /// bytes either way, checked against the content zlib compressed.
    @Test func theMemoryBoundDecidesTheReadingNotTheResult() throws {
        let scratch = try ScratchDirectory("whole-read")
        let path = try Self.archive(Self.entry(Self.original), in: scratch)
        let entry = try #require(try ZipArchive(path: path).entry(named: Self.path))
        let atBound = ArchiveLimits(maximumMemory: entry.compressedSize + entry.uncompressedSize)
        #expect(try ZipArchive(path: path, limits: atBound).reading(of: entry) == .whole)
        #expect(try ZipArchive(path: path, limits: Self.streaming(entry)).reading(of: entry) == .streamed)
        #expect(try Self.outcome(path, limits: atBound) == .success(Self.original))
        #expect(try Self.outcome(path, limits: Self.streaming(entry)) == .success(Self.original))
        // Through a byte source too: a header read, then one past the streamed prefix.
        for limits in [atBound, Self.streaming(entry)] {
            let zip = try ZipArchive(path: path, limits: limits)
            let source = zip.byteSource(for: entry)
            #expect(try source.read(offset: 16, count: 100) == Array(Self.original[16..<116]))
            #expect(try source.read(offset: 200_000, count: 5_000) == Array(Self.original[200_000..<205_000]))
            #expect(try source.read(offset: 299_990, count: 10) == Array(Self.original[299_990...]))
        }
    }

    /// Up to `wholeReadLimit` inflated an entry is read whole, one byte more and it streams (the
    /// decision only: neither is read).
    @Test func theSizeBoundIsSixtyFourMebibytes() throws {
        let scratch = try ScratchDirectory("whole-read")
        for (declared, reading) in [(ZipArchive.wholeReadLimit, ZipArchive.Reading.whole), (ZipArchive.wholeReadLimit + 1, .streamed)] {
            // 100 kB standing for 64 MiB: a ratio of 671, within the default limit of 1,000.
            var entry = Self.entry(Self.original, stream: Array(repeating: 0x55, count: 100_000))
            entry.centralUncompressedSize = UInt32(declared)
            entry.localUncompressedSize = UInt32(declared)
            let zip = try ZipArchive(path: try Self.archive(entry, in: scratch))
            #expect(try zip.reading(of: #require(zip.entry(named: Self.path))) == reading, "\(declared) bytes")
        }
    }

    /// Deflate that did not shrink an entry (stored blocks) streams above 1 MiB: holding it
    /// twice would gain nothing. Stored entries are read in place, their CRC checked.
    @Test func unshrunkAndStoredEntriesAreNotHeldTwice() throws {
        let scratch = try ScratchDirectory("whole-read")
        var generator = SplitMix64(seed: 3)
        for (size, reading) in [(1 << 20, ZipArchive.Reading.whole), ((1 << 20) + 1, .streamed)] {
            let random = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = try Self.archive(Self.entry(random), in: scratch)
            let zip = try ZipArchive(path: path)
            let entry = try #require(zip.entry(named: Self.path))
            #expect(entry.compressedSize >= entry.uncompressedSize)
            #expect(zip.reading(of: entry) == reading, "\(size) random bytes")
            #expect(try Self.outcome(path) == .success(random))
        }
        var stored = Self.entry(Self.original)
        stored.compression = .stored
        let path = try Self.archive(stored, in: scratch)
        let zip = try ZipArchive(path: path)
        #expect(zip.reading(of: try #require(zip.entry(named: Self.path))) == .stored)
        #expect(try Self.outcome(path) == .success(Self.original))
    }

    /// Readers of one entry share its whole content: the second source inflates nothing.
    @Test func sourcesShareTheEntryReadWhole() throws {
        let scratch = try ScratchDirectory("whole-read")
        let zip = try ZipArchive(path: try Self.archive(Self.entry(Self.original), in: scratch))
        let entry = try #require(zip.entry(named: Self.path))
        _ = try zip.byteSource(for: entry).read(offset: 100_000, count: 10)
        #expect(zip.recentReads.inflatedBytes[entry.index] == entry.uncompressedSize)
        #expect(try zip.byteSource(for: entry).read(offset: 250_000, count: 100) == Array(Self.original[250_000..<250_100]))
        var streamed: [UInt8] = []
        try zip.stream(entry) { streamed += $0 }
        #expect(streamed == Self.original)
        #expect(zip.recentReads.inflatedBytes[entry.index] == entry.uncompressedSize)
    }
}
