import Batch
import FormatSupport
import Foundation
import Testing
import TestSupport

@Suite struct InputDiscoveryTests {
    @Test func foldersAreSearchedInByteOrderSkippingHiddenAndOtherFiles() throws {
        let sample = try SampleBatch()
        let inputs = try InputDiscovery.inputs([sample.folder])
        #expect(inputs.map(\.name) == SampleBatch.expected.map(\.name))
        #expect(inputs.map(\.path) == SampleBatch.expected.map { sample.path($0.name) })
    }

    @Test func namesAreRelativeToTheFolderArgumentSoTheyDoNotDependOnTheCheckout() throws {
        let one = try SampleBatch("one")
        let two = try SampleBatch("two")
        let first = try InputDiscovery.inputs([one.folder]).map(\.name)
        // A trailing slash, or reaching the folder through a longer path, changes nothing.
        let second = try InputDiscovery.inputs([two.folder + "/"]).map(\.name)
        let third = try InputDiscovery.inputs([two.scratch.path + "/./apps"]).map(\.name)
        #expect(first == second)
        #expect(first == third)
    }

    @Test func fileArgumentsAreKeptAsGivenEvenWhenMissingOrNotIPAs() throws {
        let sample = try SampleBatch()
        let inputs = try InputDiscovery.inputs([sample.path("notes.txt"), sample.path("Missing.ipa"), sample.path("team/Deep.ipa")])
        #expect(inputs.map(\.name) == ["notes.txt", "Missing.ipa", "Deep.ipa"])
        #expect(inputs[1].path == sample.path("Missing.ipa"))
    }

    @Test func theSameFileReachedTwiceIsOneInput() throws {
        let sample = try SampleBatch()
        try FileManager.default.createSymbolicLink(atPath: sample.path("Alias.ipa"), withDestinationPath: sample.path("Good.ipa"))
        let inputs = try InputDiscovery.inputs([sample.path("Good.ipa"), sample.folder, sample.path("Good.ipa")])
        #expect(inputs.first?.name == "Good.ipa")
        #expect(inputs.filter { $0.name.hasSuffix("Good.ipa") || $0.name == "Alias.ipa" }.count == 1)
        #expect(inputs.count == SampleBatch.expected.count)
    }

    @Test func symlinkedFoldersAreNotFollowedAndSymlinkedFilesAre() throws {
        let sample = try SampleBatch()
        let other = try sample.scratch.write("elsewhere/Linked.ipa", SampleBatch.good(name: "Linked"))
        try FileManager.default.createSymbolicLink(atPath: sample.path("Linked.ipa"), withDestinationPath: other)
        // A loop back to the folder itself must not be walked.
        try FileManager.default.createSymbolicLink(atPath: sample.path("team/loop"), withDestinationPath: sample.folder)
        try FileManager.default.createSymbolicLink(atPath: sample.path("Dangling.ipa"), withDestinationPath: sample.path("nowhere.ipa"))
        let names = try InputDiscovery.inputs([sample.folder]).map(\.name)
        #expect(names.contains("Linked.ipa"))
        #expect(!names.contains("Dangling.ipa"))
        #expect(!names.contains { $0.hasPrefix("team/loop") })
    }

    @Test func upperCaseExtensionsCountAndTheOutputFolderIsExcluded() throws {
        let sample = try SampleBatch()
        try sample.write("LOUD.IPA", SampleBatch.good(name: "Loud"))
        try sample.write("wrapped/Good.ipa", SampleBatch.good(name: "Good"))
        let names = try InputDiscovery.inputs([sample.folder], excluding: [sample.path("wrapped")]).map(\.name)
        #expect(names.contains("LOUD.IPA"))
        #expect(!names.contains("wrapped/Good.ipa"))
        #expect(try InputDiscovery.inputs([sample.folder]).map(\.name).contains("wrapped/Good.ipa"))
    }

    @Test func anUnreadableFolderIsAnError() throws {
        guard getuid() != 0 else {
            // root reads every folder; the permission cannot be taken away here.
            return
        }
        let sample = try SampleBatch()
        chmod(sample.path("team"), 0)
        defer { chmod(sample.path("team"), 0o755) }
        #expect(throws: BatchInputError.self) { try InputDiscovery.inputs([sample.folder]) }
    }

