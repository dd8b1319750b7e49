import Foundation
import IPAArchive
import Testing
import TestSupport
import Zip

@Suite struct RepackTests {
    /// The oracle's view of an entry, minus nothing: name bytes, CRC, sizes, method, attributes,
    /// timestamps, extra fields, flags, and a hash of the local header plus compressed bytes.
    private func byName(_ entries: [ZipOracle.Entry]) -> [String: ZipOracle.Entry] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })
    }

    @Test func unchangedRepackPreservesEveryEntryByteForByte() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let output = scratch.path("out.ipa")
        let archive = try IPAArchive(path: input)
        let summary = try ArchiveWriter.repack(archive.zip, to: output)
        #expect(summary.copiedEntries == archive.zip.entries.count)
        #expect(summary.addedEntries == 0 && summary.removedEntries == 0)
        let before = try ZipOracle.entries(input)
        let after = try ZipOracle.entries(output)
        #expect(after == before)
        #expect(try ZipOracle.unzipTest(output).status == 0)
        // Same entries, same order, same comment: the whole file is identical.
        #expect(try Fixtures.bytesAt(output) == (try Fixtures.bytesAt(input)))
    }

    @Test func additionsAndRemovalsChangeOnlyWhatWasAsked() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let policy = try scratch.write("policy.xml", Array(String(repeating: "<Policy/>\n", count: 200).utf8))
        let tool = try scratch.write("tool", [0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1])
        let output = scratch.path("out.ipa")
        let edits = ArchiveEdits(
            additions: [
                .init(name: "Payload/Sample.app/MDXPolicy.bundle/policy_metadata.xml", content: .file(path: policy)),
                .init(name: "Payload/Sample.app/tool", content: .file(path: tool)),
                .init(name: "Payload/Sample.app/PkgInfo", content: .bytes(Array("APPLXXXX".utf8))),
            ],
            removals: ["Payload/Sample.app/Frameworks/Kit.framework", "iTunesMetadata.plist"])
        let summary = try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: output, edits: edits)
        #expect(summary.addedEntries == 4)  // the folder entry, the XML, the tool, PkgInfo
        #expect(summary.removedEntries == 7)

        let before = byName(try ZipOracle.entries(input))
        let after = byName(try ZipOracle.entries(output))
        let app = "Payload/Sample.app/"
        let changed: Set<String> = [app + "PkgInfo"]
        for (name, entry) in before {
            let text = entry.nameString
            if text.hasPrefix(app + "Frameworks/Kit.framework") || text == "iTunesMetadata.plist" {
                #expect(after[name] == nil, "\(text) should be removed")
            } else if !changed.contains(text) {
                #expect(after[name] == entry, "\(text) must be unchanged")
            }
        }
        let added = after.values.filter { before[$0.name] == nil || changed.contains($0.nameString) }
        let addedByName = Dictionary(uniqueKeysWithValues: added.map { ($0.nameString, $0) })
        #expect(Set(addedByName.keys) == [
            app + "MDXPolicy.bundle/", app + "MDXPolicy.bundle/policy_metadata.xml", app + "tool", app + "PkgInfo",
        ])
        #expect(addedByName[app + "MDXPolicy.bundle/"]?.mode == 0o040755)
        #expect(addedByName[app + "MDXPolicy.bundle/policy_metadata.xml"]?.mode == 0o100644)
        #expect(addedByName[app + "MDXPolicy.bundle/policy_metadata.xml"]?.method == 8)
        #expect(addedByName[app + "tool"]?.mode == 0o100755)  // Mach-O magic
        #expect(addedByName[app + "PkgInfo"]?.createSystem == 3)
        // New entries carry the newest timestamp of the input, not the clock.
        #expect(addedByName[app + "tool"]?.dateTime == before.values.map(\.dateTime).max { $0.lexicographicallyPrecedes($1) })
        #expect(try ZipOracle.unzipTest(output).status == 0)
        let reread = try IPAArchive(path: output)
        let xml = try #require(reread.appEntry("MDXPolicy.bundle/policy_metadata.xml"))
        #expect(try reread.zip.read(xml, maximumSize: 1 << 20) == Fixtures.bytesAt(policy))
    }

    @Test func sameInputAndOptionsGiveTheSameBytes() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let extra = try scratch.write("extra.txt", Array("hello\n".utf8))
        let edits = ArchiveEdits(additions: [.init(name: "Payload/Sample.app/a/b/extra.txt", content: .file(path: extra))])
        try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: scratch.path("one.ipa"), edits: edits)
        try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: scratch.path("two.ipa"), edits: edits)
        #expect(try Fixtures.bytesAt(scratch.path("one.ipa")) == (try Fixtures.bytesAt(scratch.path("two.ipa"))))
    }

    /// Text of seeded random words: compressible, with matches across the 1 MiB block cuts.
    private func words(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 60) + 2
            for index in 0..<length { out.append(UInt8(ascii: "a") + UInt8((state >> (UInt64(index) * 5 + 3)) % 26)) }
            out.append(state >> 33 & 7 == 0 ? UInt8(ascii: "\n") : UInt8(ascii: " "))
        }
        return Array(out.prefix(count))
    }

    /// Files over 1 MiB are deflated in blocks on both cores: still one deflate stream Info-ZIP
    /// inflates to the right CRC, about as small as one zlib stream, the same bytes every time.
    @Test func largeAddedFilesDeflateInBlocksIntoOneValidStream() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        // Three full blocks and one byte; and a file of exactly two blocks.
        let text = words(3 << 20 + 1, seed: 17)
        let even = words(2 << 20, seed: 18)
        let edits = ArchiveEdits(additions: [
            .init(name: "Payload/Sample.app/big.txt", content: .bytes(text)),
            .init(name: "Payload/Sample.app/even.txt", content: .bytes(even)),
        ])
        try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: scratch.path("one.ipa"), edits: edits)
        try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: scratch.path("two.ipa"), edits: edits)
        #expect(try Fixtures.bytesAt(scratch.path("one.ipa")) == (try Fixtures.bytesAt(scratch.path("two.ipa"))))
        #expect(try ZipOracle.unzipTest(scratch.path("one.ipa")).status == 0)

        let entries = Dictionary(uniqueKeysWithValues: try ZipOracle.entries(scratch.path("one.ipa")).map { ($0.nameString, $0) })
        for (name, bytes) in [("big.txt", text), ("even.txt", even)] {
            let entry = try #require(entries["Payload/Sample.app/" + name])
            #expect(entry.method == 8)
            #expect(entry.crc == ZipBuilder.crc32(bytes))
            let single = ZipBuilder.deflate(bytes).count
            #expect(Double(entry.compressedSize) < Double(single) * 1.01, "\(name): \(entry.compressedSize) vs \(single)")
        }
        let reread = try IPAArchive(path: scratch.path("one.ipa"))
        let big = try #require(reread.appEntry("big.txt"))
        #expect(try reread.zip.read(big, maximumSize: 8 << 20) == text)
    }

    @Test func addsFolderTreesWithSymlinksAndExplicitTimestamps() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        try scratch.write("Extra.bundle/en.lproj/strings.txt", Array("hi".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("Extra.bundle/current"), withDestinationPath: "en.lproj")
        let output = scratch.path("out.ipa")
        try ArchiveWriter.repack(
            try IPAArchive(path: input).zip, to: output,
            edits: ArchiveEdits(additions: [.init(name: "Payload/Sample.app/Extra.bundle", content: .file(path: scratch.path("Extra.bundle")))]),
            options: RepackOptions(timestamp: .secondsSince1970(1_600_000_000)))
        let entries = try ZipOracle.entries(output).filter { $0.nameString.contains("Extra.bundle") }
        #expect(entries.map(\.nameString) == [
            "Payload/Sample.app/Extra.bundle/", "Payload/Sample.app/Extra.bundle/current",
            "Payload/Sample.app/Extra.bundle/en.lproj/", "Payload/Sample.app/Extra.bundle/en.lproj/strings.txt",
        ])
        #expect(entries[1].symlinkTarget == "en.lproj")
        #expect(entries[1].mode == 0o120755)
        #expect(entries.allSatisfy { $0.dateTime == [2020, 9, 13, 12, 26, 40] })
    }

    @Test func refusesRequestsThatCannotBeCarriedOut() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let archive = try IPAArchive(path: input).zip
        let output = scratch.path("out.ipa")
        let cases: [(ArchiveEdits, String)] = [
            (ArchiveEdits(removals: ["Payload/Sample.app/nope"]), "REPACK_NO_SUCH_ENTRY"),
            (ArchiveEdits(additions: [.init(name: "Payload/Sample.app/../x", content: .bytes([1]))]), "REPACK_INVALID_NAME"),
            (ArchiveEdits(additions: [.init(name: "Payload/Sample.app/Info.plist/x", content: .bytes([1]))]), "REPACK_NAME_CONFLICT"),
            (ArchiveEdits(additions: [.init(name: "Payload/Sample.app/Default.png/x", content: .bytes([1]))]), "REPACK_NAME_CONFLICT"),
            (ArchiveEdits(additions: [.init(name: "Payload/Sample.app/Frameworks", content: .bytes([1]))]), "REPACK_NAME_CONFLICT"),
            (ArchiveEdits(additions: [.init(name: "x", content: .file(path: scratch.path("missing")))]), "REPACK_SOURCE_UNREADABLE"),
        ]
        for (edits, code) in cases {
            #expect { try ArchiveWriter.repack(archive, to: output, edits: edits) } throws: { error in
                (error as? RepackRequestError)?.code == code
            }
        }
        #expect { try ArchiveWriter.repack(archive, to: input) } throws: {
            ($0 as? RepackRequestError)?.code == "REPACK_OUTPUT_IS_INPUT"
        }
        #expect(scratch.listing() == ["in.ipa"])
    }

    @Test func failedVerificationLeavesNothingBehind() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: scratch.path("out.ipa"), verify: { _ in throw Refused() })
        }
        #expect(scratch.listing() == ["in.ipa"])
    }

    /// The writer reads the records it copies again from the input: a central directory changed
    /// after the input was checked is not copied, even when the change is consistent (here a
    /// name, in place, in the local header too) and the output would read back as valid.
    @Test func aCentralDirectoryChangedAfterCheckingIsNotCopied() throws {
        let scratch = try ScratchDirectory("repack")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file("Payload/A.app/original.txt", "x")
        let input = try scratch.write("in.ipa", zip.bytes())
        let archive = try IPAArchive(path: input)
        var bytes = try Fixtures.bytesAt(input)
        let name = Array("original".utf8)
        let places = (0...(bytes.count - name.count)).filter { Array(bytes[$0..<($0 + name.count)]) == name }
        #expect(places.count == 2)
        for at in places { bytes.replaceSubrange(at..<(at + name.count), with: Array("tampered".utf8)) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
        #expect {
            try ArchiveWriter.repack(archive.zip, to: scratch.path("out.ipa"))
        } throws: { ($0 as? ArchiveError)?.code == "FILE_READ_FAILED" && "\($0)".contains("changed while being copied") }
        #expect(scratch.listing() == ["in.ipa"])
    }

    /// An input that shrinks under the copy of the runs around a replacement is an error of the
    /// repack, and no output is left.
    @Test func anInputThatShrinksUnderTheCopyFailsTheRepack() throws {
        let scratch = try ScratchDirectory("repack")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        for name in ["a", "b", "c"] {
            zip.file("Payload/A.app/\(name).bin", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, compression: .stored)
        }
        let input = try scratch.write("in.ipa", zip.bytes())
        let archive = try IPAArchive(path: input)
        #expect(truncate(input, 150_000) == 0)
        let edits = ArchiveEdits(
            additions: [.init(name: "Payload/A.app/b.bin", content: .bytes([1, 2, 3]))], replacesInPlace: true)
        #expect {
            try ArchiveWriter.repack(archive.zip, to: scratch.path("out.ipa"), edits: edits)
        } throws: { ($0 as? ArchiveError)?.code == "FILE_READ_FAILED" && "\($0)".contains("shrank while being copied") }
        #expect(scratch.listing() == ["in.ipa"])
    }

    @Test func replacesAnExistingOutputAtomically() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let output = try scratch.write("out.ipa", Array("old".utf8))
        try ArchiveWriter.repack(try IPAArchive(path: input).zip, to: output)
        #expect(try Fixtures.bytesAt(output) == (try Fixtures.bytesAt(input)))
        #expect(scratch.listing() == ["in.ipa", "out.ipa"])
    }

    /// An existing regular file is exchanged with the new one and then unlinked (so ext4 does not
    /// write the new file out before the rename returns): for every other name of the old file, and
    /// for a symlink or a folder at the destination, exactly what rename(2) does.
    @Test func replacingAnOutputIsWhatRenameDoes() throws {
        let scratch = try ScratchDirectory("repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let zip = try IPAArchive(path: input).zip
        let expected = try Fixtures.bytesAt(input)

        // A hard link keeps the old file; the output's name gets the new one.
        let output = try scratch.write("out.ipa", Array("old".utf8))
        #expect(link(output, scratch.path("other-name.ipa")) == 0)
        try ArchiveWriter.repack(zip, to: output, edits: ArchiveEdits())
        #expect(try Fixtures.bytesAt(output) == expected)
        #expect(try Fixtures.bytesAt(scratch.path("other-name.ipa")) == Array("old".utf8))

        // A symlink at the destination is replaced; the file it named is untouched.
        let target = try scratch.write("target.ipa", Array("target".utf8))
        #expect(symlink(target, scratch.path("link.ipa")) == 0)
        try ArchiveWriter.repack(zip, to: scratch.path("link.ipa"), edits: ArchiveEdits())
        var info = stat()
        #expect(lstat(scratch.path("link.ipa"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)
        #expect(try Fixtures.bytesAt(scratch.path("link.ipa")) == expected)
        #expect(try Fixtures.bytesAt(target) == Array("target".utf8))

        // A folder is refused and stays, with what it holds; nothing else is left.
        #expect(mkdir(scratch.path("folder.ipa"), 0o755) == 0)
        _ = try scratch.write("folder.ipa/kept", Array("kept".utf8))
        #expect(throws: (any Error).self) { try ArchiveWriter.repack(zip, to: scratch.path("folder.ipa"), edits: ArchiveEdits()) }
        #expect(try Fixtures.bytesAt(scratch.path("folder.ipa/kept")) == Array("kept".utf8))
        #expect(scratch.listing() == ["folder.ipa", "folder.ipa/kept", "in.ipa", "link.ipa", "other-name.ipa", "out.ipa", "target.ipa"])
    }
}
