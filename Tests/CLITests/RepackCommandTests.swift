import Foundation
import Testing
import TestSupport

@Suite struct RepackCommandTests {
    @Test func repacksAndReportsWhatItDid() throws {
        let scratch = try ScratchDirectory("cli-repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let file = try scratch.write("note.txt", Array("note".utf8))
        let output = scratch.path("out/Sample.ipa")
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let result = try Command.ipawrap([
            "repack", input, "-o", output, "--add", "Payload/Sample.app/note.txt=\(file)",
            "--remove", "iTunesMetadata.plist",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 added, 1 removed"))
        #expect(try ZipOracle.unzipTest(output).status == 0)
        #expect(try ZipOracle.entries(output).contains { $0.nameString == "Payload/Sample.app/note.txt" })
        #expect(try Fixtures.bytesAt(input) == RealisticArchives.ipa())  // input untouched
    }

    /// An input with exactly --max-entries entries takes an addition: the output is read back
    /// under the limits widened by what was added.
    @Test func anInputAtTheEntryLimitTakesAnAddition() throws {
        let scratch = try ScratchDirectory("cli-repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let file = try scratch.write("note.txt", Array("note".utf8))
        let count = try ZipOracle.entries(input).count
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap([
            "repack", input, "-o", output, "--add", "Payload/Sample.app/note.txt=\(file)", "--max-entries", "\(count)",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try ZipOracle.entries(output).count == count + 1)
    }

    @Test func honoursSourceDateEpochForNewEntries() throws {
        let scratch = try ScratchDirectory("cli-repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let file = try scratch.write("note.txt", Array("note".utf8))
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap(
            ["repack", input, "-o", output, "--add", "Payload/Sample.app/note.txt=\(file)"],
            environment: ["SOURCE_DATE_EPOCH": "1262304000"])
        #expect(result.status == 0)
        let note = try #require(try ZipOracle.entries(output).first { $0.nameString == "Payload/Sample.app/note.txt" })
        #expect(note.dateTime == [2010, 1, 1, 0, 0, 0])
    }

    private static func hex(_ name: String) -> String {
        name.utf8.map { String(format: "%02x", $0) }.joined()
    }

    @Test func addedNonASCIINamesGetTheUTF8Flag() throws {
        let scratch = try ScratchDirectory("cli-repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let file = try scratch.write("note.txt", Array("note".utf8))
        let output = scratch.path("out.ipa")
        let accented = "Payload/Sample.app/Caf\u{00E9}/na\u{00EF}ve.txt"
        let plain = "Payload/Sample.app/plain.txt"
        let result = try Command.ipawrap(["repack", input, "-o", output, "--add", "\(accented)=\(file)", "--add", "\(plain)=\(file)"])
        #expect(result.status == 0, "\(result.stderr)")
        // Python's zipfile: flag_bits, and the name bytes (UTF-8 when flagged).
        let entries = try ZipOracle.entries(output)
        let added = try #require(entries.first { $0.name == Self.hex(accented) }, "\(entries.map(\.nameString))")
        #expect(added.flags & 0x0800 != 0)
        #expect(added.nameString == accented)
        // The parent folder it needed is added with the flag too.
        let folder = try #require(entries.first { $0.name == Self.hex("Payload/Sample.app/Caf\u{00E9}/") })
        #expect(folder.flags & 0x0800 != 0)
        // An ASCII name needs no flag.
        let ascii = try #require(entries.first { $0.name == Self.hex(plain) })
        #expect(ascii.flags & 0x0800 == 0)
        #expect(try ZipOracle.unzipTest(output).status == 0)
    }

    @Test func existingNamesKeepTheirUTF8FlagAndBytes() throws {
        let scratch = try ScratchDirectory("cli-repack")
        var zip = ZipBuilder()
        zip.directory("Payload/")
        zip.directory("Payload/Sample.app/")
        zip.file("Payload/Sample.app/Info.plist", "<plist version=\"1.0\"><dict><key>CFBundleIdentifier</key><string>com.example.sample</string></dict></plist>")
        let names = [
            ("Payload/Sample.app/Re\u{0301}sume\u{0301}.txt", UInt16(0x0800)),  // NFD, flagged
            ("Payload/Sample.app/caf\u{00E9}.txt", UInt16(0x0800)),  // NFC, flagged
            ("Payload/Sample.app/Ne\u{0301}e.txt", UInt16(0)),  // NFD, not flagged (as ditto writes)
        ]
        for (name, flags) in names {
            var entry = ZipBuilder.Entry(name: Array(name.utf8), data: Array(String(repeating: name, count: 20).utf8), mode: 0o100644, compression: .deflate)
            entry.flags = flags
            zip.entries.append(entry)
        }
        let input = try scratch.write("in.ipa", zip.bytes())
        let file = try scratch.write("note.txt", Array("note".utf8))
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap(["repack", input, "-o", output, "--add", "Payload/Sample.app/note.txt=\(file)"])
        #expect(result.status == 0, "\(result.stderr)")
        let before = try ZipOracle.entries(input)
        let after = try ZipOracle.entries(output)
        for (name, flags) in names {
            let original = try #require(before.first { $0.name == Self.hex(name) })
            #expect(original.flags & 0x0800 == Int(flags))
            let copied = try #require(after.first { $0.name == Self.hex(name) }, "\(name) lost or renamed: \(after.map(\.name))")
            #expect(copied.flags == original.flags, "\(name)")
            // Local header and data byte for byte, and the central record's fields.
            #expect(copied == original, "\(name)")
        }
        #expect(try ZipOracle.unzipTest(output).status == 0)
    }

    @Test(arguments: HostileArchives.all)
    func refusesHostileArchivesWithExit65AndWritesNothing(_ hostile: HostileArchives.Case) throws {
        let scratch = try ScratchDirectory("cli-hostile")
        let input = try scratch.write("in/\(hostile.name).ipa", hostile.bytes)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let before = scratch.listing()
        let result = try Command.ipawrap(["repack", input, "-o", scratch.path("out/result.ipa")])
        #expect(result.status == 65)
        #expect(result.stderr.contains("error[\(hostile.code)]"), "\(hostile.name): \(result.stderr)")
        #expect(result.stderr.contains("\(hostile.name).ipa"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(scratch.listing() == before)
        #expect(try Fixtures.bytesAt(input) == hostile.bytes)
    }

    @Test func usageAndOutputErrorsHaveTheirExitCodes() throws {
        let scratch = try ScratchDirectory("cli-repack")
        let input = try scratch.write("in.ipa", RealisticArchives.ipa())
        let cases: [([String], Int32, String)] = [
            (["repack", input, "-o", scratch.path("o.ipa"), "--remove", "nope"], 64, "REPACK_NO_SUCH_ENTRY"),
            (["repack", input, "-o", input], 64, "REPACK_OUTPUT_IS_INPUT"),
            (["repack", input, "-o", scratch.path("o.ipa"), "--add", "no-equals-sign"], 64, "PATH=FILE"),
            (["repack", input, "-o", scratch.path("missing/o.ipa")], 74, "OUTPUT_WRITE_FAILED"),
            (["repack", input, "-o", scratch.path("in.ipa/o.ipa")], 74, "OUTPUT_WRITE_FAILED"),
            (["repack", input, "-o", scratch.path("")], 64, "OUTPUT_IS_FOLDER"),
            (["repack", scratch.path("absent.ipa"), "-o", scratch.path("o.ipa")], 74, "FILE_READ_FAILED"),
        ]
        for (arguments, status, fragment) in cases {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
        }
        #expect(scratch.listing() == ["in.ipa"])
    }
}
