import Foundation
import Testing
import TestSupport

/// Names tens of thousands of folders deep (issue 19): memory and time linear in the names'
/// bytes, the folder index counted against `--max-memory`, and `--time-limit` checked inside the
/// name and folder loops. The inputs are made by `HostileCorpus.deepNames` (too large to commit;
/// the corpus holds one such name).
@Suite struct DeepNameTests {
    /// Exit status, peak RSS (KB) and seconds of one run, measured by a python wrapper.
    private func measure(_ arguments: [String], in scratch: ScratchDirectory) throws -> (status: Int32, rssKB: Int, seconds: Double) {
        let script = try scratch.write("measure.py", Array(ResourceLimitTests.measureScript.utf8))
        let result = try Command.run("python3", [script, Command.ipawrapPath] + arguments)
        let fields = result.stdout.split(separator: " ")
        guard fields.count == 3, let status = Int32(fields[0]), let rssKB = Int(fields[1]),
              let seconds = Double(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(result.stdout) \(result.stderr)"])
        }
        return (status, rssKB, seconds)
    }

    /// Three names 32,000 folders deep reached 3.2 GB under `--max-memory 16M`.
    @Test(arguments: [["inspect"], ["wrap", "-o", "{out}"]])
    func threeDeepNamesStayWithinTheMemoryLimit(_ command: [String]) throws {
        let scratch = try ScratchDirectory("deep-names")
        let input = try scratch.write("Deep.ipa", HostileCorpus.deepNames(trees: 3, filesPerTree: 1))
        let arguments = [command[0], input] + command.dropFirst().map { $0 == "{out}" ? scratch.path("out.ipa") : $0 }
        let run = try measure(arguments + ["--max-memory", "16M"], in: scratch)
        // inspect reports; wrap finds errors (no icon, no profile) and writes nothing.
        #expect(run.status == (command[0] == "inspect" ? 0 : 1))
        if !ResourceLimitTests.sanitized { #expect(run.rssKB <= (2 * 16 + 64) * 1024, "peak RSS \(run.rssKB) KB") }
        #expect(run.seconds <= 20)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }

    @Test func theFolderIndexCountsAgainstTheMemoryLimit() throws {
        let scratch = try ScratchDirectory("deep-names")
        let bytes = HostileCorpus.deepNames(trees: 3, filesPerTree: 1)
        let input = try scratch.write("Deep.ipa", bytes)
        // 96,000 folders: about 1.3 MB of index, above a 1 MiB limit.
        let result = try Command.ipawrap(["inspect", input, "--max-memory", "1M"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ipawrap: error[ARCHIVE_MEMORY_LIMIT]: "), "\(result.stderr)")
        #expect(result.stderr.contains("the index of its folders and entries needs"), "\(result.stderr)")
        #expect(scratch.listing() == ["Deep.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    /// 400 files under a 32,000-level folder tree with `--time-limit 5` stopped after 122 s: the
    /// deadline was checked every 4,096 entries. Now the work is linear, and the limit is checked
    /// inside the loops: the command answers before the limit, or refuses the input within a
    /// second of it.
    @Test(arguments: [5.0, 0.5])
    func fourHundredFilesUnderADeepTreeStopNearTheTimeLimit(_ limit: Double) throws {
        let scratch = try ScratchDirectory("deep-names")
        let input = try scratch.write("Deep.ipa", HostileCorpus.deepNames(trees: 1, filesPerTree: 400))
        for command in [["inspect", input], ["wrap", input, "-o", scratch.path("out.ipa")]] {
            let run = try TimeLimitRun.ipawrap(command + ["--time-limit", "\(limit)"])
            let result = run.result
            #expect([0, 1, 65].contains(result.status), "\(command[0]): \(result.stderr)")
            if result.status == 65 {
                #expect(result.stderr.hasPrefix("ipawrap: error[ARCHIVE_TIME_LIMIT]: "), "\(result.stderr)")
            }
            run.expectWithin(limit: limit, sanitized: ResourceLimitTests.sanitized, command[0])
            #expect(scratch.listing() == ["Deep.ipa"])
        }
    }
}
