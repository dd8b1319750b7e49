import Dispatch
import FormatSupport
import Foundation
import OutputFiles
import Synchronization

/// What a batch works on and what it writes besides each input's output; how it is shown is the
/// event sink's business.
public struct BatchSessionOptions: Sendable {
    /// IPA files, and folders searched recursively for them.
    public var inputs: [String]
    /// Files listing more inputs, one per line (`-` for standard input).
    public var lists: [String]
    /// Inputs worked on at once (nil: the number of cores).
    public var jobs: Int?
    public var shard: Shard?
    /// The HTML report to write at the end (`--report`).
    public var htmlReport: String?
    /// Whether `.ended` carries every result (for a document of the whole batch).
    public var keepResults: Bool
    /// Whether to send `.progress` events (on an input's start and end, and four times a second).
    public var progress: Bool

    public init(
        inputs: [String], lists: [String] = [], jobs: Int? = nil, shard: Shard? = nil, htmlReport: String? = nil,
        keepResults: Bool = false, progress: Bool = false
    ) {
        self.inputs = inputs
        self.lists = lists
        self.jobs = jobs
        self.shard = shard
        self.htmlReport = htmlReport
        self.keepResults = keepResults
        self.progress = progress
    }
}

/// One input's result with the bytes the sink rendered for it on the worker thread that ran it.
public struct RenderedResult: Sendable {
    public let result: BatchResult
    public let rendered: [UInt8]
}

/// What a batch has settled on before its first input starts.
public struct BatchPlan: Sendable {
    public let commandName: String
    /// Inputs in this run (after `--shard`).
    public let inputs: Int
    /// Inputs found before `--shard` chose some.
    public let total: Int
    public let shard: Shard?
    public let jobs: Int
}

/// What `BatchSession.run` returns.
public enum BatchOutcome: Sendable, Equatable {
    /// Every input ran: 0 when none failed, 1 when one did.
    case finished(exitStatus: Int32)
    /// SIGINT or SIGTERM stopped the batch; its end is delivered (`.ended`), but inputs that were
    /// in flight may still be running on their threads. The caller ends the process (with
    /// 128 + `signal`) without running atexit handlers, `_exit`, which those inputs would see
    /// tear down what they use.
    case interrupted(signal: Int32)

    /// The status the process exits with: the batch's, or 128 + the signal.
    public var exitStatus: Int32 {
        switch self {
        case .finished(let status): status
        case .interrupted(let signal): 128 + signal
        }
    }
}

/// How a batch ended.
public struct BatchEnd: Sendable {
    public let summary: BatchSummary
    public let elapsed: Double
    /// The signal that interrupted the batch (`BatchOutcome.interrupted`).
    public let signal: Int32?
    /// Every finished input's result in input order, when `keepResults` asked for them.
    public let results: [BatchResult]
    public let shard: Shard?
    /// Inputs found before `--shard` chose some.
    public let total: Int
    /// The shard had none of the inputs: nothing ran.
    public var isEmptyShard: Bool { summary.total == 0 }
}

/// What a running batch tells its sink, in this order: `began`; then `progress` and `results` as
/// inputs start and finish; `stopped`, the last `results`, `reportWritten` or `reportFailed`,
/// `ended`. A shard with no input sends only `reportWritten` (with a report) and `ended`.
public enum BatchEvent: Sendable {
    case began(BatchPlan)
    /// The progress line changed (an input started or finished) or time passed.
    case progress(ProgressLine, elapsed: Double)
    /// Results now due, in input order (an earlier input still running holds later ones back).
    case results([RenderedResult])
    /// No more inputs start and no more progress comes (the batch is done or interrupted).
    case stopped
    /// The HTML report is written (also when interrupted, with what finished).
    case reportWritten(path: String, interrupted: Bool)
    /// The report of an interrupted batch could not be written; it still ends as interrupted.
    case reportFailed(OutputError)
    case ended(BatchEnd)
}

/// Where a batch session reports. `render` runs on the worker threads, concurrently; `handle`
/// runs one event at a time, under the session's lock, so what it prints never interleaves.
public protocol BatchEventSink: Sendable {
    /// The bytes that `.results` will carry for this result of `run` (e.g. its JSON line).
    func render(_ result: BatchResult, in run: BatchRun) -> [UInt8]
    func handle(_ event: BatchEvent)
}

