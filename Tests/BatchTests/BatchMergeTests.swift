import Batch
import FormatSupport
import Foundation
@testable import Reporting
import Testing
import TestSupport

/// `MergedBatch` on records made here: what one line may claim is checked against the run it
/// states (the end-to-end merges are in CLITests/BatchReportTests).
@Suite struct BatchMergeTests {
    static let tool = Report.Tool(name: "ipawrap", version: "test")
    /// Shard 1/2 takes App3 and App5, shard 2/2 the others.
    static let names = ["App1.ipa", "App2.ipa", "App3.ipa", "App4.ipa", "App5.ipa"]
    static let inputs = names.enumerated().map { BatchInput(path: "/apps/" + $0.element, name: $0.element, index: $0.offset) }

    static func run(_ shard: Shard?) -> BatchRun {
        BatchRun(
            command: "inspect", tool: tool, evaluationDate: nil, options: [:], inputs: inputs, shard: shard,
            shardInputs: shard.map { $0.select(inputs).count } ?? inputs.count)
    }

    static func line(_ input: BatchInput, _ run: BatchRun) throws -> [UInt8] {
        try BatchRecord(
            BatchResult(input: input, exitCode: 65, outcome: .failure(InputFailure(code: "ARCHIVE_NOT_ZIP", message: "no")),
                        output: nil, seconds: 0.5),
            run: run
        ).jsonLine()
    }

    static func merge(_ files: [[UInt8]]) throws -> MergedBatch {
        let scratch = try ScratchDirectory("merge")
        let paths = try files.enumerated().map { try scratch.write("\($0.offset).jsonl", $0.element) }
        return try MergedBatch.merge(files: paths)
    }

    static func refusal(_ files: [[UInt8]]) throws -> BatchMergeError? {
        do {
            _ = try merge(files)
            return nil
        } catch let error as BatchMergeError {
            return error
        }
    }

    @Test func shardsInAnyOrderGiveTheInputsInTheirOrder() throws {
        let shards = try (1...2).map { try Shard(index: $0, count: 2) }
        let files = try shards.map { shard in try shard.select(Self.inputs).flatMap { try Self.line($0, Self.run(shard)) } }
        #expect(files.allSatisfy { !$0.isEmpty })
        let merged = try Self.merge(files.reversed())
        #expect(merged.results.map(\.input.name) == Self.names)
        #expect(merged.run == Self.run(nil))
        #expect(merged.summary.failed == 5 && merged.summary.exitCode == 1)
        // CRLF line ends and blank lines are read as a text editor would leave them.
        let edited = files.map { Array(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n\n").utf8) }
        #expect(try Self.merge(edited).results.map(\.input.name) == Self.names)
    }

    @Test func aLineMustBelongWhereItSays() throws {
        let shard = try Shard(index: 1, count: 2)
        let outsider = try #require(Self.inputs.first { !shard.contains($0) })
        let foreign = try #require(try Self.refusal([try Self.line(outsider, Self.run(shard))]))
        #expect(foreign.code == "BATCH_REPORT_NOT_BATCH_OUTPUT")
        #expect(foreign.description.contains("\(outsider.name) is not an input of shard 1/2"))
        let beyond = BatchInput(path: "/apps/App6.ipa", name: "App6.ipa", index: 5)
        let outOfRange = try #require(try Self.refusal([try Self.line(beyond, Self.run(nil))]))
        #expect(outOfRange.description.contains("index 5 is not one of the run's 5 inputs"))
        let renamed = BatchInput(path: "/apps/X.ipa", name: "X.ipa", index: 0)
        let whole = try Self.inputs.flatMap { try Self.line($0, Self.run(nil)) }
        let twice = try #require(try Self.refusal([whole, try Self.line(renamed, Self.run(nil))]))
        #expect(twice.code == "BATCH_REPORT_SHARD_TWICE")
    }

    /// Each refusal has a row in the batch page's table (`docs/batch.md`), so a new one cannot go undocumented.
    @Test func everyRefusalIsInTheBatchPage() throws {
        let examples: [BatchMergeError] = [
            .notBatchOutput("f", reason: "r"), .mixed(file: "f", line: 1, other: "g", otherLine: 1, difference: "d"),
            .shardTwice(shard: "1/2", first: "f", second: "g"), .shardIncomplete(shard: "1/2", file: "f", results: 1, inputs: 2),
            .shardsMissing(shards: ["2/2"], results: 1, inputs: 2), .noResults(files: ["f"]),
        ]
        // Fails to compile when a case is added without an example above.
        for example in examples {
            switch example {
            case .notBatchOutput, .mixed, .shardTwice, .shardIncomplete, .shardsMissing, .noResults: break
            }
        }
        let page = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/batch.md"), encoding: .utf8)
        for example in examples {
            #expect(page.contains("| `\(example.code)` |"), "docs/batch.md lacks \(example.code)")
            #expect(example.category == .invalidInput)
        }
    }
}
