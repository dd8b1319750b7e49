import ArgumentParser
import Batch
import Checks
import Foundation
import OutputFiles
import Reporting
import Zip

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Inspect, check, wrap or sign many IPAs at once, in parallel, each on its own; merge sharded results.",
        discussion: """
            INPUTS are .ipa files and folders, searched recursively for *.ipa (hidden files and the \
            --out-dir are skipped, symlinked folders not followed); --from adds paths from a list. Each \
            input is opened and processed on its own, at most --jobs at a time, and gets one result line \
            in input order: its status, the exit code the single-file command would give it, its error \
            and warning counts and its time. Status: ok (exit 0, no error or warning), findings (exit 0 \
            with warnings, or for inspect with errors), failed (non-zero: 1 for error findings in check, \
            wrap and sign, 65 bad input, 74 output not written).
            An input's name is its path relative to the folder it was found in (or its file name); \
            outputs in --out-dir are named after it, and --shard I/N takes the inputs for which \
            1 + (first 8 bytes of SHA-256 of the NFC name, big-endian) mod N is I; `batch report` merges \
            the shards' --json-lines into what one run prints.
            Folders are searched at most 32 levels deep, over at most 1,000,000 entries, within \
            --time-limit as a whole (each input then has its own --time-limit).
            Exit codes: 0 no input failed, 1 at least one input failed, 64 usage error (also: no inputs \
            found, two inputs with the same output), 65 the folders hold too many entries or take longer \
            than --time-limit to search, 74 the --report or --out-dir cannot be written, \
            130 interrupted by Ctrl-C (143 by SIGTERM): finished outputs stay, unfinished ones leave \
            nothing.
            """,
        subcommands: [
            BatchInspectCommand.self, BatchCheckCommand.self, BatchWrapCommand.self, BatchSignCommand.self, BatchReportCommand.self,
        ]
    )
}

/// Options of every batch command.
struct BatchOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("IPA files, and folders searched recursively for .ipa files.", valueName: "inputs"))
    var inputs: [String] = []

    @Option(name: .customLong("from"), help: ArgumentHelp(
        "A regular file listing inputs, one per line ('-' for standard input, e.g. a pipe); blank lines and lines starting with # are ignored.",
        valueName: "list"))
    var lists: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Inputs worked on at once (default: the number of cores).", valueName: "n"))
    var jobs: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Work on part I of N (1-based): the inputs whose name hashes to I, so N jobs running the same command "
                + "cover every input exactly once.", valueName: "I/N"),
        transform: { argument in
            do {
                return try Shard(parsing: argument)
            } catch {
                throw ValidationError("expects I/N with 1 <= I <= N (e.g. 2/4)")
            }
        })
    var shard: Shard?

    @OptionGroup(title: "Output") var output: BatchOutputOptions

    func validate() throws {
        if inputs.isEmpty && lists.isEmpty {
            throw ValidationError("name at least one .ipa file or folder, or a list of them with --from")
        }
        if let jobs, !(1...1024).contains(jobs) {
            throw ValidationError("--jobs expects a number from 1 to 1024, got \(jobs)")
        }
        if lists.filter({ $0 == "-" }).count > 1 {
            throw ValidationError("--from - (standard input) can be given only once")
        }
    }

    /// Runs `job` over the inputs, printing as the options ask, and exits with the batch's status
    /// (128 + the signal when one interrupted it).
    func run(_ job: BatchJob) throws {
        let progress = !output.noProgress && isatty(STDERR_FILENO) == 1
        let session = BatchSession(job: job, options: BatchSessionOptions(
            inputs: inputs, lists: lists, jobs: jobs, shard: shard, htmlReport: output.htmlReport,
            keepResults: output.reportFormat != nil, progress: progress))
        let console = BatchConsole(
            command: job.commandName, tool: job.tool, jsonLines: output.jsonLines, document: output.reportFormat, progress: progress)
        let outcome = try reportingErrors { try session.run(reportingTo: console) }
        switch outcome {
        case .finished(let status):
            if status != 0 { throw ExitCode(status) }
        case .interrupted:
            // _exit, not exit: the inputs in flight are still running, and must not see atexit
            // handlers tear down what they use. Everything printed went out with write(2).
            _exit(outcome.exitStatus)
        }
    }
}

