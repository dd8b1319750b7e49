import Foundation
import Testing
import TestSupport

/// `batch report`: the JSON lines of a batch's shards, run as separate processes, merge into what
/// one unsharded run prints and writes; anything that is not the shards of one run is refused.
@Suite struct BatchReportTests {
    static let shards = 4

    /// The sample folder plus an unsigned app, an app with an extension (both with room for a
    /// signature, as ld64 links) and an app no profile fits: signed and unsigned apps, clean
    /// ones, warnings, error findings and unreadable files.
    static func folder() throws -> BatchSampleFolder {
        let sample = try BatchSampleFolder("batch-report")
        let signable = IPABuilder.executable { $0.headerPadding = 1024 }
        var unsigned = BatchSampleFolder.builder("Unsigned")
        unsigned.signed = false
        unsigned.executable = signable
        try sample.write("Unsigned.ipa", unsigned.bytes())
        var share = BatchSampleFolder.builder("Share")
        share.executable = signable
        share.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        share.nested[0].executable = IPABuilder.executable(fileType: 8) { $0.headerPadding = 1024 }
        try sample.write("team/Share.ipa", share.bytes())
        var other = IPABuilder(appName: "Other", bundleIdentifier: "com.other.app")
        other.addPrimaryIcon()
        try sample.write("Other.ipa", other.bytes())
        return sample
    }

    /// What a run printed and wrote.
    struct Outputs {
        var status: Int32
        var lines: String
        var html: String
        var sarif: String
        var junit: String
    }

