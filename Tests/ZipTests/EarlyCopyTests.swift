import Foundation
import IPAArchive
import Testing
import TestSupport
@testable import Zip

/// `EarlyCopy` (the copy `wrap` starts while it checks): whatever the edits turn out to be, the
/// repack that continues it writes the same bytes as one that did not start early, and an early
/// copy that is abandoned leaves nothing behind.
@Suite struct EarlyCopyTests {
    /// The input's entries in file order.
    private func inFileOrder(_ archive: ZipArchive) -> [ArchiveEntry] {
        archive.entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
    }

    /// Repacks `input` with `edits` twice, plainly and continuing an early copy that was left to
    /// finish first (so the reuse does not depend on thread timing); the bytes must be the same.
    /// Returns the bytes the second repack reused.
    private func reusedBytes(_ input: String, edits: (ZipArchive) -> ArchiveEdits, in scratch: ScratchDirectory) throws -> UInt64 {
        let archive = try IPAArchive(path: input).zip
        return try EarlyCopyCheck.reused(archive, edits: edits(archive), in: scratch) { destination in
            let early = try #require(EarlyCopy(archive, destination: destination))
            early.finish(firstRunLength: .max)
            #expect(early.copiedBytes == archive.centralDirectoryOffset)
            return early
        }
    }

    @Test func additionsKeepEveryEntryTheEarlyCopyWrote() throws {
        let scratch = try ScratchDirectory("early-copy")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let extra = ArchiveEdits(additions: [
            .init(name: "Payload/Sample.app/MDXPolicy.bundle/Info.plist", content: .bytes(Array("<plist/>".utf8)))
        ])
        let archive = try IPAArchive(path: input).zip
        // Every entry is before the central directory, and all of it is kept.
        #expect(try reusedBytes(input, edits: { _ in extra }, in: scratch) == archive.centralDirectoryOffset)
        #expect(try reusedBytes(input, edits: { _ in ArchiveEdits() }, in: scratch) == archive.centralDirectoryOffset)
    }

    @Test(arguments: ["first", "middle"])
    func anEditKeepsOnlyWhatComesBeforeIt(_ which: String) throws {
        let scratch = try ScratchDirectory("early-copy")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let files = inFileOrder(try IPAArchive(path: input).zip).filter { $0.kind == .file }
        let edited = try #require(which == "first" ? files.first : files.dropFirst(files.count / 2).first)
        #expect(edited.localHeaderOffset > 0, "folder entries come first")
        // Replaced in place, and removed: the output differs from the input from that entry on.
        let replaced = try reusedBytes(input, edits: { _ in
            ArchiveEdits(additions: [.init(name: edited.path, content: .bytes(Array("new".utf8)))], replacesInPlace: true)
        }, in: scratch)
        #expect(replaced == edited.localHeaderOffset)
        let removed = try reusedBytes(input, edits: { _ in ArchiveEdits(removals: [edited.path]) }, in: scratch)
        #expect(removed == edited.localHeaderOffset)
    }