/// Where a batch's outputs go and how its results are printed.
struct BatchOutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Write outputs here, named after each input (subfolders of a folder input are kept): the wrapped or signed apps, "
            + "or for inspect and check one JSON report per input (App.ipa → App.json).", valueName: "dir"))
    var outDir: String?

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

    @Flag(help: "No progress line, even on a terminal.")
    var noProgress = false

    /// Whether each result keeps a small icon: for the HTML report, and in the JSON lines, so that
    /// `batch report` can make the HTML report of sharded runs.
    var collectsIcons: Bool { htmlReport != nil || jsonLines }

    func validate() throws {
        if jsonLines, let reportFormat {
            throw ValidationError("--json-lines and --report-format \(reportFormat.rawValue) ask for different outputs; give one")
        }
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

    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run(_ operation: BatchJob.Operation, purpose: CheckPurpose = .wrapping) throws {
        let job = try reportingErrors {
            var options = try checks.checkOptions(sha256: sha256)
            options.purpose = purpose
            return BatchJob(
                operation: operation, checks: options, toolData: try checks.toolData(),
                limits: limits.limits, outputDirectory: batch.output.outDir, collectIcons: batch.output.collectsIcons, tool: ToolInfo.tool)
        }
        try batch.run(job)
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

    @Option(name: .customLong("for"), help: ArgumentHelp(
        "The command to judge for: wrap (every rule) or sign (the rules of wrapping become warnings).", valueName: "command"))
    var purpose: CheckPurpose = .wrapping

    func run() throws {
        try options.run(.check, purpose: purpose)
    }
}

struct BatchWrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wrap",
        abstract: "Wrap many IPAs into --out-dir: each as `ipawrap wrap` would, under the input's name.",
        discussion: """
            An input with an error finding is not written and fails (exit 1 for it). With --format mdx \
            the output is named after the input with .mdx instead of .ipa. With --sign each wrapped app is \
            signed as `ipawrap wrap --sign` signs it, with the identity and the profiles read once.
            """)

    @OptionGroup var batch: BatchOptions

    @Flag(help: "Re-sign each wrapped app (needs --identity or --certificate and --key) in the same archive write.")
    var sign = false

    @OptionGroup var wrap: WrapOptionGroup

    func validate() throws {
        if batch.output.outDir == nil {
            throw ValidationError("batch wrap needs --out-dir DIR for the wrapped apps")
        }
        try wrap.validate(sign: sign)
    }

    func run() throws {
        let request = try reportingErrors {
            // The identity is read and decoded here, once for every input.
            try BatchJob.prepareWrap(try wrap.request(input: "", output: "", sign: sign))
        }
        try batch.run(BatchJob.wrap(
            request, outputDirectory: batch.output.outDir ?? ".", collectIcons: batch.output.collectsIcons, tool: ToolInfo.tool))
    }
}

struct BatchSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign many IPAs into --out-dir: each as `ipawrap sign` would, under the input's name.",
        discussion: """
            The identity (and its password) and every profile of --profile and --profiles-dir are read and \
            decoded once, before any input; each app's bundles get their profiles as `ipawrap check --for \
            sign` assigns them. An input with an error finding (a bundle without a fitting profile: \
            PROFILE_MISSING) is not written and fails (exit 1 for it); the others are signed.
            """)

    @OptionGroup var batch: BatchOptions

    @OptionGroup(title: "Signing") var signing: SigningOptionGroup
    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    @Flag(help: "Flush each output to disk before it appears (durability across power loss).")
    var fsync = false

    func validate() throws {
        if batch.output.outDir == nil {
            throw ValidationError("batch sign needs --out-dir DIR for the signed apps")
        }
        try signing.validateSigningTime()
    }

    func run() throws {
        let job = try reportingErrors {
            let toolData = try checks.toolData()
            // Read and decoded here, once for every input.
            let request = try signing.request(templates: toolData.templates, timeLimit: limits.timeLimit)
            var options = try checks.checkOptions()
            options.purpose = .signing
            return BatchJob(
                operation: .sign(request, repack: RepackOptions(timestamp: .latestInArchive, synchronize: fsync)), checks: options,
                toolData: toolData, limits: limits.limits, outputDirectory: batch.output.outDir,
                collectIcons: batch.output.collectsIcons, tool: ToolInfo.tool)
        }
        try batch.run(job)
    }
}

struct BatchReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Merge the --json-lines of a batch's shards into what one unsharded run prints and writes.",
        discussion: """
            RESULTS are the JSON lines the shards of one batch command printed (--shard I/N --json-lines), \
            in any order; a shard with no input printed nothing and needs no file. The merge prints the \
            result lines and summary (or with --report-format the SARIF or JUnit document), writes the \
            --report page, and exits with the status the unsharded run would have. It refuses, before \
            printing anything, a line that is not a batch record (BATCH_REPORT_NOT_BATCH_OUTPUT), results \
            of different commands, options, tools or inputs (BATCH_REPORT_MIXED_RUNS), a shard given twice \
            (BATCH_REPORT_SHARD_TWICE), one cut short (BATCH_REPORT_SHARD_INCOMPLETE) or missing \
            (BATCH_REPORT_SHARD_MISSING), and files without results (BATCH_REPORT_NO_RESULTS).
            Exit codes: 0 no input failed, 1 at least one input failed, 64 usage error, 65 the files are \
            not the results of one run, 74 a file cannot be read or the --report cannot be written.
            """)

    @Argument(help: ArgumentHelp("The shards' --json-lines files.", valueName: "results.jsonl"))
    var results: [String] = []

    @Option(help: ArgumentHelp(
        "Print one document for all inputs instead of a line per input: sarif or junit.", valueName: "format"))
    var reportFormat: BatchDocumentFormat?

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write the self-contained HTML page of the whole run.", valueName: "file.html"))
    var htmlReport: String?

    func validate() throws {
        if results.isEmpty {
            throw ValidationError("name the --json-lines files of the batch's shards")
        }
    }

    func run() throws {
        let merged = try reportingErrors { () throws -> MergedBatch in
            if let htmlReport { try OutputDestination.check(htmlReport, inputs: results) }
            let merged = try MergedBatch.merge(files: results)
            if let htmlReport { try merged.writeHTML(to: htmlReport) }
            return merged
        }
        BatchConsole(command: merged.run.command, tool: merged.run.tool, jsonLines: false, document: reportFormat, progress: false)
            .printMerged(merged, reportWritten: htmlReport)
        let status = merged.summary.exitCode
        if status != 0 { throw ExitCode(status) }
    }
}