    /// A report without what differs from run to run: the time it was generated, each input's time.
    static func withoutTimes(_ text: String) -> String {
        var text = text.replacingOccurrences(
            of: #"Generated \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "Generated (time)", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\d+\.\d\d s\b"#, with: "(seconds)", options: .regularExpression)
        return text
    }

    /// The counts of the summary line (`9 inputs: 3 ok, …`), without the time or the merge.
    static func summaryCounts(_ stdout: String) -> String? {
        guard let line = stdout.split(separator: "\n").last(where: { $0.contains(" inputs: ") }) else { return nil }
        let end = line.range(of: " in ")?.lowerBound ?? line.range(of: "; merged")?.lowerBound ?? line.endIndex
        return String(line[..<end])
    }

    /// The result lines of a text batch without their times, and without the summary line.
    static func resultLines(_ stdout: String) -> [String] {
        BatchSampleFolder.resultLines(stdout).map(withoutTimes)
    }

    /// `ipawrap` with `arguments` in four processes at once, one per shard, each printing its JSON
    /// lines into a file; the files.
    static func runShards(_ arguments: [String], in scratch: ScratchDirectory) throws -> [String] {
        var processes: [Process] = []
        var files: [String] = []
        for index in 1...shards {
            let file = scratch.path("results-\(index).jsonl")
            try #require(FileManager.default.createFile(atPath: file, contents: nil))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Command.ipawrapPath)
            process.arguments = arguments + ["--shard", "\(index)/\(shards)", "--json-lines"]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes.append(process)
            files.append(file)
        }
        for process in processes {
            process.waitUntilExit()
            // A shard's own status: 0 or 1, whatever the others hold.
            #expect([0, 1].contains(process.terminationStatus))
        }
        for file in files {
            try JSONSchemaOracle.validate(String(decoding: try Fixtures.bytesAt(file), as: UTF8.self), against: .batchRecord, jsonLines: true)
        }
        return files
    }

    /// The unsharded run's outputs: its lines and HTML, its SARIF, its JUnit.
    static func unsharded(_ arguments: [String], in scratch: ScratchDirectory) throws -> Outputs {
        let html = scratch.path("whole.html")
        let text = try Command.ipawrap(arguments + ["--report", html])
        let sarif = try Command.ipawrap(arguments + ["--report-format", "sarif"])
        let junit = try Command.ipawrap(arguments + ["--report-format", "junit"])
        #expect(text.status == sarif.status && sarif.status == junit.status)
        return Outputs(
            status: text.status, lines: text.stdout, html: String(decoding: try Fixtures.bytesAt(html), as: UTF8.self),
            sarif: sarif.stdout, junit: junit.stdout)
    }

    /// `batch report` of `files`: its lines and HTML, its SARIF, its JUnit.
    static func merged(_ files: [String], in scratch: ScratchDirectory) throws -> Outputs {
        let html = scratch.path("merged.html")
        let text = try Command.ipawrap(["batch", "report"] + files + ["--report", html])
        #expect(text.stderr.contains("wrote the report"), "\(text.stderr)")
        let sarif = try Command.ipawrap(["batch", "report"] + files + ["--report-format", "sarif"])
        let junit = try Command.ipawrap(["batch", "report"] + files + ["--report-format", "junit"])
        #expect(text.status == sarif.status && sarif.status == junit.status)
        return Outputs(
            status: text.status, lines: text.stdout, html: String(decoding: try Fixtures.bytesAt(html), as: UTF8.self),
            sarif: sarif.stdout, junit: junit.stdout)
    }

    static func expectSame(_ merged: Outputs, _ whole: Outputs, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(merged.status == whole.status, sourceLocation: sourceLocation)
        #expect(resultLines(merged.lines) == resultLines(whole.lines), sourceLocation: sourceLocation)
        #expect(withoutTimes(merged.html) == withoutTimes(whole.html), sourceLocation: sourceLocation)
        #expect(merged.sarif == whole.sarif, sourceLocation: sourceLocation)
        #expect(merged.junit == whole.junit, sourceLocation: sourceLocation)
    }

    @Test func fourShardProcessesMergeIntoTheUnshardedRun() throws {
        let sample = try Self.folder()
        let arguments = ["batch", "check", sample.folder, "--at", "2026-06-01"]
        let files = try Self.runShards(arguments, in: sample.scratch)
        let whole = try Self.unsharded(arguments, in: sample.scratch)
        #expect(whole.status == 1)
        #expect(BatchSampleFolder.resultLines(whole.lines).count == 9)
        // The shards share the inputs out; one may have none (its file is empty, and needed or not).
        let counts = try files.map { try Fixtures.bytesAt($0).count(where: { $0 == UInt8(ascii: "\n") }) }
        #expect(counts.reduce(0, +) == 9 && counts.filter { $0 > 0 }.count > 1, "\(counts)")
        let merged = try Self.merged(files, in: sample.scratch)
        Self.expectSame(merged, whole)
        #expect(Self.summaryCounts(merged.lines) == Self.summaryCounts(whole.lines), "\(merged.lines)")
        #expect(merged.lines.contains("; merged from \(counts.filter { $0 > 0 }.count) shards"), "\(merged.lines)")
        // The files in any order, and without those of shards that had no input.
        let reordered = try Self.merged(files.reversed().filter { (try? Fixtures.bytesAt($0).isEmpty) == false }, in: sample.scratch)
        Self.expectSame(reordered, whole)
        // The icons are in the merged page, as in the unsharded run's.
        #expect(merged.html.contains("data:image/png;base64,"))
    }

    @Test func signingShardsMergeWithTheirSignatures() throws {
        let sample = try Self.folder()
        let scratch = sample.scratch
        let password = try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        try scratch.write("profiles/app.mobileprovision", ProfileBuilder.signingFixture(.app))
        try scratch.write("profiles/share.mobileprovision", ProfileBuilder.signingFixture(.share))
        let arguments = [
            "batch", "sign", sample.folder, "--out-dir", scratch.path("out"), "--identity", SigningFixtures.PKCS12.openssl.path,
            "--password-file", password, "--profiles-dir", scratch.path("profiles"), "--signing-time", "1767225600",
            "--at", "2026-06-01",
        ]
        let files = try Self.runShards(arguments, in: scratch)
        let whole = try Self.unsharded(arguments, in: scratch)
        let merged = try Self.merged(files, in: scratch)
        Self.expectSame(merged, whole)
        #expect(whole.html.contains(">Signature<") && whole.html.contains("team ABCDE12345"), "\(whole.lines)")
    }

    @Test func whatIsNotTheShardsOfOneRunIsRefused() throws {
        let sample = try Self.folder()
        let scratch = sample.scratch
        let arguments = ["batch", "check", sample.folder, "--at", "2026-06-01"]
        let files = try Self.runShards(arguments, in: scratch)
        let sizes = try files.map { try Fixtures.bytesAt($0).count(where: { $0 == UInt8(ascii: "\n") }) }
        let largest = try #require(sizes.indices.max { sizes[$0] < sizes[$1] })
        try #require(sizes[largest] >= 2)
        let html = scratch.path("refused.html")

        func refused(_ files: [String], _ code: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try Command.ipawrap(["batch", "report"] + files + ["--report", html])
            #expect(result.status == 65, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains("error[\(code)]") && result.stderr.contains(words), "\(result.stderr)",
                    sourceLocation: sourceLocation)
            #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: html), sourceLocation: sourceLocation)
        }
        // A shard that had inputs is missing.
        try refused(files.enumerated().filter { $0.offset != largest }.map(\.element), "BATCH_REPORT_SHARD_MISSING",
                    "\(largest + 1)/4")
        // A shard given twice.
        try refused(files + [files[largest]], "BATCH_REPORT_SHARD_TWICE", "given twice")
        let copy = try scratch.write("copy.jsonl", try Fixtures.bytesAt(files[largest]))
        try refused(files + [copy], "BATCH_REPORT_SHARD_TWICE", "both hold results of shard \(largest + 1)/4")
        // A shard cut short (interrupted).
        let lines = try Fixtures.bytesAt(files[largest]).split(separator: UInt8(ascii: "\n"))
        let cut = try scratch.write("cut.jsonl", Array(lines.dropLast().joined(separator: [UInt8(ascii: "\n")])) + [UInt8(ascii: "\n")])
        var withCut = files
        withCut[largest] = cut
        try refused(withCut, "BATCH_REPORT_SHARD_INCOMPLETE", "\(sizes[largest] - 1) of the \(sizes[largest]) results")
        // A shard of another run: another --at, another command, other inputs.
        let other = try Command.ipawrap(Array(arguments.dropLast()) + ["2026-06-02", "--shard", "\(largest + 1)/4", "--json-lines"])
        let otherFile = try scratch.write("other-at.jsonl", Array(other.stdout.utf8))
        withCut[largest] = otherFile
        try refused(withCut, "BATCH_REPORT_MIXED_RUNS", "--at")
        let inspect = try Command.ipawrap(["batch", "inspect", sample.folder, "--at", "2026-06-01", "--shard", "\(largest + 1)/4", "--json-lines"])
        withCut[largest] = try scratch.write("inspect.jsonl", Array(inspect.stdout.utf8))
        try refused(withCut, "BATCH_REPORT_MIXED_RUNS", "batch inspect")
        try sample.write("Extra.ipa", BatchSampleFolder.good("Extra"))
        let more = try Command.ipawrap(arguments + ["--json-lines"])
        try refused([try scratch.write("more.jsonl", Array(more.stdout.utf8))] + files, "BATCH_REPORT_MIXED_RUNS", "inputs")
        // What is not batch output at all.
        let report = try Command.ipawrap(["check", sample.path("Good.ipa"), "--json"])
        try refused([try scratch.write("report.json", Array(report.stdout.utf8))], "BATCH_REPORT_NOT_BATCH_OUTPUT", "report.json, line 1")
        try refused(files + [try scratch.write("notes.txt", Array("hello\n".utf8))], "BATCH_REPORT_NOT_BATCH_OUTPUT", "notes.txt, line 1")
        // A line of an earlier version, which does not say which run it belongs to.
        var old = try #require(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
        old["schemaVersion"] = 1
        old["run"] = nil
        let oldFile = try scratch.write("old.jsonl", Array(try JSONSerialization.data(withJSONObject: old)) + [UInt8(ascii: "\n")])
        try refused([oldFile], "BATCH_REPORT_NOT_BATCH_OUTPUT", "schemaVersion 1")
        // No results at all: only shards without inputs, or nothing.
        try refused([try scratch.write("empty.jsonl", [])], "BATCH_REPORT_NO_RESULTS", "empty.jsonl")
        // A file that cannot be read is an I/O error; no file at all, a usage error.
        let missing = try Command.ipawrap(["batch", "report", scratch.path("nope.jsonl")])
        #expect(missing.status == 74 && missing.stderr.contains("nope.jsonl"), "\(missing.stderr)")
        #expect(try Command.ipawrap(["batch", "report"]).status == 64)
        // The report may not replace a results file.
        let clash = try Command.ipawrap(["batch", "report"] + files + ["--report", files[0]])
        #expect(clash.status == 64 && clash.stderr.contains("OUTPUT_IS_INPUT"), "\(clash.stderr)")
    }
}
