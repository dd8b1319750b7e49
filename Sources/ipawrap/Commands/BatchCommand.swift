import ArgumentParser
import Batch
import Checks
import Dispatch
import Foundation
import IPAArchive
import Policy
import Reporting
import Wrapping

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Inspect, check or wrap many IPAs at once, in parallel, each on its own.",
        discussion: """
            INPUTS are .ipa files and folders, searched recursively for *.ipa (hidden files and the \
            --out-dir are skipped, symlinked folders not followed); --from adds paths from a list. Each \
            input is opened and processed on its own, at most --jobs at a time, and gets one result line \
            in input order: its status, the exit code the single-file command would give it, its error \
            and warning counts and its time. Status: ok (exit 0, no error or warning), findings (exit 0 \
            with warnings, or for inspect with errors), failed (non-zero: 1 for error findings in check and \
            wrap, 65 bad input, 74 output not written).
            An input's name is its path relative to the folder it was found in (or its file name); \
            outputs in --out-dir are named after it, and --shard I/N takes the inputs for which \
            1 + (first 8 bytes of SHA-256 of the NFC name, big-endian) mod N is I.
            Exit codes: 0 no input failed, 1 at least one input failed, 64 usage error (also: no inputs \
            found, two inputs with the same output), 74 the --report or --out-dir cannot be written, \
            130 interrupted by Ctrl-C (143 by SIGTERM): finished outputs stay, unfinished ones leave \
            nothing.
            """,
        subcommands: [BatchInspectCommand.self, BatchCheckCommand.self, BatchWrapCommand.self]
    )
}

/// Options of every batch command.
struct BatchOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("IPA files, and folders searched recursively for .ipa files.", valueName: "inputs"))
    var inputs: [String] = []

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "A file listing inputs, one per line ('-' for standard input); blank lines and lines starting with # are ignored.",
        valueName: "list"))
    var lists: [String] = []

    @Option(help: ArgumentHelp(
        "Write outputs here, named after each input (subfolders of a folder input are kept): the wrapped apps, "
            + "or for inspect and check one JSON report per input (App.ipa → App.json).", valueName: "dir"))
    var outDir: String?

    @Option(help: ArgumentHelp("Inputs worked on at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "Print one JSON object per input (its result and report), one per line, instead of text.")
    var jsonLines = false

    @Option(help: ArgumentHelp(
        "Instead of a line per input, print one document for all inputs at the end: sarif (SARIF 2.1.0, for code "
            + "scanning) or junit (JUnit XML, one testsuite per input, for CI test views).", valueName: "format"))
    var reportFormat: BatchDocumentFormat?

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write a self-contained HTML page: each app's icon, name, bundle ID, versions, minimum OS, SDKs, "
            + "profiles and findings with remedies, sortable and filterable offline.", valueName: "file.html"))
    var htmlReport: String?

    @Option(help: ArgumentHelp(
        "Work on part I of N (1-based): the inputs whose name hashes to I, so N jobs running the same command "
            + "cover every input exactly once.", valueName: "I/N"))
    var shard: String?

    @Flag(help: "No progress line, even on a terminal.")
    var noProgress = false

    func validate() throws {
        if inputs.isEmpty && lists.isEmpty {
            throw ValidationError("name at least one .ipa file or folder, or a list of them with --from")
        }
        if let jobs, !(1...1024).contains(jobs) {
            throw ValidationError("--jobs expects a number from 1 to 1024, got \(jobs)")
        }
        if jsonLines, let reportFormat {
            throw ValidationError("--json-lines and --report-format \(reportFormat.rawValue) ask for different outputs; give one")
        }
        if lists.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("--from - (standard input) can be given only once")
        }
        if let shard {
            do {
                _ = try Shard(parsing: shard)
            } catch {
                throw ValidationError(error.description)
            }
        }
    }

    var parsedShard: Shard? {
        shard.flatMap { try? Shard(parsing: $0) }
    }
}

/// What `batch --report-format` can ask for: one document for the whole batch.
enum BatchDocumentFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case sarif, junit
}

/// The options `batch inspect` and `batch check` share, and how they run: the same report for
/// each input, judged by `operation`.
struct BatchReportOptions: ParsableArguments {
    @OptionGroup var batch: BatchOptions

