import FormatSupport
import IPAArchive
import Testing
import TestSupport

@Suite struct HostileArchiveTests {
    @Test(arguments: HostileArchives.all)
    func refusesWithItsCode(_ hostile: HostileArchives.Case) throws {
        let scratch = try ScratchDirectory("hostile")
        let path = try scratch.write("\(hostile.name).ipa", hostile.bytes)
        #expect {
            _ = try IPAArchive(path: path)
        } throws: { error in
            guard let coded = error as? CodedError else { return false }
            if coded.code != hostile.code { Issue.record("\(hostile.name): got \(coded.code): \(coded)") }
            return coded.code == hostile.code && coded.category == .invalidInput
        }
    }

    @Test func theOverlapCaseIsReallyOverlapping() throws {
        // Independent check that the crafted archive does what its name says: Python's zipfile
        // lists both entries, and the inner one's bytes lie inside the outer one's.
        let hostile = try #require(HostileArchives.all.first { $0.name == "overlapping-entries" })
        let scratch = try ScratchDirectory("hostile")
        let entries = try ZipOracle.entries(try scratch.write("o.ipa", hostile.bytes))
        #expect(entries.map(\.nameString).contains("Payload/A.app/inner.bin"))
        #expect(entries.map(\.nameString).contains("Payload/A.app/outer.bin"))
    }

    @Test func enforcesTheConfiguredLimits() throws {
        let scratch = try ScratchDirectory("hostile")
        let path = try scratch.write("ok.ipa", RealisticArchives.ipa())
        #expect(throws: ArchiveError.self) { try IPAArchive(path: path, limits: ArchiveLimits(maximumEntries: 5)) }
        #expect { try IPAArchive(path: path, limits: ArchiveLimits(maximumTotalUncompressedSize: 1000)) } throws: {
            ($0 as? ArchiveError)?.code == "ARCHIVE_TOTAL_SIZE_LIMIT"
        }
        #expect(try IPAArchive(path: path).zip.entries.count > 5)
    }

    @Test func contentLongerThanDeclaredIsCaughtOnRead() throws {
        // The sizes agree everywhere, but the deflate stream holds more than declared.
        var zip = ZipBuilder()
        zip.directory("Payload/A.app/")
        var entry = ZipBuilder.Entry(
            name: Array("Payload/A.app/Info.plist".utf8), data: Array(repeating: 0x61, count: 5000), mode: 0o100644,
            compression: .deflate)
        entry.centralUncompressedSize = 100
        entry.localUncompressedSize = 100
        zip.entries.append(entry)
        let scratch = try ScratchDirectory("hostile")
        let archive = try IPAArchive(path: try scratch.write("lie.ipa", zip.bytes()))
        let plist = try #require(archive.appEntry("Info.plist"))
        #expect { try archive.zip.read(plist, maximumSize: 1 << 20) } throws: {
            ["ARCHIVE_SIZE_MISMATCH", "ARCHIVE_DATA_ERROR"].contains(($0 as? ArchiveError)?.code ?? "")
        }
    }

    @Test func unreadableInputIsAnIOError() {
        #expect { try IPAArchive(path: "/nonexistent/x.ipa") } throws: { ($0 as? ArchiveError)?.category == .io }
    }
}
