import Foundation
import IPAArchive
import Testing
import TestSupport
@testable import Zip

@Suite struct Zip64Tests {
    @Test func readsZip64EndRecords() throws {
        var zip = ZipBuilder()
        zip.directory("Payload/A.app/")
        zip.file("Payload/A.app/Info.plist", "<plist/>")
        zip.zip64EndRecords = true
        let scratch = try ScratchDirectory("zip64")
        let path = try scratch.write("z.ipa", zip.bytes())
        #expect(try IPAArchive(path: path).zip.entries.map(\.path) == ["Payload/A.app/", "Payload/A.app/Info.plist"])
        #expect(try ZipOracle.entries(path).count == 2)
        // A Zip64 record whose count disagrees with the directory is refused like a classic one.
        zip.declaredEntryCount = 3
        #expect(throws: ArchiveError.self) { try IPAArchive(path: try scratch.write("bad.ipa", zip.bytes())) }
    }

    @Test func writesZip64EndRecordsThatIndependentReadersAccept() throws {
        // The records written for 70,000 entries, checked without writing 70,000 entries.
        let records = ZipRecordWriter.endRecords(entryCount: 70_000, directoryOffset: 1234, directorySize: 5678, comment: [7])
        #expect(records.count == 56 + 20 + 22 + 1)
        #expect(Array(records[0..<4]) == [0x50, 0x4B, 0x06, 0x06])
        #expect(Array(records[56..<60]) == [0x50, 0x4B, 0x06, 0x07])
        #expect(Array(records[76..<80]) == [0x50, 0x4B, 0x05, 0x06])
        #expect(Array(records[84..<86]) == [0xFF, 0xFF])  // classic count saturated
        #expect(ZipRecordWriter.endRecords(entryCount: 10, directoryOffset: 1, directorySize: 1, comment: []).count == 22)
    }

    @Test func rewritesArchivesThatNeedZip64EndRecords() throws {
        // 70,000 entries need the Zip64 end record; Python's zipfile writes it.
        let scratch = try ScratchDirectory("zip64")
        let input = scratch.path("many.ipa")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for name in ["Payload/", "Payload/Many.app/"]:
                    info = zipfile.ZipInfo(name); info.external_attr = 0o40755 << 16 | 0x10; info.create_system = 3
                    z.writestr(info, b"")
                for i in range(70000):
                    info = zipfile.ZipInfo("Payload/Many.app/f%05d" % i); info.external_attr = 0o100644 << 16
                    info.create_system = 3
                    z.writestr(info, b"x" * (i % 7))
            """
        let made = try Command.run("python3", ["-c", script, input])
        try #require(made.status == 0, "\(made.stderr)")
        let archive = try IPAArchive(path: input)
        #expect(archive.zip.entries.count == 70_002)
        let output = scratch.path("out.ipa")
        let note = try scratch.write("note.txt", Array("note".utf8))
        try ArchiveWriter.repack(archive.zip, to: output, edits: ArchiveEdits(additions: [
            .init(name: "Payload/Many.app/note.txt", content: .file(path: note)),
        ]))
        // Python's zipfile reads the result: the count, and every 1,000th entry unchanged.
        let check = """
            import sys, zipfile
            a = zipfile.ZipFile(sys.argv[1]).infolist(); b = zipfile.ZipFile(sys.argv[2]).infolist()
            assert len(b) == 70003, len(b)
            for i in range(0, 70002, 1000):
                x, y = a[i], b[i]
                assert (x.filename, x.CRC, x.compress_size, x.file_size, x.external_attr, x.date_time) == \\
                       (y.filename, y.CRC, y.compress_size, y.file_size, y.external_attr, y.date_time), i
            assert b[-1].filename == "Payload/Many.app/note.txt"
            print("ok")
            """
        let verdict = try Command.run("python3", ["-c", check, input, output])
        #expect(verdict.stdout == "ok\n", "\(verdict.stderr)")
        // The end records really are Zip64 ones (signature PK\x06\x06 before the locator).
        let tail = try Fixtures.bytesAt(output).suffix(200)
        #expect(tail.windows(ofCount: 4).contains([0x50, 0x4B, 0x06, 0x06]))
    }

    @Test(arguments: [UInt64(0x1_0000_0000), 0xFFFF_FFFF, 0x12_3456_789A])
    func movesOffsetsBeyond4GiBIntoAZip64Field(offset: UInt64) throws {
        var zip = ZipBuilder()
        zip.directory("Payload/A.app/")
        var stamped = ZipBuilder.Entry(name: Array("Payload/A.app/x".utf8), data: Array("x".utf8), mode: 0o100644, compression: .stored)
        stamped.centralExtra = ZipBuilder.extendedTimestamp(1_700_000_000)
        zip.entries.append(stamped)
        let bytes = zip.bytes()
        let scratch = try ScratchDirectory("zip64")
        let archive = try ZipArchive(path: try scratch.write("a.zip", bytes))
        let original = archive.records[1]

        let moved = try ZipRecordWriter.relocated(original, to: offset)
        let reparsed = try #require(try CentralDirectoryRecord.readAll(moved, count: 1, archive: "test").first)
        #expect(reparsed.localHeaderOffset == offset)
        #expect(reparsed.offsetInZip64Extra)
        #expect(reparsed.name == original.name)
        #expect(reparsed.crc32 == original.crc32)
        #expect(reparsed.externalAttributes == original.externalAttributes)
        // The timestamp field survives next to the new Zip64 field.
        #expect(ExtraField.find(0x5455, in: reparsed.extra) == ExtraField.find(0x5455, in: original.extra))
        #expect(reparsed.versionNeeded == 45)

        // Moving it again rewrites the Zip64 field in place.
        let again = try ZipRecordWriter.relocated(reparsed, to: offset + 16)
        #expect(try CentralDirectoryRecord.readAll(again, count: 1, archive: "test").first?.localHeaderOffset == offset + 16)
        #expect(again.count == moved.count)
        // And back below 4 GiB it stays in the Zip64 field, as the record already uses one.
        let back = try ZipRecordWriter.relocated(reparsed, to: 100)
        #expect(try CentralDirectoryRecord.readAll(back, count: 1, archive: "test").first?.localHeaderOffset == 100)
    }
}

extension Collection {
    func windows(ofCount count: Int) -> [[Element]] {
        let items = Array(self)
        guard items.count >= count else { return [] }
        return (0...(items.count - count)).map { Array(items[$0..<($0 + count)]) }
    }
}
