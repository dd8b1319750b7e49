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
            (["repack", input, "-o", scratch.path("")], 74, "OUTPUT_WRITE_FAILED"),
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
