import Foundation
@testable import IPAArchive
import Testing
import TestSupport
@testable import Zip

/// Packing an app folder reads each file it walked once, through one descriptor, and only if it
/// is still the regular file the walk saw; it packs on both cores and meets the time limit.
@Suite struct FolderPackingTests {
    /// A file as the walk sees it.
    static func walked(_ path: String) throws -> WalkedFile {
        var info = stat()
        try #require(lstat(path, &info) == 0)
        return WalkedFile(folder: "/in/Sample.app", entry: "Payload/Sample.app/data", info: info)
    }

    static func expectChanged(_ file: WalkedFile, at path: String, saying reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try file.open(path)
            Issue.record("\(path) was opened", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == "ARCHIVE_FOLDER_CHANGED", sourceLocation: sourceLocation)
            #expect(error.category == .invalidInput, sourceLocation: sourceLocation)
            #expect(error.description.contains("Payload/Sample.app/data"), sourceLocation: sourceLocation)
            #expect(error.description.contains(reason), "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUnchangedFileIsOpenedAndReadThroughItsDescriptor() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked".utf8))
        let source = try Self.walked(path).open(path)
        #expect(source.size == 6)
        #expect(try source.read(offset: 0, count: 6) == Array("walked".utf8))
    }

    @Test func aFileSwappedForASymlinkIsNotFollowed() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked".utf8))
        let secret = try scratch.write("secret", Array("secret".utf8))
        let file = try Self.walked(path)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: secret)
        Self.expectChanged(file, at: path, saying: "now a symlink")
    }

    @Test func aFileSwappedForAFIFOIsRefusedWithoutBlocking() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked".utf8))
        let file = try Self.walked(path)
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
        // Nobody writes to the FIFO: an open that blocked would hang the test.
        Self.expectChanged(file, at: path, saying: "now a FIFO")
    }

    @Test func aFileSwappedForAnotherOfTheSameSizeIsRefused() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked".utf8))
        let file = try Self.walked(path)
        let other = try scratch.write("other", Array("others".utf8))
        #expect(rename(other, path) == 0)
        Self.expectChanged(file, at: path, saying: "now another file")
    }

    @Test func aFileThatGrewOrWentAwayIsRefused() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked".utf8))
        let file = try Self.walked(path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("and more".utf8))
        try handle.close()
        Self.expectChanged(file, at: path, saying: "was 6 bytes and is now 14")
        try FileManager.default.removeItem(atPath: path)
        Self.expectChanged(file, at: path, saying: "removed")
    }

    @Test func aFileThatShrinksAfterItIsOpenedIsAChangeNotAnIOError() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let path = try scratch.write("data", Array("walked and more".utf8))
        let file = try Self.walked(path)
        let source = try file.open(path)
        #expect(try file.read(source, offset: 0, count: 6) == Array("walked".utf8))
        #expect(truncate(path, 3) == 0)
        do {
            _ = try file.read(source, offset: 0, count: 15)
            Issue.record("a read past the new end succeeded")
        } catch let error as ArchiveError {
            #expect(error.code == "ARCHIVE_FOLDER_CHANGED")
            #expect(error.description.contains("its size changed while it was read"), "\(error)")
        }
    }

    /// Issue 27, class 9: the folder changes between the walk and its packing. Whatever changed
    /// (a file removed, a folder removed with its files, a folder replaced by a file), packing
    /// meets it as `ARCHIVE_FOLDER_CHANGED` (65), never as an unreadable file (74).
    @Test(arguments: ["a file removed", "a folder removed", "a folder replaced by a file"])
    func aChangeBetweenTheWalkAndPackingIsAChange(_ change: String) throws {
        let scratch = try ScratchDirectory("folder-packing")
        let app = try AppFolders.unpack(try IPABuilder().bytes(), in: scratch)
        try FileManager.default.createDirectory(atPath: app + "/Data", withIntermediateDirectories: true)
        try Data("walked".utf8).write(to: URL(fileURLWithPath: app + "/Data/file.txt"))
        let folder = try AppFolder(path: app)
        switch change {
        case "a file removed":
            try FileManager.default.removeItem(atPath: app + "/Data/file.txt")
        case "a folder removed":
            try FileManager.default.removeItem(atPath: app + "/Data")
        default:
            try FileManager.default.removeItem(atPath: app + "/Data")
            try Data("a file now".utf8).write(to: URL(fileURLWithPath: app + "/Data"))
        }
        do {
            _ = try folder.openZip(packing: .stored, limits: .default)
            Issue.record("packing did not see \(change)")
        } catch {
            #expect(error.code == "ARCHIVE_FOLDER_CHANGED", "\(error)")
            #expect(error.category == .invalidInput)
            #expect(error.description.contains("'Payload/Sample.app/Data/file.txt' changed while the folder was being packed"), "\(error)")
        }
    }

    /// The same changes while the folder is walked: a name listed a moment ago is gone when it is
    /// looked at. The walk's seam runs the change right after each listing, deterministically.
    @Test(arguments: ["a file removed", "a folder removed", "a symlink removed"])
    func aChangeWhileTheFolderIsWalkedIsAChange(_ change: String) throws {
        let scratch = try ScratchDirectory("folder-packing")
        let app = try AppFolders.unpack(try IPABuilder().bytes(), in: scratch)
        try FileManager.default.createDirectory(atPath: app + "/Data/Inner", withIntermediateDirectories: true)
        try Data("walked".utf8).write(to: URL(fileURLWithPath: app + "/Data/Inner/file.txt"))
        try FileManager.default.createSymbolicLink(atPath: app + "/Data/link", withDestinationPath: "Inner/file.txt")
        let (victim, entry) = switch change {
        case "a file removed": (app + "/Data/Inner/file.txt", "Payload/Sample.app/Data/Inner/file.txt")
        case "a folder removed": (app + "/Data/Inner", "Payload/Sample.app/Data/Inner")
        default: (app + "/Data/link", "Payload/Sample.app/Data/link")
        }
        let parent = (victim as NSString).deletingLastPathComponent
        do {
            _ = try AppFolder(path: app, limits: .default, afterListing: { listed in
                if listed == parent { try? FileManager.default.removeItem(atPath: victim) }
            })
            Issue.record("the walk did not see \(change)")
        } catch {
            #expect(error == .folderChanged(archive: app, entry: entry, reason: "it was removed or replaced while the folder was read"))
            #expect(error.category == .invalidInput)
        }
    }

    /// A folder with a file large enough for the block deflater (several batches' worth of
    /// blocks would be slow in a debug build: three blocks and a tail) and more small files than
    /// one group holds.
    static func folder(in scratch: ScratchDirectory) throws -> String {
        let app = try AppFolders.unpack(try IPABuilder().bytes(), in: scratch)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        // Text-like bytes that deflate, with no long repeats.
        let words = ["alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta\n"]
        var large: [UInt8] = []
        large.reserveCapacity(3 * BlockDeflater.blockSize + 12_345)
        while large.count < 3 * BlockDeflater.blockSize + 12_345 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            large += Array(words[Int(state >> 61)].utf8)
        }
        try Data(large.prefix(3 * BlockDeflater.blockSize + 12_345)).write(to: URL(fileURLWithPath: app + "/Large.bin"))
        try FileManager.default.createDirectory(atPath: app + "/Small", withIntermediateDirectories: true)
        for index in 0..<(NewEntryEncoder.groupEntries + 20) {
            try Data("file \(index) \(String(repeating: "x", count: index))".utf8)
                .write(to: URL(fileURLWithPath: app + "/Small/\(index).txt"))
        }
        return app
    }

    @Test func packingAFolderTwiceGivesTheSameBytesAndPythonReadsEveryFileBack() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let app = try Self.folder(in: scratch)
        let first = scratch.path("first.ipa")
        let second = scratch.path("second.ipa")
        try AppFolder(path: app).writeIPA(to: first, packing: .deflated)
        try AppFolder(path: app).writeIPA(to: second, packing: .deflated)
        #expect(try Fixtures.bytesAt(first) == (try Fixtures.bytesAt(second)))
        #expect(try ZipOracle.unzipTest(first).status == 0)

        let entries = Dictionary(uniqueKeysWithValues: try ZipOracle.entries(first).map { ($0.nameString, $0) })
        let large = try #require(entries["Payload/Sample.app/Large.bin"])
        #expect(large.method == 8 && large.compressedSize < large.fileSize / 2, "\(large)")
        // Every regular file of the folder, read back by Python's zipfile, is the file on disk.
        let compare = """
            import os, sys, zipfile
            archive, app = sys.argv[1:3]
            count = 0
            with zipfile.ZipFile(archive) as z:
                for root, _, files in os.walk(app):
                    for name in files:
                        path = os.path.join(root, name)
                        if os.path.islink(path):
                            continue
                        entry = "Payload/Sample.app/" + os.path.relpath(path, app)
                        if z.read(entry) != open(path, "rb").read():
                            sys.exit("differs: " + entry)
                        count += 1
            print(count)
            """
        let result = try Command.run("python3", ["-c", compare, first, app])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > NewEntryEncoder.groupEntries + 20)

        // The large file's deflate stream is pigz's, block for block, as Python's zlib builds it:
        // 1 MiB blocks, each primed with the 32 KiB before it and ended by a sync flush, the last
        // finished; so the bytes are those of any run, on any number of cores.
        let pigz = """
            import struct, sys, zlib, zipfile
            archive, entry, source = sys.argv[1:4]
            with zipfile.ZipFile(archive) as z, open(archive, "rb") as raw:
                info = z.getinfo(entry)
                raw.seek(info.header_offset)
                header = raw.read(30)
                n, m = struct.unpack("<HH", header[26:30])
                raw.seek(info.header_offset + 30 + n + m)
                stored = raw.read(info.compress_size)
            data = open(source, "rb").read()
            size = 1 << 20
            count = (len(data) + size - 1) // size
            expected = b""
            for index in range(count):
                start = index * size
                options = {"zdict": data[max(0, start - 32768):start]} if start else {}
                c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, **options)
                last = zlib.Z_FINISH if index == count - 1 else zlib.Z_SYNC_FLUSH
                expected += c.compress(data[start:start + size]) + c.flush(last)
            print("same" if expected == stored else "differs: %d bytes, expected %d" % (len(stored), len(expected)))
            """
        let blocks = try Command.run("python3", ["-c", pigz, first, "Payload/Sample.app/Large.bin", app + "/Large.bin"])
        #expect(blocks.stdout.hasPrefix("same"), "\(blocks.stdout)\(blocks.stderr)")
    }

    @Test func packingStopsAtTheTimeLimitAndWritesNothing() throws {
        let scratch = try ScratchDirectory("folder-packing")
        // A small app: its walk reads the clock only every 16,384 units of work, so it is done first.
        let app = try AppFolders.unpack(try IPABuilder().bytes(), in: scratch)
        let folder = try AppFolder(path: app, limits: ArchiveLimits(maximumSeconds: 0))
        let output = scratch.path("late.ipa")
        #expect(throws: ArchiveError.timeLimit(archive: app, seconds: 0)) {
            try folder.writeIPA(to: output, packing: .deflated)
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// `--time-limit` counts once from the start of the walk: the packed archive, and each worker
    /// that reopens it to hash entries on another core, work to the walk's deadline, not to a new one.
    @Test func thePackedArchiveAndItsWorkersKeepTheWalksDeadline() throws {
        let scratch = try ScratchDirectory("folder-packing")
        let app = try Self.folder(in: scratch)
        let folder = try AppFolder(path: app, limits: ArchiveLimits(maximumSeconds: 3_600))
        let zip = try folder.openZip(packing: .stored, limits: ArchiveLimits(maximumSeconds: 3_600))
        #expect(zip.deadline == folder.clock.deadline)
        let deadlines = try ParallelEntryWork.run(Array(zip.entries.prefix(4)), archive: zip, workers: 2) { _, reopened in
            reopened.deadline
        }
        #expect(deadlines.count == 4 && deadlines.allSatisfy { $0 == folder.clock.deadline })
    }
}