    @Test func listsIgnoreCommentsBlankLinesAndSurroundingSpace() {
        let text = "# apps to check\r\nA.ipa\r\n\n   \n  team/B.ipa  \n#C.ipa\n./D folder/E.ipa\n"
        #expect(InputDiscovery.paths(inList: Array(text.utf8)) == ["A.ipa", "team/B.ipa", "./D folder/E.ipa"])
        #expect(InputDiscovery.paths(inList: []) == [])
    }

    @Test func listFilesAreReadAndAMissingOneIsAnIOError() throws {
        let scratch = try ScratchDirectory("list")
        let list = try scratch.write("list.txt", Array("one.ipa\n# two\nthree.ipa".utf8))
        #expect(try InputDiscovery.paths(inListFile: list) == ["one.ipa", "three.ipa"])
        do {
            _ = try InputDiscovery.paths(inListFile: scratch.path("missing.txt"))
            Issue.record("a missing list was accepted")
        } catch {
            #expect(error.code == "BATCH_LIST_UNREADABLE")
            #expect(error.category == .io)
            #expect(error.description.contains("missing.txt"))
        }
        let binary = try scratch.write("binary.txt", [0xFF, 0xFE, 0x00, 0x41])
        #expect(throws: BatchInputError.listUnreadable(binary, reason: "it holds a NUL byte: it is not a list of paths")) {
            try InputDiscovery.paths(inListFile: binary)
        }
    }

    @Test func stemDropsOnlyAnIPAExtension() {
        #expect(BatchInput(path: "a/App.ipa", name: "App.ipa").stem == "App")
        #expect(BatchInput(path: "a/App.IPA", name: "team/App.IPA").stem == "team/App")
        #expect(BatchInput(path: "notes.txt", name: "notes.txt").stem == "notes.txt")
    }
}

/// The search for a batch's inputs is bounded (issue 19): by `--time-limit` as a whole (the clock
/// read every 256 entries, while a folder is listed and while its entries are examined) and by
/// `InputDiscovery.maximumEntries`. A folder of millions of entries stops the batch before any job.
@Suite struct InputDiscoveryBoundTests {
    static let passed = WorkClock(deadline: .now - .seconds(1), seconds: 5, file: "")

    @Test func aPassedDeadlineStopsTheFolderSearch() throws {
        let scratch = try ScratchDirectory("discovery-deadline")
        for index in 0..<300 { try scratch.write("apps/App\(index).ipa", []) }
        let folder = scratch.path("apps")
        #expect(throws: BatchInputError.folderTimeLimit(folder, seconds: 5)) {
            try InputDiscovery.inputs([folder], clock: Self.passed)
        }
        #expect(try InputDiscovery.inputs([folder], clock: WorkClock(seconds: 600, file: "")).count == 300)
    }

    @Test func aPassedDeadlineStopsTheListedPaths() throws {
        let paths = (0..<300).map { "/nonexistent/App\($0).ipa" }
        // The clock is read at the 256th path.
        #expect(throws: BatchInputError.folderTimeLimit(paths[255], seconds: 5)) {
            try InputDiscovery.inputs(paths, clock: Self.passed)
        }
    }

    @Test func moreEntriesThanTheBoundStopTheSearch() throws {
        let scratch = try ScratchDirectory("discovery-entries")
        // 102 entries below the folder: 22 in it (four of them folders), 80 in the subfolders; hidden
        // files count too.
        for index in 0..<16 { try scratch.write("apps/App\(index).ipa", []) }
        try scratch.write("apps/.hidden", [])
        try scratch.write("apps/notes.txt", [])
        for folder in 0..<4 {
            for index in 0..<20 { try scratch.write("apps/team\(folder)/App\(index).ipa", []) }
        }
        let folder = scratch.path("apps")
        let error = BatchInputError.folderTooLarge(folder, limit: 101)
        #expect(throws: error) { try InputDiscovery.inputs([folder], maximumEntries: 101) }
        #expect(error.code == "BATCH_FOLDER_TOO_LARGE")
        #expect(error.category == .invalidInput)
        #expect(try InputDiscovery.inputs([folder], maximumEntries: 102).count == 96)
    }
}
