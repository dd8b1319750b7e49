import Batch
import Checks
import Foundation
import Policy
import Reporting
import Synchronization
import Testing
import TestSupport
import ToolData
import Wrapping

@Suite struct BatchJobTests {
    private let tool = Report.Tool(name: "ipawrap", version: "test")
    /// The checkout's Templates, as the command line resolves them before a batch.
    private func data() throws -> ToolData { try RepositoryTemplates.toolData() }

    private func run(_ job: BatchJob, over sample: SampleBatch, jobs: Int = 3) throws -> [BatchResult] {
        let inputs = try InputDiscovery.inputs([sample.folder])
        let results = IndexedResults()
        BatchRunner<BatchResult>(inputs: inputs, jobs: jobs).run({ job.run($0) }, events: { event in
            if case .finished(let index, _, let result) = event { results.set(index, result) }
        })
        return results.ordered(inputs.count)
    }

    @Test func checkGivesEachInputItsOwnStatusAndExitCode() throws {
        let sample = try SampleBatch()
        let results = try run(BatchJob(operation: .check, toolData: try data(), tool: tool), over: sample)
        #expect(results.map(\.input.name) == SampleBatch.expected.map(\.name))
        for (result, expected) in zip(results, SampleBatch.expected) {
            #expect(result.status.rawValue == expected.status, "\(expected.name)")
            #expect(result.exitCode == expected.exitCode, "\(expected.name)")
            if let code = expected.code {
                let codes = (result.outcome.report?.findings.map(\.code) ?? []) + (result.outcome.failure.map { [$0.code] } ?? [])
                #expect(codes.contains(code), "\(expected.name): \(codes)")
            }
            #expect(result.seconds >= 0 && result.seconds < 60)
            #expect(result.output == nil)
            #expect(result.iconThumbnail == nil)
        }
        // A corrupt input has no report but a one-sentence failure naming the file.
        let broken = try #require(results.first { $0.input.name == "Broken.ipa" })
        guard case .failure(let failure) = broken.outcome else { Issue.record("\(broken.outcome)"); return }
        #expect(failure.message.contains("Broken.ipa"))
        #expect(results.first { $0.input.name == "NoIcon.ipa" }?.errors == 1)
        #expect(results.first { $0.input.name == "Warn.ipa" }.map { $0.warnings > 0 && $0.errors == 0 } == true)
    }

    @Test func inspectFailsOnlyOnUnreadableInputs() throws {
        let sample = try SampleBatch()
        let results = try run(BatchJob(operation: .inspect, toolData: try data(), tool: tool), over: sample)
        let noIcon = try #require(results.first { $0.input.name == "NoIcon.ipa" })
        #expect(noIcon.exitCode == 0)
        #expect(noIcon.status == .findings)
        #expect(results.filter { $0.status == .failed }.map(\.input.name) == ["Broken.ipa", "Slip.ipa"])
    }

    @Test func theReportIsTheOneOfTheSingleFileInspector() throws {
        let sample = try SampleBatch()
        let results = try run(BatchJob(operation: .inspect, toolData: try data(), tool: tool), over: sample)
        for result in results where result.outcome.report != nil {
            var single = try Inspector.inspect(path: result.input.path, toolData: try data(), tool: tool).report
            // Judged "now" twice, a second apart at most: the one field that may differ.
            var batched = result.outcome.report
            batched?.judgedAt = nil
            single.judgedAt = nil
            #expect(batched == single, "\(result.input.name)")
        }
    }

    @Test func everyHostileArchiveFailsAloneWithItsCode() throws {
        let scratch = try ScratchDirectory("hostile-batch")
        for (index, hostile) in HostileArchives.all.enumerated() {
            try scratch.write(String(format: "h%03d-%@.ipa", index, hostile.name), hostile.bytes)
        }
        try scratch.write("zz-Good.ipa", SampleBatch.good(name: "Good"))
        let inputs = try InputDiscovery.inputs([scratch.path])
        let job = BatchJob(operation: .check, toolData: try data(), tool: tool)
        let results = IndexedResults()
        BatchRunner<BatchResult>(inputs: inputs, jobs: 4).run({ job.run($0) }, events: { event in
            if case .finished(let index, _, let result) = event { results.set(index, result) }
        })
        let ordered = results.ordered(inputs.count)
        for (result, hostile) in zip(ordered, HostileArchives.all) {
            #expect(result.status == .failed, "\(hostile.name)")
            #expect(result.exitCode == 65, "\(hostile.name)")
            #expect(result.outcome.failure?.code == hostile.code, "\(hostile.name)")
        }
        #expect(ordered.last?.status == .ok)
    }

