import AppBundle
import Checks
import FormatSupport
import Foundation
import OutputFiles
import Policy
import Reporting
import Signing
import ToolData
import Wrapping
import Zip

/// What a batch does to each input: the work of `inspect`, `check`, `wrap` or `sign` on one file, with
/// the same options, turned into a `BatchResult` whatever happens. Each run opens its own
/// archive, so runs on different threads share nothing.
public struct BatchJob: Sendable {
    public enum Operation: Sendable {
        /// `ipawrap inspect`: a report whatever the findings (exit 0).
        case inspect
        /// `ipawrap check`: exit 1 on any error finding.
        case check
        /// `ipawrap wrap`, with this request for every input (its `input` and `output` are
        /// replaced by each input and its file in the output folder).
        case wrap(WrapRequest)
        /// `ipawrap sign`: every input signed with this identity (read once) and the job's
        /// profiles (`checks.profiles`, loaded once), into the output folder.
        case sign(SigningRequest, repack: RepackOptions)
    }

    public var operation: Operation
    public var checks: CheckOptions
    /// The SDK catalog and toolkit version, resolved once for every input.
    public var toolData: ToolData
    public var limits: ArchiveLimits
    /// Where outputs go (`--out-dir`): the wrapped apps, or for `inspect` and `check` one JSON
    /// report per input. Names follow `BatchInput.name`, so subfolders of a folder argument are
    /// kept.
    public var outputDirectory: String?
    /// Whether to keep a small PNG of each app's icon (for the HTML report).
    public var collectIcons: Bool
    public var tool: Report.Tool

    public init(
        operation: Operation, checks: CheckOptions = CheckOptions(), toolData: ToolData, limits: ArchiveLimits = .default,
        outputDirectory: String? = nil, collectIcons: Bool = false, tool: Report.Tool
    ) {
        self.operation = operation
        self.checks = checks
        self.toolData = toolData
        self.limits = limits
        self.outputDirectory = outputDirectory
        self.collectIcons = collectIcons
        self.tool = tool
    }

    /// A `wrap` job: checks and limits come from the request.
    public static func wrap(_ request: WrapRequest, outputDirectory: String, collectIcons: Bool = false, tool: Report.Tool) -> BatchJob {
        BatchJob(
            operation: .wrap(request), checks: request.checks, toolData: request.toolData, limits: request.limits, outputDirectory: outputDirectory,
            collectIcons: collectIcons, tool: tool)
    }

    /// The command's name, for messages.
    public var commandName: String {
        switch operation {
        case .inspect: "inspect"
        case .check: "check"
        case .wrap: "wrap"
        case .sign: "sign"
        }
    }

    /// Whether each input is signed (`sign`, `wrap --sign`).
    public var signs: Bool {
        switch operation {
        case .inspect, .check: false
        case .wrap(let request): request.signing != nil
        case .sign: true
        }
    }

    /// Where the output for `input` goes, if this job writes one.
    public func outputPath(for input: BatchInput) -> String? {
        guard let outputDirectory else { return nil }
        let name: String
        switch operation {
        case .inspect, .check:
            name = input.stem + ".json"
        case .wrap(let request):
            name = request.format == .mdx ? input.stem + ".mdx" : input.name
        case .sign:
            name = input.name
        }
        return InputDiscovery.join(outputDirectory, name)
    }

