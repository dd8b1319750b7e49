import FormatSupport
import Foundation
import OutputFiles
import Reporting

/// `batch report`: the JSON lines of a batch's shards (any number of files, in any order) put
/// back together as the one run they are parts of: its results in input order, its summary and
/// exit status, its HTML, SARIF and JUnit reports, as one unsharded run would have produced them.
///
/// Every line says which run it belongs to (`BatchRun`) and where its input stands among the
/// run's inputs (`BatchRecord.index`), so the merge refuses, before it renders anything, a line
/// that is not a batch record, lines of different runs (another command, option, tool or set of
/// inputs), a shard given twice, a shard that stopped short (interrupted) and shards missing.
/// A shard that had no input printed no line; it needs no file.
public struct MergedBatch: Sendable {
    /// The run as the unsharded run states it.
    public let run: BatchRun
    /// Every input's result, in input order.
    public let results: [BatchResult]
    /// How many shard runs (files' worth of lines) were merged.
    public let shards: Int

    /// The largest file merged: far more lines than any batch writes (a report is tens of KiB).
    public static let maximumFileSize: UInt64 = 1 << 30
    /// The longest line: one input's report is far smaller.
    public static let maximumLineLength = 64 << 20

    /// The results' counts and exit status, as the unsharded run's summary.
    public var summary: BatchSummary {
        var summary = BatchSummary(total: run.inputs)
        for result in results { summary.add(result) }
        return summary
    }

    /// Reads and checks `files`; throws `BatchMergeError` (exit 65) for lines that do not make
    /// one whole run, `FileReadError` (exit 74) for a file that cannot be read.
    public static func merge(files: [String]) throws -> MergedBatch {
        var reference: (run: BatchRun, file: String, line: Int)?
        /// Each shard's file, and its results by index.
        var shards: [String: (file: String, run: BatchRun, records: [Int: BatchResult])] = [:]
        var byIndex: [Int: (shard: String, name: String)] = [:]
        for file in files {
            try readRecords(of: file) { record, line in
                let run = record.run
                if let reference {
                    if let difference = run.difference(from: reference.run) {
                        throw BatchMergeError.mixed(
                            file: file, line: line, other: reference.file, otherLine: reference.line, difference: difference)
                    }
                } else {
                    reference = (run, file, line)
                }
                let shard = run.shard?.description ?? "whole"
                let place = "\(file), line \(line)"
                guard record.index >= 0, record.index < run.inputs else {
                    throw BatchMergeError.notBatchOutput(place, reason: "index \(record.index) is not one of the run's \(run.inputs) inputs")
                }
                if let shardOfRun = run.shard, Shard.index(of: record.name, count: shardOfRun.count) != shardOfRun.index {
                    throw BatchMergeError.notBatchOutput(place, reason: "\(record.name) is not an input of shard \(shardOfRun)")
                }
                guard let result = record.result else {
                    throw BatchMergeError.notBatchOutput(place, reason: "its report and failure are both null")
                }
                var entry = shards[shard] ?? (file, run, [:])
                if entry.file != file {
                    throw BatchMergeError.shardTwice(shard: shard, first: entry.file, second: file)
                }
                if entry.run.shardInputs != run.shardInputs || entry.records[record.index] != nil {
                    throw BatchMergeError.shardTwice(shard: shard, first: file, second: file)
                }
                if let earlier = byIndex[record.index], earlier.shard != shard || earlier.name != record.name {
                    throw BatchMergeError.notBatchOutput(place, reason: "input \(record.index) is \(earlier.name) in shard \(earlier.shard)")
                }
                byIndex[record.index] = (shard, record.name)
                entry.records[record.index] = result
                shards[shard] = entry
            }
        }
        guard let reference else { throw BatchMergeError.noResults(files: files) }
        for (shard, entry) in shards.sorted(by: { $0.key < $1.key }) where entry.records.count != entry.run.shardInputs {
            throw BatchMergeError.shardIncomplete(
                shard: shard, file: entry.file, results: entry.records.count, inputs: entry.run.shardInputs)
        }
        let total = reference.run.inputs
        let found = shards.values.reduce(0) { $0 + $1.records.count }
        if found < total {
            let count = reference.run.shard?.count ?? 1
            let missing = (1...count).map { "\($0)/\(count)" }.filter { shards[$0] == nil }
            throw BatchMergeError.shardsMissing(shards: missing, results: found, inputs: total)
        }
        let results = shards.values.flatMap(\.records.values).sorted { $0.input.index < $1.input.index }
        return MergedBatch(run: reference.run.whole, results: results, shards: shards.count)
    }

    /// Writes the HTML report of the merged run atomically, as the run's `--report` would.
    public func writeHTML(to path: String, generated: Date = Date()) throws(OutputError) {
        let page = HTMLReport(run: run, generated: generated, summary: summary).render(results)
        try BatchJob.writeAtomically(Array(page.utf8), to: path)
    }