    @Flag(help: "Also compute the SHA-256 of each whole file (reads every byte).")
    var sha256 = false

    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var limits: ArchiveLimitOptions

    func run(_ operation: BatchJob.Operation) throws {
        let (options, data) = try reportingErrors { (try checks.checkOptions(sha256: sha256), try checks.toolData().checks) }
        try BatchSession(options: batch, evaluationDate: options.evaluationDate) { outDir, icons in
            BatchJob(operation: operation, checks: options, data: data, limits: limits.limits, outputDirectory: outDir,
                     collectIcons: icons, tool: ToolInfo.tool)
        }.run()
    }
}

struct BatchInspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Inspect many IPAs: one result per input; an input fails only if it cannot be read (65, 74).")

    @OptionGroup var options: BatchReportOptions

    func run() throws {
        try options.run(.inspect)
    }
}

struct BatchCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check many IPAs as a gate: an input with an error finding fails, and so does the batch (exit 1).")

    @OptionGroup var options: BatchReportOptions

    func run() throws {
        try options.run(.check)
    }
}

struct BatchWrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrap",
        abstract: "Wrap many IPAs into --out-dir: each as `ipawrap wrap` would, under the input's name.",
        discussion: """
            An input with an error finding is not written and fails (exit 1 for it). With --format mdx \
            the output is named after the input with .mdx instead of .ipa.
            """)

    @OptionGroup var batch: BatchOptions

    @OptionGroup var wrap: WrapOptionGroup
    @OptionGroup var checks: CheckOptionGroup
    @OptionGroup var templates: TemplateOptions
    @OptionGroup var limits: ArchiveLimitOptions

    func validate() throws {
        if batch.outDir == nil {
            throw ValidationError("batch wrap needs --out-dir DIR for the wrapped apps")
        }
    }

    func run() throws {
        let request = try reportingErrors {
            try BatchJob.prepareWrap(
                wrap.request(input: "", output: "", checks: checks, templates: templates, limits: limits))
        }
        try BatchSession(options: batch, evaluationDate: request.checks.evaluationDate) { outDir, icons in
            BatchJob.wrap(request, outputDirectory: outDir ?? ".", collectIcons: icons, tool: ToolInfo.tool)
        }.run()
    }
}

// MARK: - Running a batch

/// Gathers the inputs, runs the job over them and reports: result lines (or JSON lines) on stdout
/// in input order, a progress line on a terminal, the summary, the HTML page, the exit code.
struct BatchSession {
    let options: BatchOptions
    let evaluationDate: Date?
    let makeJob: (_ outputDirectory: String?, _ collectIcons: Bool) -> BatchJob

    init(options: BatchOptions, evaluationDate: Date?, makeJob: @escaping (String?, Bool) -> BatchJob) {
        self.options = options
        self.evaluationDate = evaluationDate
        self.makeJob = makeJob
    }

    func run() throws {
        let code = try reportingErrors { try execute() }
        if code != 0 { throw ExitCode(code) }
    }

    private func execute() throws -> Int32 {
        let job = makeJob(options.outDir, options.htmlReport != nil)
        var arguments = options.inputs
        for list in options.lists {
            arguments += try InputDiscovery.paths(inListFile: list)
        }
        let all = try InputDiscovery.inputs(arguments, excluding: options.outDir.map { [$0] } ?? [])
        guard !all.isEmpty else {
            throw BatchInputError.noInputs(searched: arguments.filter(InputDiscovery.isFolder))
        }
        if let report = options.htmlReport {
            try OutputDestination.check(report, inputs: all.map(\.path) + options.lists)
        }
        let shard = options.parsedShard
        let inputs = shard?.select(all) ?? all
        try checkOutputs(of: inputs, job: job)
        if let outDir = options.outDir {
            do {
                try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            } catch {
                throw OutputError(path: outDir, reason: "cannot create the output folder (\((error as NSError).localizedDescription))")
            }
        }
        // Opened now, so a report that cannot be written stops the batch before it starts.
        let reportFile = try options.htmlReport.map { try AtomicOutputFile(destination: $0) }

        let jobs = min(options.jobs ?? ProcessInfo.processInfo.activeProcessorCount, max(1, inputs.count))
        let console = BatchConsole(
            inputs: inputs, total: all.count, shard: shard, jobs: jobs, job: job, jsonLines: options.jsonLines,
            document: options.reportFormat, progress: !options.noProgress && isatty(STDERR_FILENO) == 1, reportFile: reportFile,
            evaluationDate: evaluationDate)
        if inputs.isEmpty {
            return try console.finishEmptyShard()
        }
        return try console.run()
    }