    @Test func anOutputThatStartsDifferentlyKeepsNothing() throws {
        let scratch = try ScratchDirectory("early-copy")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file("Payload/A.app/A", Array(repeating: 7, count: 5000))
        let plain = try scratch.write("plain-input.ipa", zip.bytes())
        let first = "Payload/A.app/Info.plist"
        #expect(try reusedBytes(plain, edits: { _ in ArchiveEdits(removals: [first]) }, in: scratch) == 0)
        #expect(try reusedBytes(plain, edits: { _ in
            ArchiveEdits(additions: [.init(name: first, content: .bytes(Array("<plist/>".utf8)))], replacesInPlace: true)
        }, in: scratch) == 0)
        #expect(try reusedBytes(plain, edits: { _ in ArchiveEdits() }, in: scratch) > 0)

        // A self-extractor stub before the first entry: the output starts at the first entry.
        zip.prefix = Array(repeating: 0x90, count: 100)
        let stubbed = try scratch.write("stub.ipa", zip.bytes())
        #expect(try reusedBytes(stubbed, edits: { _ in ArchiveEdits() }, in: scratch) == 0)
    }

    @Test func anAbandonedEarlyCopyLeavesNothing() throws {
        let scratch = try ScratchDirectory("early-copy")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let archive = try IPAArchive(path: input).zip
        do {
            let early = try #require(EarlyCopy(archive, destination: scratch.path("out.ipa")))
            _ = early
        }
        // Joined and discarded at once, even while copying.
        let started = try #require(EarlyCopy(archive, destination: scratch.path("out.ipa")))
        started.finish(firstRunLength: 0)
        #expect(started.copiedBytes == 0)
        #expect(scratch.listing() == ["in.ipa"])
        // An existing output is left as it was until a repack replaces it, even once all is copied.
        try scratch.write("old.ipa", Array("old".utf8))
        let finished = try #require(EarlyCopy(archive, destination: scratch.path("old.ipa")))
        finished.finish(firstRunLength: .max)
        #expect(finished.copiedBytes == archive.centralDirectoryOffset)
        #expect(try Fixtures.bytesAt(scratch.path("old.ipa")) == Array("old".utf8))
        #expect(scratch.listing() == ["in.ipa", "old.ipa"])
    }

    @Test func startsOnlyWhereTheWriterCouldUseIt() throws {
        let scratch = try ScratchDirectory("early-copy")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let archive = try IPAArchive(path: input).zip
        #expect(EarlyCopy(archive, destination: input) == nil, "the output is the input")
        #expect(EarlyCopy(archive, destination: "/dev/null") == nil, "not a regular file")
        #expect(EarlyCopy(archive, destination: scratch.path("missing/out.ipa")) == nil, "no such folder")
        // The writer then reports what it always did.
        #expect(throws: RepackRequestError.self) {
            try ArchiveWriter.repack(archive, to: input, verifying: nil, continuing: EarlyCopy(archive, destination: input))
        }
        // A copy started for another output or archive is not used.
        let other = try #require(EarlyCopy(archive, destination: scratch.path("other.ipa")))
        let summary = try ArchiveWriter.repack(archive, to: scratch.path("out.ipa"), verifying: nil, continuing: other)
        #expect(summary.earlyCopiedBytes == 0)
        #expect(try Fixtures.bytesAt(scratch.path("out.ipa")) == (try Fixtures.bytesAt(input)))
    }

    /// As `wrap` uses it: the repack starts while the copy is still running (several slices of a
    /// large stored entry), and the result is a plain repack's bytes. An early copy serves one
    /// repack only (that one publishes and closes its output).
    @Test func aRepackThatJoinsARunningCopyWritesThePlainBytes() throws {
        let scratch = try ScratchDirectory("early-copy")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        let large = Noise.bytes(3 * Int(EarlyCopy.slice) + 12_345, seed: 1)
        zip.file("Payload/A.app/A", large, compression: .stored)
        let input = try scratch.write("in.ipa", zip.bytes())
        let archive = try IPAArchive(path: input).zip
        let edits = ArchiveEdits(additions: [.init(name: "Payload/A.app/added.txt", content: .bytes(Array("added".utf8)))])
        try ArchiveWriter.repack(archive, to: scratch.path("plain.ipa"), edits: edits, verifying: nil)
        for round in 0..<3 {
            let output = scratch.path("continued-\(round).ipa")
            let early = try #require(EarlyCopy(archive, destination: output))
            let summary = try ArchiveWriter.repack(archive, to: output, edits: edits, verifying: nil, continuing: early)
            #expect(summary.earlyCopiedBytes <= archive.centralDirectoryOffset)
            #expect(try Fixtures.bytesAt(output) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
            // Used up: a second repack writes everything itself, into a new output.
            let again = scratch.path("again-\(round).ipa")
            let second = try ArchiveWriter.repack(archive, to: output, edits: edits, verifying: nil, continuing: early)
            #expect(second.earlyCopiedBytes == 0)
            try FileManager.default.moveItem(atPath: output, toPath: again)
            #expect(try Fixtures.bytesAt(again) == (try Fixtures.bytesAt(scratch.path("plain.ipa"))))
        }
    }
}

/// The check both early copies get: a repack that continues one writes a plain repack's bytes.
enum EarlyCopyCheck {
    /// Repacks `archive` with `edits` plainly and continuing the early copy `start` makes for the
    /// output path it is given; the bytes must be the same and pass `unzip -t`. Returns the bytes
    /// the second repack reused.
    static func reused(
        _ archive: ZipArchive, edits: ArchiveEdits, in scratch: ScratchDirectory, starting start: (String) throws -> EarlyCopy
    ) throws -> UInt64 {
        let plain = scratch.path("plain.ipa")
        let continued = scratch.path("continued.ipa")
        defer {
            try? FileManager.default.removeItem(atPath: plain)
            try? FileManager.default.removeItem(atPath: continued)
        }
        let expected = try ArchiveWriter.repack(archive, to: plain, edits: edits, verifying: nil)
        let summary = try ArchiveWriter.repack(archive, to: continued, edits: edits, verifying: nil, continuing: try start(continued))
        #expect(try Fixtures.bytesAt(continued) == (try Fixtures.bytesAt(plain)))
        #expect(summary.outputSize == expected.outputSize && expected.earlyCopiedBytes == 0)
        #expect(try ZipOracle.unzipTest(continued).status == 0)
        return summary.earlyCopiedBytes
    }
}