    /// Processes one input; never throws: every failure is the input's result.
    public func run(_ input: BatchInput) -> BatchResult {
        let start = DispatchTime.now()
        func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
        let output = outputPath(for: input)
        // The report once made, for an error that comes after it (`report`), and for the end.
        var report: Report?
        let made: Report
        var written: String?
        var icon: [UInt8]?
        var signed: [Report.Bundle]?
        do {
            switch operation {
            case .inspect, .check:
                let inspection = try Inspector.inspect(path: input.path, options: checks, toolData: toolData, limits: limits, tool: tool)
                made = inspection.report
                report = made
                if collectIcons { icon = Self.thumbnail(inspection.archive, inspection.icon) }
                if let output {
                    try Self.createParent(of: output)
                    try Self.writeAtomically(try Self.prettyJSON(inspection.report), to: output)
                    written = output
                }
            case .wrap(var request):
                guard let output else { throw OutputError(path: input.path, reason: "wrap needs an output folder") }
                try Self.createParent(of: output)
                request.input = input.path
                request.output = output
                let outcome = try Wrapper.wrap(request, tool: tool)
                made = outcome.report
                report = made
                signed = outcome.signedBundles
                if outcome.written { written = output }
                if collectIcons { icon = thumbnail(of: input) }
            case .sign(let signing, let repack):
                guard let output else { throw OutputError(path: input.path, reason: "sign needs an output folder") }
                try Self.createParent(of: output)
                let outcome = try Resigner.sign(
                    input: input.path, output: output, checks: checks, toolData: toolData, limits: limits, repack: repack,
                    signing: signing, tool: tool)
                made = outcome.report
                report = made
                signed = outcome.signedBundles
                if outcome.written { written = output }
                if collectIcons { icon = thumbnail(of: input) }
            }
        } catch {
            let (code, failure) = BatchResult.failure(from: error)
            // A report made before the failure (its JSON file could not be written) still says
            // what was found.
            return BatchResult(
                input: input, exitCode: code, outcome: InputOutcome(stoppedBy: failure, after: report),
                output: nil, seconds: seconds(), iconThumbnail: icon, signedBundles: nil)
        }
        let exitCode: Int32
        switch operation {
        case .inspect: exitCode = ExitStatus.success
        case .check: exitCode = made.hasErrors ? ExitStatus.findings : ExitStatus.success
        case .wrap, .sign: exitCode = written == nil ? ExitStatus.findings : ExitStatus.success
        }
        return BatchResult(
            input: input, exitCode: exitCode, outcome: .report(made), output: written, seconds: seconds(),
            iconThumbnail: icon, signedBundles: written == nil ? nil : signed)
    }

    /// The icon of an input the job wrote from (`wrap`, `sign`), read again from the input.
    private func thumbnail(of input: BatchInput) -> [UInt8]? {
        guard let archive = try? AppArchive(path: input.path, limits: limits) else { return nil }
        return Self.thumbnail(archive, archive.resolveIcon())
    }

    private static func thumbnail(_ archive: AppArchive, _ resolution: IconResolution) -> [UInt8]? {
        // The size is checked before decoding: a hostile icon must not cost a job hundreds of MB.
        guard let icon = resolution.icon, icon.width > 0, icon.height > 0, icon.width <= 4096, icon.height <= 4096,
              icon.width * icon.height <= IconThumbnail.maximumSourcePixels,
              let png = try? archive.iconPNG(icon) else { return nil }
        return try? IconThumbnail.png(from: png, clock: archive.archive.zip.workClock())
    }

    /// The report as `ipawrap inspect --json` prints it.
    static func prettyJSON(_ report: Report) throws -> [UInt8] {
        try ReportJSON.bytes(report)
    }

    /// Creates the folders an output in a subfolder of the output folder needs.
    static func createParent(of path: String) throws(OutputError) {
        guard let parent = FileSystem.parentFolder(of: path) else { return }
        do {
            try FileSystem.createFolders(parent)
        } catch {
            throw OutputError(path: path, reason: "cannot create its folder \(parent): \(error)")
        }
    }

    /// Writes a small file so that it appears complete or not at all.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(OutputError) {
        let file = try AtomicOutputFile(destination: path)
        defer { file.discard() }
        try file.write(bytes, at: 0)
        try file.commit(length: UInt64(bytes.count), synchronize: false)
    }
}

extension BatchJob {
    /// Checks once, before any input, what every input of a `wrap` batch would otherwise fail on
    /// alike (an unknown template, a malformed `--policy` file, a bad `--set`). The toolkit
    /// version and catalog are already resolved in the request's `ToolData`.
    public static func prepareWrap(_ request: WrapRequest) throws -> WrapRequest {
        _ = try request.loadPolicy()
        return request
    }
}
