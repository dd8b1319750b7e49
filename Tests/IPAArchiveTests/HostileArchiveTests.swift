import FormatSupport
import IPAArchive
import Testing
import TestSupport
import Zip

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

    /// Opening checks each record's fields and local header on a second thread while this one
    /// totals the sizes and builds the path tree; an archive with faults on both is refused for the
    /// first fault in directory order (a record's fields, then the running total, then its local
    /// header), whichever thread finds it first.
    @Test(arguments: [
        // (record whose local header lies, record with an unsafe name, record that passes the total, code)
        (3, nil, 5, "ARCHIVE_SIZE_MISMATCH"),
        (5, nil, 3, "ARCHIVE_TOTAL_SIZE_LIMIT"),
        (4, nil, 4, "ARCHIVE_TOTAL_SIZE_LIMIT"),
        (nil, 4, 4, "ARCHIVE_UNSAFE_NAME"),
        (nil, 5, 3, "ARCHIVE_TOTAL_SIZE_LIMIT"),
        (5, 4, nil, "ARCHIVE_UNSAFE_NAME"),
        (4, 5, nil, "ARCHIVE_SIZE_MISMATCH"),
    ] as [(Int?, Int?, Int?, String)])
    func faultsOnBothThreadsAreReportedInDirectoryOrder(
        localLie: Int?, unsafeName: Int?, overTotal: Int?, code: String
    ) throws {
        var zip = ZipBuilder()
        for index in 0..<12 {
            let name = index == unsafeName ? "Payload/A.app/../\(index).bin" : "Payload/A.app/\(index).bin"
            var entry = ZipBuilder.Entry(
                name: Array(name.utf8), data: Array(repeating: UInt8(index), count: 1000), mode: 0o100644, compression: .stored)
            if index == localLie { entry.localUncompressedSize = 999 }
            zip.entries.append(entry)
        }
        // Each entry is 1,000 bytes: the total passes the limit at record `overTotal`.
        let limit = UInt64(overTotal.map { $0 * 1000 + 500 } ?? 1 << 30)
        let scratch = try ScratchDirectory("hostile")
        let path = try scratch.write("faults.ipa", zip.bytes())
        for _ in 0..<20 {
            #expect { _ = try ZipArchive(path: path, limits: ArchiveLimits(maximumTotalUncompressedSize: limit)) } throws: {
                ($0 as? ArchiveError)?.code == code
            }
        }
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
