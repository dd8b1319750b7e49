import Foundation
import IPAArchive
import Testing
import TestSupport
@testable import Zip

/// A revised entry written as the start of its stream made before it was whole
/// (`ArchiveEdits.DeflatedPrefix`) and the rest in stored blocks: checked when made, so the writer
/// only checks (by CRC) that the bytes it is given start with the ones the prefix holds, and
/// deflates anything else as it always did. Python's zipfile reads every result back.
@Suite struct DeflatedPrefixTests {
    static let name = "Payload/A.app/A"

    /// An archive whose executable is 400 KB of code-like bytes, deflated in many blocks, and its
    /// revision: a changed header field and a new signature after the code.
    static func fixture(in scratch: ScratchDirectory) throws -> (path: String, code: [UInt8], revision: [UInt8]) {
        let code = Noise.code(instructions: 100_000, seed: 5)
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file(name, code)
        zip.file("Payload/A.app/Z.txt", String(repeating: "after ", count: 1000))
        var revision = code
        revision[40] ^= 0x10
        revision += Noise.bytes(9_000, seed: 6)
        return (try scratch.write("in.ipa", zip.bytes()), code, revision)
    }

    private func repack(
        _ input: String, bytes: [UInt8], prefix: ArchiveEdits.DeflatedPrefix, to output: String
    ) throws -> ArchiveEntry {
        let archive = try IPAArchive(path: input).zip
        var addition = ArchiveEdits.Addition(name: Self.name, content: .bytes(bytes), revisesReplacedEntry: true)
        addition.deflatedPrefix = prefix
        try ArchiveWriter.repack(archive, to: output, edits: ArchiveEdits(additions: [addition], replacesInPlace: true), verifying: nil)
        #expect(try ZipOracle.read(Self.name, of: output) == bytes)
        #expect(try ZipOracle.unzipTest(output).status == 0)
        return try #require(try ZipArchive(path: output).entry(named: Self.name))
    }

    @Test func theBytesThePrefixHoldsAreWrittenWithIt() throws {
        let scratch = try ScratchDirectory("deflated-prefix")
        let (input, code, revision) = try Self.fixture(in: scratch)
        let archive = try IPAArchive(path: input).zip
        let entry = try #require(archive.entry(named: Self.name))
        #expect(!archive.recentReads.holdsWhole(entry))
        let prefix = try #require(try archive.byteSource(for: entry).deflatedPrefix(
            of: Array(revision[..<code.count]), totalLength: revision.count, level: RepackOptions().compressionLevel))
        // Made the same from the content the archive holds once the entry was read whole (only the
        // boundaries are then looked for).
        let source = archive.byteSource(for: entry)
        #expect(try source.read(offset: UInt64(code.count - 10), count: 10) == Array(code.suffix(10)))
        #expect(archive.recentReads.holdsWhole(entry))
        #expect(try source.deflatedPrefix(
            of: Array(revision[..<code.count]), totalLength: revision.count, level: RepackOptions().compressionLevel) == prefix)
        // Most of the original's stream is reused.
        #expect(prefix.stream.count < Int(entry.compressedSize) + 4_096)
        let written = try repack(input, bytes: revision, prefix: prefix, to: scratch.path("out.ipa"))
        #expect(written.method == 8 && written.compressedSize == UInt64(prefix.encodedSize(totalLength: revision.count)))

        // Other bytes than the prefix was made from (which signing never gives): deflated whole,
        // as bytes that revise nothing are.
        var other = revision
        other[200_000] ^= 0x01
        let fallback = try repack(input, bytes: other, prefix: prefix, to: scratch.path("other.ipa"))
        #expect(fallback.compressedSize != UInt64(prefix.encodedSize(totalLength: other.count)))
        try ArchiveWriter.repack(
            archive, to: scratch.path("plain.ipa"),
            edits: ArchiveEdits(additions: [.init(name: Self.name, content: .bytes(other))], replacesInPlace: true),
            verifying: nil)
        #expect(try Fixtures.bytesAt(scratch.path("other.ipa")) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        // Bytes shorter than the prefix: the same.
        _ = try repack(input, bytes: Array(revision.prefix(1_000)), prefix: prefix, to: scratch.path("short.ipa"))
    }

    @Test func noPrefixIsMadeWhereNoneWouldHelp() throws {
        let scratch = try ScratchDirectory("deflated-prefix")
        let (input, code, revision) = try Self.fixture(in: scratch)
        let archive = try IPAArchive(path: input).zip
        let level = RepackOptions().compressionLevel
        let entry = try #require(archive.entry(named: Self.name))
        let small = try #require(archive.entry(named: "Payload/A.app/Info.plist"))
        #expect(try archive.byteSource(for: small).deflatedPrefix(of: [1, 2, 3], totalLength: 10, level: level) == nil)
        // Nothing in common with the original, or a prefix longer than the whole.
        #expect(try archive.byteSource(for: entry).deflatedPrefix(
            of: Noise.bytes(code.count, seed: 9), totalLength: revision.count, level: level) == nil)
        #expect(try archive.byteSource(for: entry).deflatedPrefix(
            of: Array(revision[..<code.count]), totalLength: code.count - 1, level: level) == nil)
    }
}

/// `ZipArchive.Reopening`: another thread's opening of the archive takes the entry this one holds
/// read whole instead of inflating it again, and only while that entry is still the same.
@Suite struct ReopeningTests {
    @Test func theEntryHeldWholeIsShared() throws {
        let scratch = try ScratchDirectory("reopening")
        let (input, code, _) = try DeflatedPrefixTests.fixture(in: scratch)
        let archive = try IPAArchive(path: input).zip
        let entry = try #require(archive.entry(named: DeflatedPrefixTests.name))
        #expect(try archive.byteSource(for: entry).read(offset: UInt64(code.count - 4), count: 4) == Array(code.suffix(4)))
        let reopened = try archive.reopening.open()
        let same = try #require(reopened.entry(named: DeflatedPrefixTests.name))
        #expect(reopened.recentReads.holdsWhole(same))
        #expect(try reopened.byteSource(for: same).read(offset: 1_000, count: 8) == Array(code[1_000..<1_008]))
        #expect(reopened.recentReads.inflatedBytes[same.index, default: 0] == 0, "nothing inflated again")
        // An archive that holds nothing shares nothing.
        let other = try IPAArchive(path: input).zip
        let fresh = try other.reopening.open()
        #expect(!fresh.recentReads.holdsWhole(same))
        withExtendedLifetime(other) {}
    }
}