    /// Calls `body` with each record of `file` and its line number (blank lines skipped).
    private static func readRecords(of file: String, _ body: (BatchRecord, Int) throws -> Void) throws {
        let source = try FileByteSource(path: file)
        guard source.size <= maximumFileSize else {
            throw BatchMergeError.notBatchOutput(file, reason: "it is larger than \(maximumFileSize >> 30) GiB")
        }
        let decoder = ReportJSON.decoder()
        var offset: UInt64 = 0
        var pending: [UInt8] = []
        var number = 0
        func take(_ line: ArraySlice<UInt8>) throws {
            number += 1
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { return }
            try body(try record(Data(line), decoder: decoder, place: "\(file), line \(number)"), number)
        }
        while offset < source.size {
            let count = Int(min(UInt64(8 << 20), source.size - offset))
            let chunk = try source.read(offset: offset, count: count)
            offset += UInt64(count)
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                if pending.isEmpty {
                    try take(chunk[start..<newline])
                } else {
                    pending += chunk[start..<newline]
                    try take(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                start = chunk.index(after: newline)
            }
            pending += chunk[start...]
            guard pending.count <= maximumLineLength else {
                throw BatchMergeError.notBatchOutput("\(file), line \(number + 1)", reason: "the line is longer than \(maximumLineLength >> 20) MiB")
            }
        }
        if !pending.isEmpty { try take(pending[...]) }
    }

    /// One line as a record, or why it is not one.
    private static func record(_ line: Data, decoder: JSONDecoder, place: String) throws(BatchMergeError) -> BatchRecord {
        struct Version: Decodable { let schemaVersion: Int? }
        do {
            return try decoder.decode(BatchRecord.self, from: line)
        } catch {
            let version = (try? decoder.decode(Version.self, from: line))?.schemaVersion
            if let version, version != BatchRecord.currentSchemaVersion {
                throw .notBatchOutput(
                    place, reason: "it is a batch record of schemaVersion \(version), which does not say which run it belongs to; "
                        + "run the batch again with this ipawrap")
            }
            throw .notBatchOutput(place, reason: "it is not a JSON line of ipawrap batch --json-lines")
        }
    }
}

/// Why `batch report` cannot merge its files into one run. Each is bad input (exit 65): nothing
/// is printed or written.
public enum BatchMergeError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case notBatchOutput = "BATCH_REPORT_NOT_BATCH_OUTPUT"
        case mixed = "BATCH_REPORT_MIXED_RUNS"
        case shardTwice = "BATCH_REPORT_SHARD_TWICE"
        case shardIncomplete = "BATCH_REPORT_SHARD_INCOMPLETE"
        case shardsMissing = "BATCH_REPORT_SHARD_MISSING"
        case noResults = "BATCH_REPORT_NO_RESULTS"
    }

    /// A line (or the file) is not a batch record of this version.
    case notBatchOutput(String, reason: String)
    /// Two lines belong to different runs.
    case mixed(file: String, line: Int, other: String, otherLine: Int, difference: String)
    /// A shard's lines come from two files (or one input's line is there twice).
    case shardTwice(shard: String, first: String, second: String)
    /// A shard's file holds fewer lines than the shard had inputs: the run was interrupted.
    case shardIncomplete(shard: String, file: String, results: Int, inputs: Int)
    /// Shards that had inputs are not among the files.
    case shardsMissing(shards: [String], results: Int, inputs: Int)
    /// The files hold no line at all.
    case noResults(files: [String])

    public var reason: Reason {
        switch self {
        case .notBatchOutput: .notBatchOutput
        case .mixed: .mixed
        case .shardTwice: .shardTwice
        case .shardIncomplete: .shardIncomplete
        case .shardsMissing: .shardsMissing
        case .noResults: .noResults
        }
    }

    public var description: String {
        switch self {
        case .notBatchOutput(let place, let reason):
            return "\(place): not the output of ipawrap batch --json-lines: \(reason)"
        case .mixed(let file, let line, let other, let otherLine, let difference):
            return "\(file), line \(line) and \(other), line \(otherLine) are results of different runs (\(difference)); "
                + "merge the shards of one command"
        case .shardTwice(let shard, let first, let second):
            let what = shard == "whole" ? "the unsharded run" : "shard \(shard)"
            return first == second
                ? "\(first): the results of \(what) are given twice; give each shard's results once"
                : "\(first) and \(second) both hold results of \(what); give each shard's results once"
        case .shardIncomplete(let shard, let file, let results, let inputs):
            let what = shard == "whole" ? "the run" : "shard \(shard)"
            return "\(file) holds \(results) of the \(inputs) results of \(what): it was interrupted or cut short; run it again"
        case .shardsMissing(let shards, let results, let inputs):
            let listed = shards.prefix(20).joined(separator: ", ") + (shards.count > 20 ? ", …" : "")
            return "the files hold \(results) of the run's \(inputs) results and none of shard \(listed) "
                + "(a shard without inputs prints none, but one of these had inputs); add the missing shards' results"
        case .noResults(let files):
            return "\(files.joined(separator: ", ")) hold no batch results (a shard without inputs prints none); "
                + "name the --json-lines output of the batch's shards"
        }
    }
}