    /// Refuses, before anything is written, two inputs with the same output and an output that
    /// would replace its input.
    private func checkOutputs(of inputs: [BatchInput], job: BatchJob) throws {
        var owners: [String: BatchInput] = [:]
        for input in inputs {
            guard let output = job.outputPath(for: input) else { continue }
            if let first = owners[output] {
                throw BatchInputError.outputCollision(output: output, first: first.path, second: input.path)
            }
            owners[output] = input
            var outputInfo = stat()
            var inputInfo = stat()
            if stat(output, &outputInfo) == 0, stat(input.path, &inputInfo) == 0,
               outputInfo.st_dev == inputInfo.st_dev, outputInfo.st_ino == inputInfo.st_ino {
                throw BatchInputError.outputIsInput(output: output)
            }
        }
    }
}

/// Everything a running batch prints, and its interruption. All of it runs under the runner's
/// event lock (events, the progress timer, the signal handler), so lines never interleave.
final class BatchConsole: @unchecked Sendable {
    typealias Done = (result: BatchResult, line: [UInt8])

    private let inputs: [BatchInput]
    private let allCount: Int
    private let shard: Shard?
    private let jobs: Int
    private let job: BatchJob
    private let jsonLines: Bool
    /// One SARIF or JUnit document on stdout at the end, instead of a line per input.
    private let document: BatchDocumentFormat?
    private let progressEnabled: Bool
    private let reportFile: AtomicOutputFile?
    private let evaluationDate: Date?
    private let runner: BatchRunner<Done>
    private let style = Style.standardOutput
    private let progressStyle = Style(
        enabled: isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true)
    private let start = DispatchTime.now()

    private var delivery = OrderedDelivery<Done>()
    private var summary: BatchSummary
    private var progress: ProgressLine
    private var running: [Int: BatchInput] = [:]
    /// Results kept for the HTML report (only when one is asked for).
    private var kept: [Int: BatchResult] = [:]
    private var progressShown = false
    /// Set once the summary is out (at the end, or on an interrupt): nothing is drawn after it.
    private var closed = false
    /// The signal that interrupted the batch, set before the runner is cancelled, so that whichever
    /// of the handler and the main thread ends the batch ends it as interrupted.
    private var interruption: Int32?