/// A whole batch: gathers the inputs, refuses clashing outputs before anything is written, runs
/// the job over the inputs on `jobs` threads, delivers results in input order, writes the HTML
/// report and decides the exit status.
///
/// While it runs, the session owns the process's SIGINT and SIGTERM: on either no new input
/// starts, finished results are delivered, unfinished outputs are abandoned (they leave
/// nothing), the report of what finished is written, and `run` returns `.interrupted` without
/// waiting for the inputs in flight; ending the process is the caller's business.
public struct BatchSession: Sendable {
    public let job: BatchJob
    public let options: BatchSessionOptions
    /// Interrupts the batch as a signal would (tests): a process-directed signal to a test
    /// runner with many threads need not reach the batch's signal source on Linux.
    let interrupter: BatchInterrupter?

    public init(job: BatchJob, options: BatchSessionOptions) {
        self.init(job: job, options: options, interrupter: nil)
    }

    init(job: BatchJob, options: BatchSessionOptions, interrupter: BatchInterrupter?) {
        self.job = job
        self.options = options
        self.interrupter = interrupter
    }

    /// Runs the batch and returns how it ended: finished (0 when no input failed, 1 when one did)
    /// or interrupted by a signal. Throws, before any input starts, for no inputs, clashing
    /// outputs or an output folder or report that cannot be written; and for a report that
    /// cannot be written at the end.
    public func run(reportingTo sink: some BatchEventSink) throws -> BatchOutcome {
        var arguments = options.inputs
        for list in options.lists {
            arguments += try InputDiscovery.paths(inListFile: list)
        }
        let outDir = job.outputDirectory
        // Searching the folders is held to the same time limit as each input.
        let clock = WorkClock(seconds: job.limits.maximumSeconds, file: "")
        let all = try InputDiscovery.inputs(arguments, excluding: outDir.map { [$0] } ?? [], clock: clock)
        guard !all.isEmpty else {
            throw BatchInputError.noInputs(searched: arguments.filter(InputDiscovery.isFolder))
        }
        if let report = options.htmlReport {
            try OutputDestination.check(report, inputs: all.map(\.path) + options.lists)
        }
        let inputs = options.shard?.select(all) ?? all
        try checkOutputs(of: inputs)
        let batchRun = BatchRun(
            command: job.commandName, tool: job.tool, evaluationDate: job.checks.evaluationDate, options: job.runOptions,
            inputs: all, shard: options.shard, shardInputs: inputs.count)
        if let outDir {
            do {
                try FileSystem.createFolders(outDir)
            } catch {
                throw OutputError(path: outDir, reason: "cannot create the output folder (\(error))")
            }
        }
        // Opened now, so a report that cannot be written stops the batch before it starts.
        let reportFile = try options.htmlReport.map { try AtomicOutputFile(destination: $0) }
        let jobs = min(options.jobs ?? ProcessInfo.processInfo.activeProcessorCount, max(1, inputs.count))
        let run = RunningBatch(
            session: self, run: batchRun, inputs: inputs, total: all.count, jobs: jobs, reportFile: reportFile, sink: sink)
        return try inputs.isEmpty ? run.endEmptyShard() : run.run()
    }

    /// Refuses, before anything is written, two inputs with the same output and an output that
    /// would replace its input.
    private func checkOutputs(of inputs: [BatchInput]) throws(BatchInputError) {
        var owners: [String: BatchInput] = [:]
        for input in inputs {
            guard let output = job.outputPath(for: input) else { continue }
            if let first = owners[output] {
                throw .outputCollision(output: output, first: first.path, second: input.path)
            }
            owners[output] = input
            var outputInfo = stat()
            var inputInfo = stat()
            if FileSystem.stat(output, &outputInfo) == 0, FileSystem.stat(input.path, &inputInfo) == 0,
               outputInfo.st_dev == inputInfo.st_dev, outputInfo.st_ino == inputInfo.st_ino {
                throw .outputIsInput(output: output)
            }
        }
    }
}