    @Test func inspectWithAnOutputFolderWritesEachReportAsJSON() throws {
        let sample = try SampleBatch()
        let out = sample.scratch.path("reports")
        let results = try run(BatchJob(operation: .inspect, toolData: try data(), outputDirectory: out, tool: tool), over: sample)
        let deep = try #require(results.first { $0.input.name == "team/Deep.ipa" })
        #expect(deep.output == out + "/team/Deep.json")
        let decoded = try ReportJSON.decoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/team/Deep.json")))
        #expect(decoded == deep.outcome.report)
        // Nothing for the inputs without a report, and nothing else.
        #expect(Set(sample.scratch.listing().filter { $0.hasPrefix("reports/") }) == [
            "reports/Good.json", "reports/NoIcon.json", "reports/Warn.json", "reports/team", "reports/team/Deep.json",
        ])
    }

    @Test func wrapWritesTheGoodOnesUnderTheirNamesAndNothingForTheOthers() throws {
        let sample = try SampleBatch()
        let out = sample.scratch.path("wrapped")
        let request = try BatchJob.prepareWrap(WrapRequest(input: "", output: "", toolData: RepositoryTemplates.toolData()))
        let results = try run(.wrap(request, outputDirectory: out, collectIcons: true, tool: tool), over: sample)
        for result in results {
            let expected = SampleBatch.expected.first { $0.name == result.input.name }
            #expect(result.exitCode == expected?.exitCode, "\(result.input.name)")
            if result.exitCode == 0 {
                #expect(result.output == out + "/" + result.input.name)
                // The same bytes as a wrap of that file alone.
                let single = sample.scratch.path("single.ipa")
                var alone = request
                alone.input = result.input.path
                alone.output = single
                _ = try Wrapper.wrap(alone, tool: tool)
                #expect(try Fixtures.bytesAt(out + "/" + result.input.name) == Fixtures.bytesAt(single))
                try FileManager.default.removeItem(atPath: single)
            } else {
                #expect(result.output == nil)
            }
        }
        #expect(Set(sample.scratch.listing().filter { $0.hasPrefix("wrapped/") }) == [
            "wrapped/Good.ipa", "wrapped/Warn.ipa", "wrapped/team", "wrapped/team/Deep.ipa",
        ])
        // Icons come along for the report, also for an app that was not wrapped.
        #expect(results.first { $0.input.name == "Good.ipa" }?.iconThumbnail != nil)
        #expect(results.first { $0.input.name == "NoIcon.ipa" }?.iconThumbnail == nil)
    }

    @Test func mdxOutputsAreNamedWithTheirExtension() throws {
        let sample = try SampleBatch()
        var request = try BatchJob.prepareWrap(WrapRequest(input: "", output: "", toolData: RepositoryTemplates.toolData()))
        request.format = .mdx
        let job = BatchJob.wrap(request, outputDirectory: "/out", tool: tool)
        #expect(job.outputPath(for: BatchInput(path: sample.path("team/Deep.ipa"), name: "team/Deep.ipa")) == "/out/team/Deep.mdx")
        #expect(job.outputPath(for: BatchInput(path: "x", name: "odd")) == "/out/odd.mdx")
    }

    @Test func aWrapRequestThatCannotWorkForAnyInputFailsOnceBeforeTheBatch() throws {
        let toolData = try RepositoryTemplates.toolData()
        #expect(throws: (any Error).self) {
            try BatchJob.prepareWrap(WrapRequest(input: "", output: "", template: "no-such-template", toolData: toolData))
        }
        #expect(throws: (any Error).self) {
            try BatchJob.prepareWrap(WrapRequest(input: "", output: "", overrides: [PolicyOverride(name: "NoSuchPolicy", value: "1")], toolData: toolData))
        }
        do {
            _ = try BatchJob.prepareWrap(WrapRequest(input: "", output: "", policyFile: "/no/such/policy.xml", toolData: toolData))
            Issue.record("a missing policy file was accepted")
        } catch let error as WrapError {
            #expect(error.code == "POLICY_FILE_UNREADABLE")
        }
        // The toolkit version comes from the Templates folder, resolved before the batch, and says so.
        let prepared = try BatchJob.prepareWrap(WrapRequest(input: "", output: "", toolData: toolData))
        #expect(prepared.toolData.toolkitVersion == (try toolData.templates.toolkitVersion()))
        #expect(prepared.toolData.toolkitVersion.source == .toolkitInfo)
    }

    @Test func anOutputThatCannotBeWrittenFailsThatInputWith74() throws {
        let sample = try SampleBatch()
        // A file where the output folder's subfolder must go.
        let out = sample.scratch.path("reports")
        try sample.scratch.write("reports/team", Array("in the way".utf8))
        let results = try run(BatchJob(operation: .inspect, toolData: try data(), outputDirectory: out, tool: tool), over: sample)
        let deep = try #require(results.first { $0.input.name == "team/Deep.ipa" })
        #expect(deep.exitCode == 74)
        // The report was made before its JSON could not be written: both are kept.
        guard case .failedAfterReport(let report, let failure) = deep.outcome else {
            Issue.record("\(deep.outcome)")
            return
        }
        #expect(failure.code == "OUTPUT_WRITE_FAILED")
        #expect(report.app.path.hasSuffix(".app"))
        #expect(results.first { $0.input.name == "Good.ipa" }?.exitCode == 0)
    }
}

/// Results by index, filled from the runner's threads.
final class IndexedResults: Sendable {
    private let results = Mutex<[Int: BatchResult]>([:])

    func set(_ index: Int, _ result: BatchResult) { results.withLock { $0[index] = result } }

    func ordered(_ count: Int) -> [BatchResult] {
        results.withLock { results in (0..<count).compactMap { results[$0] } }
    }
}
