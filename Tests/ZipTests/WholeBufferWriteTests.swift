import Deflate
import Foundation
import Testing
import TestSupport
import Zip

/// Added and replaced entries held in memory are compressed whole with libdeflate, on every core:
/// valid for Info-ZIP and Python's zipfile, and the same bytes every time.
@Suite struct WholeBufferWriteTests {
    /// Machine-code-like bytes: recurring 4-byte words with some random ones, as a dylib holds.
    static func code(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        let vocabulary = (0..<300).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 4)
        while bytes.count < count {
            let word = Int.random(in: 0..<10, using: &generator) == 0
                ? UInt32.random(in: 0...UInt32.max, using: &generator)
                : vocabulary[Int.random(in: 0..<vocabulary.count, using: &generator) / Int.random(in: 1...8, using: &generator)]
            bytes += withUnsafeBytes(of: word.littleEndian, Array.init)
        }
        return Array(bytes.prefix(count))
    }

    /// An app with 18 libraries in Frameworks/, each replaced in place by new bytes, as signing does.
    static func replacements(in scratch: ScratchDirectory) throws -> (input: String, edits: ArchiveEdits, contents: [String: [UInt8]]) {
        var zip = ZipBuilder()
        zip.directory("Payload/A.app/")
        zip.directory("Payload/A.app/Frameworks/")
        var contents: [String: [UInt8]] = [:]
        for index in 0..<18 {
            let name = "Payload/A.app/Frameworks/lib\(index).dylib"
            // Sizes from 40 kB to 1.4 MB, some over a deflate block (1 MiB) and the group size.
            zip.file(name, code(40_000 + index * 80_000, seed: UInt64(index)), mode: 0o100755)
            contents[name] = code(40_000 + index * 80_000, seed: UInt64(100 + index))
        }
        let input = try scratch.write("in.ipa", zip.bytes())
        let edits = ArchiveEdits(
            additions: contents.keys.sorted().map { .init(name: $0, content: .bytes(contents[$0] ?? []), permissions: 0o755) },
            replacesInPlace: true)
        return (input, edits, contents)
    }

    @Test func replacedLibrariesAreCompressedWholeTheSameEveryTime() throws {
        let scratch = try ScratchDirectory("whole-write")
        let (input, edits, contents) = try Self.replacements(in: scratch)
        for name in ["one.ipa", "two.ipa"] {
            try ArchiveWriter.repack(try ZipArchive(path: input), to: scratch.path(name), edits: edits)
        }
        #expect(try Fixtures.bytesAt(scratch.path("one.ipa")) == (try Fixtures.bytesAt(scratch.path("two.ipa"))))
        #expect(try ZipOracle.unzipTest(scratch.path("one.ipa")).status == 0)

        let entries = Dictionary(uniqueKeysWithValues: try ZipOracle.entries(scratch.path("one.ipa")).map { ($0.nameString, $0) })
        let compressor = try #require(DeflateCompressor(level: DeflateLevel.standard.wholeBuffer))
        for (name, bytes) in contents {
            let entry = try #require(entries[name])
            #expect(entry.method == 8, "\(name)")
            #expect(entry.crc == ZipBuilder.crc32(bytes), "\(name)")
            #expect(entry.mode == 0o100755, "\(name) keeps its permissions")
            // libdeflate's stream, whole (not zlib's blocks, which differ in size). How its size
            // compares with zlib's is a matter of the data: docs/performance.md gives it for real libraries.
            let whole = try #require(bytes.withUnsafeBytes { compressor.compressIfSmaller($0) })
            #expect(entry.compressedSize == UInt64(whole.count), "\(name)")
            #expect(entry.compressedSize < entry.fileSize * 3 / 4, "\(name)")
        }
        // Python's zipfile inflates every entry (checking its CRC) to the new bytes' length and CRC.
        if PythonOracle.canRun() {
            let listing = try PythonOracle.run(
                """
                import sys, zipfile, zlib
                with zipfile.ZipFile(sys.argv[1]) as archive:
                    for info in archive.infolist():
                        if info.filename.endswith(".dylib"):
                            data = archive.read(info)
                            print(info.filename, len(data), zlib.crc32(data))
                """, arguments: [scratch.path("one.ipa")])
            let expected = contents.keys.sorted().map { "\($0) \(contents[$0]?.count ?? 0) \(ZipBuilder.crc32(contents[$0] ?? []))" }
            #expect(listing.split(separator: "\n").map(String.init).sorted() == expected)
        }
        let reread = try ZipArchive(path: scratch.path("one.ipa"))
        for (name, bytes) in contents {
            let entry = try #require(reread.entry(named: name))
            #expect(try reread.read(entry, maximumSize: .max) == bytes, "\(name)")
        }
    }

    /// A file from disk of up to a block is compressed whole by libdeflate too; over a block, in
    /// zlib's blocks on both cores (`RepackTests.largeAddedFilesDeflateInBlocksIntoOneValidStream`).
    @Test func addedFilesUpToABlockAreCompressedWhole() throws {
        let scratch = try ScratchDirectory("whole-write")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let small = Self.code(1 << 20, seed: 7)
        let file = try scratch.write("small.bin", small)
        let edits = ArchiveEdits(additions: [.init(name: "Payload/Sample.app/small.bin", content: .file(path: file))])
        try ArchiveWriter.repack(try ZipArchive(path: input), to: scratch.path("out.ipa"), edits: edits)
        #expect(try ZipOracle.unzipTest(scratch.path("out.ipa")).status == 0)
        let entry = try #require(try ZipOracle.entries(scratch.path("out.ipa")).first { $0.nameString.hasSuffix("small.bin") })
        let compressor = try #require(DeflateCompressor(level: DeflateLevel.standard.wholeBuffer))
        #expect(entry.compressedSize == UInt64(try #require(small.withUnsafeBytes { compressor.compressIfSmaller($0) }).count))
    }
}
