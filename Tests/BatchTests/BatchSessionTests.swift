@testable import Batch
import Checks
import Foundation
import Reporting
import Synchronization
import Testing
import TestSupport
import ToolData

/// Every event a session sends, in order; each result rendered as its input's name.
final class RecordingSink: BatchEventSink {
    let events = Mutex<[BatchEvent]>([])
    let rendering = Mutex<[String]>([])

    func render(_ result: BatchResult, in run: BatchRun) -> [UInt8] {
        rendering.withLock { $0.append(result.input.name) }
        return Array(result.input.name.utf8)
    }

    func handle(_ event: BatchEvent) {
        events.withLock { $0.append(event) }
    }

    var recorded: [BatchEvent] { events.withLock { $0 } }
}

@Suite struct BatchSessionTests {
    private let tool = Report.Tool(name: "ipawrap", version: "test")

    private func checkJob() throws -> BatchJob {
        BatchJob(operation: .check, toolData: try RepositoryTemplates.toolData(), collectIcons: true, tool: tool)
    }

    @Test func eventsComeInTheirOrderWithResultsInInputOrder() throws {
        let sample = try SampleBatch()
        let report = sample.scratch.path("report.html")
        let sink = RecordingSink()
        let session = BatchSession(job: try checkJob(), options: BatchSessionOptions(
            inputs: [sample.folder], jobs: 3, htmlReport: report, keepResults: true, progress: true))
        let outcome = try session.run(reportingTo: sink)
        let events = sink.recorded
        let names = SampleBatch.expected.map(\.name)

        #expect(outcome == .finished(exitStatus: 1), "check fails the batch when an input fails")
        guard case .began(let plan) = events.first else {
            Issue.record("the first event is not .began: \(String(describing: events.first))")
            return
        }
        #expect(plan.commandName == "check" && plan.inputs == names.count && plan.total == names.count && plan.jobs == 3)
        // Results, rendered on the workers, arrive in input order whatever order they finished in.
        let delivered = events.flatMap { event -> [RenderedResult] in
            if case .results(let results) = event { return results }
            return []
        }
        #expect(delivered.map(\.result.input.name) == names)
        #expect(delivered.map { String(decoding: $0.rendered, as: UTF8.self) } == names)
        #expect(sink.rendering.withLock { $0.sorted() } == names.sorted())

        // Progress only before .stopped; the report and the end after it, in that order.
        let stopped = try #require(events.firstIndex { if case .stopped = $0 { true } else { false } })
        let progress = events.indices.filter { if case .progress = events[$0] { true } else { false } }
        #expect(!progress.isEmpty && progress.allSatisfy { $0 < stopped })
        let finishedCounts = progress.compactMap { if case .progress(let line, _) = events[$0] { line.finished } else { nil } }
        #expect(finishedCounts == finishedCounts.sorted() && finishedCounts.last == names.count)
        guard events.count == stopped + 3,
              case .reportWritten(let path, let interrupted) = events[stopped + 1],
              case .ended(let end) = events[stopped + 2] else {
            Issue.record("after .stopped: \(events[stopped...])")
            return
        }
        #expect(path == report && !interrupted)
        #expect(end.signal == nil && !end.isEmptyShard)
        #expect(end.results.map(\.input.name) == names)
        #expect(end.summary.total == names.count && end.summary.finished == names.count)
        #expect(end.summary.failed == SampleBatch.expected.filter { $0.status == "failed" }.count)
        let page = String(decoding: try Fixtures.bytesAt(report), as: UTF8.self)
        #expect(names.allSatisfy(page.contains))
    }

    @Test func resultsAreKeptOnlyWhenAskedFor() throws {
        let sample = try SampleBatch()
        let sink = RecordingSink()
        _ = try BatchSession(job: try checkJob(), options: BatchSessionOptions(inputs: [sample.folder], jobs: 2))
            .run(reportingTo: sink)
        let events = sink.recorded
        #expect(!events.contains { if case .progress = $0 { true } else { false } }, "progress was not asked for")
        guard case .ended(let end) = events.last else {
            Issue.record("the last event is not .ended")
            return
        }
        #expect(end.results.isEmpty)
        #expect(end.summary.finished == SampleBatch.expected.count)
    }