/// Delivers an interruption to a running batch the way its SIGINT and SIGTERM handlers do.
final class BatchInterrupter: Sendable {
    private let deliver = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    init() {}

    /// Interrupts the running batch as `signal` would; nothing when no batch is running.
    func interrupt(signal: Int32) {
        deliver.withLock { $0 }?(signal)
    }

    fileprivate func connect(_ handler: (@Sendable (Int32) -> Void)?) {
        deliver.withLock { $0 = handler }
    }
}

/// A batch from its first input to its end. Everything that changes as inputs finish is in
/// `state`, and every event goes to the sink holding it (from the worker threads, the progress
/// timer and the signal handlers), so events never interleave.
private final class RunningBatch<Sink: BatchEventSink>: Sendable {
    struct State {
        var delivery = OrderedDelivery<RenderedResult>()
        var summary: BatchSummary
        var progress: ProgressLine
        var running: [Int: BatchInput] = [:]
        /// Results kept for the HTML report or the sink's document (only when one is asked for).
        var kept: [Int: BatchResult] = [:]
        /// Opened before the first input, written at the end.
        var reportFile: AtomicOutputFile?
        /// Set once `.stopped` is sent (at the end, or on an interrupt): no progress after it.
        var stopped = false
        /// The signal that interrupted the batch, set before the runner is cancelled, so that
        /// the batch ends as interrupted however its inputs stand.
        var interruption: Int32?
        /// Set once `.ended` is sent: an input in flight that finishes later reports nothing.
        var ended = false
    }

    let session: BatchSession
    let batchRun: BatchRun
    let inputs: [BatchInput]
    let total: Int
    let jobs: Int
    let sink: Sink
    let runner: BatchRunner<RenderedResult>
    let keepsResults: Bool
    let start = DispatchTime.now()
    let state: Mutex<State>

    init(
        session: BatchSession, run: BatchRun, inputs: [BatchInput], total: Int, jobs: Int, reportFile: sending AtomicOutputFile?,
        sink: Sink
    ) {
        self.session = session
        self.batchRun = run
        self.inputs = inputs
        self.total = total
        self.jobs = jobs
        self.sink = sink
        self.runner = BatchRunner(inputs: inputs, jobs: jobs)
        self.keepsResults = reportFile != nil || session.options.keepResults
        self.state = Mutex(State(
            summary: BatchSummary(total: inputs.count), progress: ProgressLine(total: inputs.count), reportFile: reportFile))
    }

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    func run() throws -> BatchOutcome {
        sink.handle(.began(BatchPlan(
            commandName: session.job.commandName, inputs: inputs.count, total: total, shard: session.options.shard, jobs: jobs)))
        // Woken when the runner is done, or by a signal: an interrupted batch does not wait for
        // the inputs in flight.
        let wake = DispatchSemaphore(value: 0)
        // Signals are taken from the default action only now, with everything they need in place.
        var previousActions: [(signal: Int32, action: (@convention(c) (Int32) -> Void)?)] = []
        let handlers = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            previousActions.append((signal: number, action: signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                if interrupt(signal: number) { wake.signal() }
            }
            source.resume()
            return source
        }
        session.interrupter?.connect { [self] number in
            if interrupt(signal: number) { wake.signal() }
        }
        defer { session.interrupter?.connect(nil) }
        // Redraws the rate and ETA between events. (A dispatch source must be resumed before it is
        // released, so it exists only when it runs.)
        var timer: DispatchSourceTimer?
        if session.options.progress {
            let source = DispatchSource.makeTimerSource(queue: .global())
            source.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            source.setEventHandler { [self] in state.withLock { sendProgress(&$0) } }
            source.resume()
            timer = source
        }

        let job = session.job
        let sink = self.sink
        let batchRun = self.batchRun
        let runner = self.runner
        let thread = Thread { [self] in
            runner.run({ input in
                let result = job.run(input)
                return RenderedResult(result: result, rendered: sink.render(result, in: batchRun))
            }, events: { [self] event in state.withLock { handle(event, &$0) } })
            wake.signal()
        }
        thread.name = "ipawrap batch runner"
        thread.start()
        wake.wait()

        timer?.cancel()
        handlers.forEach { $0.cancel() }
        return try state.withLock { state throws -> BatchOutcome in
            if let number = state.interruption {
                // The signals stay ignored: the caller ends the process, and a second Ctrl-C
                // must not kill it before it exits with this status.
                endInterrupted(&state, signal: number)
                return .interrupted(signal: number)
            }
            for previous in previousActions { signal(previous.signal, previous.action) }
            stop(&state)
            try writeReport(&state, interrupted: false)
            sendEnd(&state, signal: nil)
            return .finished(exitStatus: state.summary.exitCode)
        }
    }

