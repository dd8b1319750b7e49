import Foundation
import FormatSupport
import Testing
import TestSupport
@testable import Zip

/// `--time-limit` inside the loops whose length the input chooses (issue 19): each loop checks
/// the deadline as it goes, so a deep name or a long symlink chain cannot run past it. Each test
/// hands a loop a deadline already passed: the loop must stop with `ARCHIVE_TIME_LIMIT` (it ran
/// to its end when the deadline was only checked every 4,096 entries).
@Suite struct DeadlineTests {
    static let passed = ArchiveError.timeLimit(archive: "test", seconds: 1)

    static func passedClock() -> WorkClock {
        WorkClock(deadline: .now - .seconds(1), seconds: 1, file: "test")
    }

    static func deepName(_ levels: Int, file: String = "x") -> ArraySlice<UInt8> {
        ArraySlice(Array((String(repeating: "a/", count: levels) + file).utf8))
    }

    @Test func theFolderIndexStopsAtTheDeadlineWithinOneName() {
        var tree = PathTree(entryCount: 1, nameBytes: 70_000)
        var clock = Self.passedClock()
        #expect(throws: Self.passed) {
            try tree.insert(entry: 0, name: Self.deepName(32_000)) { units throws(ArchiveError) in try clock.tick(units) }
        }
    }

    @Test func listingFoldersStopsAtTheDeadline() throws {
        var tree = PathTree(entryCount: 1, nameBytes: 70_000)
        try tree.insert(entry: 0, name: Self.deepName(32_000)) { _ throws(ArchiveError) in }
        var clock = Self.passedClock()
        #expect(throws: Self.passed) {
            _ = try tree.children { units throws(ArchiveError) in try clock.tick(units) }
        }
    }

    @Test func theParentChecksStopAtTheDeadline() throws {
        let scratch = try ScratchDirectory("deadline")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file("Payload/A.app/" + String(decoding: Self.deepName(32_000), as: UTF8.self), "x")
        let archive = try ZipArchive(path: try scratch.write("deep.ipa", zip.bytes()))
        var clock = Self.passedClock()
        #expect(throws: Self.passed) {
            try ZipArchive.checkParents(archive.store, archive: "test", clock: &clock)
        }
    }

    /// The name loop of opening: a deep name, then a symlink that escapes. With time to spare
    /// the symlink is refused; with the deadline passed, opening stops in the names first.
    @Test func openingStopsInTheNamesAtTheDeadline() throws {
        let scratch = try ScratchDirectory("deadline")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        for tree in ["a", "b", "c"] {
            zip.file("Payload/A.app/" + String(repeating: tree + "/", count: 32_000) + "x", "x")
        }
        zip.symlink("Payload/A.app/link", to: "../../../etc/passwd")
        let path = try scratch.write("deep.ipa", zip.bytes())
        #expect {
            _ = try ZipArchive(path: path)
        } throws: { ($0 as? ArchiveError)?.code == "ARCHIVE_SYMLINK_ESCAPE" }
        #expect {
            _ = try ZipArchive(path: path, limits: ArchiveLimits(maximumSeconds: 0.000_001))
        } throws: { ($0 as? ArchiveError)?.code == "ARCHIVE_TIME_LIMIT" }
    }

    /// 100 symlinks whose targets wander 200 times into a folder and out again: 40,000 steps.
    @Test func resolvingSymlinksStopsAtTheDeadline() throws {
        let scratch = try ScratchDirectory("deadline")
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file("Payload/A.app/x/y", "y")
        let wander = String(repeating: "x/../", count: 200) + "x/y"
        for index in 0..<100 { zip.symlink("Payload/A.app/link\(index)", to: wander) }
        let limit = 2.0
        let archive = try ZipArchive(path: try scratch.write("links.ipa", zip.bytes()), limits: ArchiveLimits(maximumSeconds: limit))
        try archive.checkSymlinks { _ in [] }
        Thread.sleep(forTimeInterval: limit + 0.1)
        #expect(throws: ArchiveError.timeLimit(archive: archive.path, seconds: limit)) {
            try archive.checkSymlinks { _ in [] }
        }
    }
}