    init(
        inputs: [BatchInput], total: Int, shard: Shard?, jobs: Int, job: BatchJob, jsonLines: Bool,
        document: BatchDocumentFormat?, progress: Bool, reportFile: AtomicOutputFile?, evaluationDate: Date?
    ) {
        self.inputs = inputs
        self.allCount = total
        self.shard = shard
        self.jobs = jobs
        self.job = job
        self.jsonLines = jsonLines
        self.document = document
        self.progressEnabled = progress
        self.reportFile = reportFile
        self.evaluationDate = evaluationDate
        self.runner = BatchRunner(inputs: inputs, jobs: jobs)
        self.summary = BatchSummary(total: inputs.count)
        self.progress = ProgressLine(total: inputs.count)
    }

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    func run() throws -> Int32 {
        announce()
        // Signals are taken from the default action only now, with everything they need in place.
        let handlers = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in interrupt(signal: number) }
            source.resume()
            return source
        }
        // Redraws the rate and ETA between events. (A dispatch source must be resumed before it is
        // released, so it exists only when it runs.)
        var timer: DispatchSourceTimer?
        if progressEnabled {
            let source = DispatchSource.makeTimerSource(queue: .global())
            source.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            source.setEventHandler { [self] in runner.withEventsPaused { drawProgress() } }
            source.resume()
            timer = source
        }

        let job = self.job
        let jsonLines = self.jsonLines
        runner.run({ input in
            let result = job.run(input)
            return (result, jsonLines ? Self.jsonLine(result) : [])
        }, events: { [self] event in handle(event) })

        timer?.cancel()
        handlers.forEach { $0.cancel() }
        return try runner.withEventsPaused {
            // Cancelled by a signal whose handler has not ended the batch yet: end it here.
            endInterrupted()
            clearProgress()
            closed = true
            for done in delivery.drain() { emit(done) }
            try finishReport(interrupted: false)
            printDocument()
            printSummary(interrupted: false)
            return summary.exitCode
        }
    }

    func finishEmptyShard() throws -> Int32 {
        try finishReport(interrupted: false)
        printDocument()
        Terminal.standardError("ipawrap: shard \(shard?.description ?? "?") has none of the \(allCount) inputs; nothing to do")
        return 0
    }

    private func announce() {
        guard progressEnabled || !(jsonLines || document != nil) else { return }
        var text = "ipawrap batch \(job.commandName): \(inputs.count) input\(inputs.count == 1 ? "" : "s")"
        if let shard { text += " (shard \(shard) of \(allCount))" }
        text += ", \(jobs) job\(jobs == 1 ? "" : "s") at once"
        Terminal.standardError(text)
    }

    // MARK: Events (under the runner's lock)

    private func handle(_ event: BatchRunner<Done>.Event) {
        switch event {
        case .started(let index, let input):
            running[index] = input
            progress.running.append(input.name)
            drawProgress()
        case .finished(let index, let input, let done):
            running[index] = nil
            if let position = progress.running.firstIndex(of: input.name) { progress.running.remove(at: position) }
            summary.add(done.result)
            progress.finished = summary.finished
            progress.failed = summary.failed
            if reportFile != nil || document != nil { kept[index] = done.result }
            let released = delivery.add(done, at: index)
            if !released.isEmpty {
                clearProgress()
                released.forEach(emit)
            }
            drawProgress()
        }
    }

    /// Writes one input's line: its JSON record, or its text line.
    private func emit(_ done: Done) {
        if document != nil { return }
        if jsonLines {
            Self.write(STDOUT_FILENO, done.line)
        } else {
            Self.write(STDOUT_FILENO, Array((textLine(done.result) + "\n").utf8))
        }
    }

    /// `failed   65  Corrupt.ipa: error[ARCHIVE_NOT_ZIP] …; 0.01 s`
    private func textLine(_ result: BatchResult) -> String {
        let label = result.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        let coloured: String = switch result.status {
        case .ok: style.green(label)
        case .findings: style.yellow(label)
        case .failed: style.red(label)
        }
        var parts: [String] = []
        if let report = result.report {
            let app = report.app
            var about = app.name ?? app.path.split(separator: "/").last.map(String.init) ?? app.path
            if let version = app.version { about += " \(version)" + (app.build.map { " (\($0))" } ?? "") }
            if let id = app.bundleId { about += ", \(id)" }
            parts.append(about)
            let counted = [(result.errors, "error"), (result.warnings, "warning")].filter { $0.0 > 0 }
            if counted.isEmpty {
                parts.append("no findings")
            } else {
                let codes = Set(report.findings.filter { $0.severity != .info }.map(\.code)).sorted()
                parts.append(counted.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s")" }.joined(separator: ", ")
                    + " (" + codes.joined(separator: ", ") + ")")
            }
        }
        if let failure = result.failure {
            parts.append("error[\(failure.code)] \(failure.message)")
        } else if case .wrap = job.operation, result.output == nil, result.exitCode == 1 {
            parts.append("not wrapped")
        }
        // Everything after the coloured label comes from the input (names, messages): escaped.
        var rest = "\(result.input.name): " + parts.joined(separator: "; ") + "; " + String(format: "%.2f s", result.seconds)
        if let output = result.output { rest += " → \(output)" }
        return "\(coloured) \(String(result.exitCode).padding(toLength: 3, withPad: " ", startingAt: 0)) " + Terminal.oneLine(rest)
    }

    private func drawProgress() {
        guard progressEnabled, !closed else { return }
        let style = progressStyle
        let colour: ((String) -> String)? = style.enabled ? { style.red($0) } : nil
        let line = progress.render(elapsed: elapsed, width: Self.terminalWidth(), colour: colour)
        Self.write(STDERR_FILENO, Array(("\r" + line + "\u{1B}[K").utf8))
        progressShown = true
    }

    private func clearProgress() {
        guard progressShown else { return }
        Self.write(STDERR_FILENO, Array("\r\u{1B}[K".utf8))
        progressShown = false
    }

    private func printSummary(interrupted: Bool) {
        var line = summary.line(elapsed: elapsed, interrupted: interrupted)
        if let shard { line = "shard \(shard): " + line }
        if jsonLines || document != nil || interrupted {
            Terminal.standardError("ipawrap: " + line)
        } else {
            Self.write(STDOUT_FILENO, Array((line + "\n").utf8))
        }
    }

    private func finishReport(interrupted: Bool) throws {
        guard let reportFile else { return }
        let results = kept.sorted { $0.key < $1.key }.map(\.value)
        let page = HTMLReport(
            command: job.commandName, tool: ToolInfo.tool, evaluationDate: evaluationDate, shard: shard,
            interrupted: interrupted, summary: summary
        ).render(results)
        let bytes = Array(page.utf8)
        try reportFile.write(bytes, at: 0)
        try reportFile.commit(length: UInt64(bytes.count), synchronize: false)
        if !interrupted { Terminal.standardError("ipawrap: wrote the report \(reportFile.destination)") }
    }

    /// The SARIF or JUnit document of every finished input, in input order.
    private func printDocument() {
        guard let document else { return }
        let subjects = kept.sorted { $0.key < $1.key }.map { _, result in
            ReportSubject(
                path: result.input.path, name: result.input.name, report: result.report,
                failure: result.failure.map { ReportSubject.Failure(code: $0.code, message: $0.message) })
        }
        let text: String
        switch document {
        case .sarif:
            // Only a non-finite number could stop the encoder, and SARIF holds none.
            text = ((try? SARIFRendering.render(subjects, tool: ToolInfo.tool)) ?? "{}") + "\n"
        case .junit:
            text = JUnitRendering.render(subjects, command: job.commandName)
        }
        Self.write(STDOUT_FILENO, Array(text.utf8))
    }

    // MARK: Interruption

    /// Ctrl-C or SIGTERM: no new input starts; finished results are printed, unfinished outputs
    /// abandoned (unnamed files vanish with the process), the summary and the report of what
    /// finished are written, and the process exits 128 + signal.
    private func interrupt(signal number: Int32) {
        let first = runner.withEventsPaused {
            // Too late (the batch is done and its summary out), or already interrupted.
            guard !closed, interruption == nil else { return false }
            interruption = number
            return true
        }
        guard first else { return }
        runner.cancel()
        runner.withEventsPaused { endInterrupted() }
    }

    /// Under the event lock: when a signal interrupted the batch and its summary is not out yet,
    /// prints what finished and the interrupted summary, writes the report, and exits 128 + signal.
    private func endInterrupted() {
        guard !closed, let number = interruption else { return }
        clearProgress()
        closed = true
        for done in delivery.drain() { emit(done) }
        removeTemporaryFiles()
        do {
            try finishReport(interrupted: true)
        } catch {
            Terminal.error(code: (error as? OutputError)?.code ?? "OUTPUT_WRITE_FAILED", "\(error)")
        }
        printSummary(interrupted: true)
        // _exit, not exit: the jobs in flight are still running, and must not see atexit
        // handlers tear down what they use.
        _exit(128 + number)
    }

    /// On file systems without unnamed temporary files, an unfinished output is a hidden named
    /// file beside its destination (`.<name>.ipawrap-<pid>-<random>`): remove those of the
    /// inputs in flight.
    private func removeTemporaryFiles() {
        let prefixSuffix = ".ipawrap-\(getpid())-"
        for input in running.values {
            guard let output = job.outputPath(for: input) else { continue }
            let url = URL(fileURLWithPath: output)
            let prefix = "." + url.lastPathComponent + prefixSuffix
            let folder = url.deletingLastPathComponent().path
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
                unlink(folder + "/" + name)
            }
        }
    }

    // MARK: Output

    static func jsonLine(_ result: BatchResult) -> [UInt8] {
        if let line = try? BatchRecord(result).jsonLine() { return line }
        // Only a non-finite number could stop the encoder; keep the line without the report.
        var record = BatchRecord(result)
        record.report = nil
        record.seconds = 0
        return (try? record.jsonLine()) ?? Array("{}\n".utf8)
    }

    /// Writes all of `bytes` with as few `write` calls as the descriptor allows (one for a line
    /// on a pipe or terminal), so lines reach readers whole.
    static func write(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < buffer.count {
                let count = Foundation.write(descriptor, base + done, buffer.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                done += count
            }
        }
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
