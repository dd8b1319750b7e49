import Foundation
import Testing
import TestSupport

/// Issue 27, class 9, end to end: an `.app` folder whose files are removed and made again while
/// `inspect` and `wrap` read it. Each run either saw no change (0) or met one, which is always
/// `ARCHIVE_FOLDER_CHANGED` (65) with nothing written, never an unreadable file (74). The
/// deterministic cases are `FolderPackingTests`'; this repeats the race a user would meet.
@Suite struct FolderRaceTests {
    /// Removes and writes again every file of `folder` until `stop` exists.
    static let churn = """
        import os, sys
        folder, stop = sys.argv[1], sys.argv[2]
        names = sorted(os.listdir(folder))
        while not os.path.exists(stop):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    os.remove(path)
                except FileNotFoundError:
                    pass
                with open(path, "wb") as out:
                    out.write(b"churned " + name.encode())
        """

    @Test func aFolderChangingWhileItIsReadIsAlwaysAChange() throws {
        let scratch = try ScratchDirectory("folder-race")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        let app = try AppFolders.unpack(try builder.bytes(), in: scratch)
        let churned = app + "/Churn"
        try FileManager.default.createDirectory(atPath: churned, withIntermediateDirectories: true)
        for index in 0..<400 {
            try Data("churned \(index).txt".utf8).write(to: URL(fileURLWithPath: churned + "/\(index).txt"))
        }
        let stop = scratch.path("stop")
        let racer = Process()
        racer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        racer.arguments = ["python3", "-c", Self.churn, churned, stop]
        try racer.run()
        defer {
            _ = FileManager.default.createFile(atPath: stop, contents: Data())
            racer.waitUntilExit()
        }

        var changes = 0
        let output = scratch.path("out.ipa")
        for run in 0..<16 {
            let arguments = run.isMultiple(of: 2) ? ["inspect", app] : ["wrap", app, "-o", output]
            let measured = try TimeLimitRun.ipawrap(arguments)
            measured.expectBounded(
                processorSeconds: 10, memoryBytes: 256 << 20, sanitized: ResourceLimitTests.sanitized, arguments[0])
            let result = measured.result
            switch result.status {
            case 0:
                try? FileManager.default.removeItem(atPath: output)
            case 65:
                changes += 1
                #expect(result.stderr.hasPrefix("ipawrap: error[ARCHIVE_FOLDER_CHANGED]: \(app): 'Payload/Sample.app/Churn/"),
                        "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: output), "a refused wrap wrote \(output)")
            default:
                Issue.record("\(arguments[0]) exited \(result.status): \(result.stderr)")
            }
        }
        // With 400 files rewritten without pause, a run that met no change is the exception.
        #expect(changes > 0, "no run met the churn")
        print("aFolderChangingWhileItIsReadIsAlwaysAChange: \(changes) of 16 runs met a change")
    }
}