    func endEmptyShard() throws -> BatchOutcome {
        try state.withLock { state throws -> BatchOutcome in
            try writeReport(&state, interrupted: false)
            sendEnd(&state, signal: nil)
            return .finished(exitStatus: ExitStatus.success)
        }
    }

    /// Sends `.ended`; nothing is sent after it.
    private func sendEnd(_ state: inout State, signal: Int32?) {
        state.ended = true
        sink.handle(.ended(end(state, signal: signal)))
    }

    private func end(_ state: State, signal: Int32?) -> BatchEnd {
        BatchEnd(
            summary: state.summary, elapsed: elapsed, signal: signal,
            results: state.kept.sorted { $0.key < $1.key }.map(\.value), shard: session.options.shard, total: total)
    }

    // MARK: Events (holding `state`)

    private func handle(_ event: BatchRunner<RenderedResult>.Event, _ state: inout State) {
        // An input that was in flight when the batch was interrupted: its result is not reported.
        guard !state.ended else { return }
        switch event {
        case .started(let index, let input):
            state.running[index] = input
            state.progress.running.append(input.name)
        case .finished(let index, let input, let done):
            state.running[index] = nil
            if let position = state.progress.running.firstIndex(of: input.name) { state.progress.running.remove(at: position) }
            state.summary.add(done.result)
            state.progress.finished = state.summary.finished
            state.progress.failed = state.summary.failed
            if keepsResults { state.kept[index] = done.result }
            let released = state.delivery.add(done, at: index)
            if !released.isEmpty { sink.handle(.results(released)) }
        }
        sendProgress(&state)
    }

    private func sendProgress(_ state: inout State) {
        guard session.options.progress, !state.stopped else { return }
        sink.handle(.progress(state.progress, elapsed: elapsed))
    }

    /// Sends `.stopped` and every result still held back.
    private func stop(_ state: inout State) {
        guard !state.stopped else { return }
        state.stopped = true
        sink.handle(.stopped)
        let remaining = state.delivery.drain()
        if !remaining.isEmpty { sink.handle(.results(remaining)) }
    }

    private func writeReport(_ state: inout State, interrupted: Bool) throws(OutputError) {
        guard let reportFile = state.reportFile else { return }
        let page = HTMLReport(
            run: batchRun, interrupted: interrupted, summary: state.summary
        ).render(state.kept.sorted { $0.key < $1.key }.map(\.value))
        let bytes = Array(page.utf8)
        try reportFile.write(bytes, at: 0)
        try reportFile.commit(length: UInt64(bytes.count), synchronize: false)
        sink.handle(.reportWritten(path: reportFile.destination, interrupted: interrupted))
    }

    // MARK: Interruption

    /// Ctrl-C or SIGTERM: no new input starts, and the batch ends as interrupted. True for the
    /// first signal that arrives before the batch is done.
    private func interrupt(signal number: Int32) -> Bool {
        let first = state.withLock { state in
            // Too late (the batch is done and stopped), or already interrupted.
            guard !state.stopped, state.interruption == nil else { return false }
            state.interruption = number
            return true
        }
        if first { runner.cancel() }
        return first
    }

    /// Ends an interrupted batch: delivers what finished, abandons the unfinished outputs, writes
    /// the report and sends `.ended` with the signal.
    private func endInterrupted(_ state: inout State, signal number: Int32) {
        stop(&state)
        for input in state.running.values {
            if let output = session.job.outputPath(for: input) { AtomicOutputFile.removeAbandonedFiles(for: output) }
        }
        do {
            try writeReport(&state, interrupted: true)
        } catch {
            sink.handle(.reportFailed(error))
        }
        sendEnd(&state, signal: number)
    }
}