    @Test func aShardWithNoInputEndsAtOnceWithStatusZero() throws {
        let sample = try SampleBatch()
        let inputs = try InputDiscovery.inputs([sample.folder])
        let count = 1000
        let taken = Set(inputs.map { Shard.index(of: $0.name, count: count) })
        let free = try #require((1...count).first { !taken.contains($0) })
        let sink = RecordingSink()
        let outcome = try BatchSession(job: try checkJob(), options: BatchSessionOptions(
            inputs: [sample.folder], shard: try Shard(index: free, count: count))).run(reportingTo: sink)
        #expect(outcome == .finished(exitStatus: 0))
        let events = sink.recorded
        guard events.count == 1, case .ended(let end) = events[0] else {
            Issue.record("\(events)")
            return
        }
        #expect(end.isEmptyShard && end.total == inputs.count && end.shard?.index == free)
    }

    @Test func noInputsIsAUsageErrorBeforeAnyEvent() throws {
        let scratch = try ScratchDirectory("batch-session-empty")
        _ = try scratch.write("empty/README.txt", [])
        let sink = RecordingSink()
        #expect(throws: BatchInputError.self) {
            try BatchSession(job: try checkJob(), options: BatchSessionOptions(inputs: [scratch.path("empty")]))
                .run(reportingTo: sink)
        }
        #expect(sink.recorded.isEmpty)
    }

    /// A signal is reported to the caller, not acted on: `run` returns `.interrupted` (the
    /// library never ends the process) without waiting for the input in flight, whose result
    /// is then never delivered. The interruption comes through the handlers' own path
    /// (`BatchInterrupter`); `CLITests/BatchInterruptTests` sends real signals to a real process.
    @Test func anInterruptionIsReturnedWithoutWaitingForTheInputInFlight() throws {
        let sample = try SampleBatch()
        let interrupter = BatchInterrupter()
        let sink = InterruptingSink(interrupter: interrupter)
        let outcome = try BatchSession(
            job: try checkJob(), options: BatchSessionOptions(inputs: [sample.folder], jobs: 1), interrupter: interrupter
        ).run(reportingTo: sink)
        #expect(outcome == .interrupted(signal: SIGINT))
        #expect(outcome.exitStatus == 130)
        // The one input in flight was held in `render` until the batch stopped.
        #expect(sink.inputsRendered.withLock { $0 } == 1)
        #expect(sink.sawStop.withLock { $0 })
        // Its result arrives after the end, and is dropped.
        let deadline = Date().addingTimeInterval(10)
        while !sink.renderReturned.withLock({ $0 }), Date() < deadline { usleep(1000) }
        usleep(100_000)
        let events = sink.recorded
        #expect(!events.contains { if case .results = $0 { true } else { false } }, "\(events)")
        guard case .ended(let end) = events.last else {
            Issue.record("the last event is not .ended: \(events)")
            return
        }
        #expect(end.signal == SIGINT)
        #expect(end.summary.finished == 0 && end.summary.total == SampleBatch.expected.count)
    }
}

/// Interrupts the batch (as SIGINT) while rendering the first result, and holds that input in
/// flight until the session says it stopped.
final class InterruptingSink: BatchEventSink {
    let interrupter: BatchInterrupter
    let events = Mutex<[BatchEvent]>([])
    let inputsRendered = Mutex(0)
    let sawStop = Mutex(false)
    let renderReturned = Mutex(false)

    init(interrupter: BatchInterrupter) {
        self.interrupter = interrupter
    }

    func render(_ result: BatchResult, in run: BatchRun) -> [UInt8] {
        let first = inputsRendered.withLock { count in
            count += 1
            return count == 1
        }
        if first {
            interrupter.interrupt(signal: SIGINT)
            let deadline = Date().addingTimeInterval(30)
            while !sawStop.withLock({ $0 }), Date() < deadline { usleep(1000) }
            renderReturned.withLock { $0 = true }
        }
        return Array(result.input.name.utf8)
    }

    func handle(_ event: BatchEvent) {
        if case .stopped = event { sawStop.withLock { $0 = true } }
        events.withLock { $0.append(event) }
    }

    var recorded: [BatchEvent] { events.withLock { $0 } }
}
