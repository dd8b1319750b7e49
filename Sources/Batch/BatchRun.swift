import Checks
import Crypto
import Foundation
import PropertyList
import Reporting
import Signing
import SigningIdentity
import Wrapping
import Zip

/// One run of a batch as every JSON line states it: the command, the tool, the options that
/// shape an input's result, which inputs the batch found and which shard this run took. Shards
/// of one run agree on all of it but the shard; `batch report` checks that before it merges them.
public struct BatchRun: Codable, Sendable, Equatable {
    /// `inspect`, `check`, `wrap` or `sign`.
    public var command: String
    public var tool: Report.Tool
    /// `--at`: the moment profile expiry is judged at (nil: when each input is checked).
    @ExplicitNull public var evaluationDate: Date?
    /// Every other option that shapes an input's result or output, by its command-line name, with
    /// its values as given (`--profile`, `--set`: repeatable, in order) or as resolved (the toolkit
    /// version, the limits; the identity as its certificate's SHA-1 fingerprint).
    public var options: [String: [String]]
    /// Inputs the batch found, before `--shard` chose some.
    public var inputs: Int
    /// SHA-256 (hex) of their names in order, each followed by a newline: the shards of one run
    /// searched the same inputs.
    public var inputsDigest: String
    /// `--shard I/N`; nil when the run took every input.
    @ExplicitNull public var shard: Shard?
    /// Inputs this run took (all of them without `--shard`).
    public var shardInputs: Int

    public init(
        command: String, tool: Report.Tool, evaluationDate: Date?, options: [String: [String]], inputs: [BatchInput],
        shard: Shard?, shardInputs: Int
    ) {
        self.command = command
        self.tool = tool
        self.evaluationDate = evaluationDate
        self.options = options
        self.inputs = inputs.count
        var hasher = SHA256()
        for input in inputs { hasher.update(data: Array((input.name + "\n").utf8)) }
        inputsDigest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        self.shard = shard
        self.shardInputs = shardInputs
    }

    /// The run as one unsharded run would state it.
    public var whole: BatchRun {
        var run = self
        run.shard = nil
        run.shardInputs = inputs
        return run
    }

    /// Whether the run signs (`batch sign`, `batch wrap --sign`): its results then carry the
    /// bundles as signed, and the HTML report shows them.
    public var signs: Bool { command == "sign" || options["--sign"] != nil }

    /// The first way `other` is not the same run (shards aside), as a phrase naming both values;
    /// nil when it is.
    public func difference(from other: BatchRun) -> String? {
        if command != other.command { return "batch \(command) and batch \(other.command)" }
        if tool != other.tool { return "\(tool.name) \(tool.version) and \(other.tool.name) \(other.tool.version)" }
        if evaluationDate != other.evaluationDate {
            return "--at " + [evaluationDate, other.evaluationDate].map { $0.map(ReportJSON.timestamp) ?? "(none)" }.joined(separator: " and ")
        }
        for name in Set(options.keys).union(other.options.keys).sorted() where options[name] != other.options[name] {
            let values = [options[name], other.options[name]].map { $0.map { $0.joined(separator: " ") } ?? "(none)" }
            return "\(name) \(values[0]) and \(values[1])"
        }
        if inputs != other.inputs || inputsDigest != other.inputsDigest {
            return "\(inputs) and \(other.inputs) inputs" + (inputs == other.inputs ? " of other names" : "")
        }
        if shard?.count != other.shard?.count {
            return [shard, other.shard].map { $0.map { "--shard \($0)" } ?? "no --shard" }.joined(separator: " and ")
        }
        return nil
    }
}

extension BatchJob {
    /// The options of `BatchRun.options`: what this job does to each input besides the input.
    public var runOptions: [String: [String]] {
        var options: [String: [String]] = [:]
        func set(_ name: String, _ value: String?) {
            if let value { options[name, default: []].append(value) }
        }
        let profiles = checks.profiles
        set("--profile", profiles.app?.path)
        for (identifier, loaded) in profiles.byBundleID.sorted(by: { $0.key < $1.key }) {
            set("--profile", identifier + "=" + loaded.path)
        }
        set("--profiles-dir", profiles.directory)
        if checks.allowWildcard { set("--allow-wildcard", "true") }
        if checks.computeSHA256 { set("--sha256", "true") }
        if case .check = operation { set("--for", checks.purpose.rawValue) }
        for device in checks.install.devices { set("--device", device) }
        set("--os", checks.install.osVersion?.description)
        set("--toolkit-version", toolData.toolkitVersion.text)
        set("--max-entries", String(limits.maximumEntries))
        set("--max-total-size", String(limits.maximumTotalUncompressedSize))
        set("--max-ratio", String(limits.maximumExpansionRatio))
        set("--max-memory", String(limits.maximumMemory))
        set("--time-limit", String(limits.maximumSeconds))
        set("--out-dir", outputDirectory)
        switch operation {
        case .inspect, .check:
            break
        case .wrap(let request):
            set("--template", request.policyFile == nil ? request.template ?? WrapRequest.defaultTemplate : nil)
            set("--policy", request.policyFile)
            for override in request.overrides { set("--set", override.name + "=" + override.value) }
            set("--mode", request.mode?.rawValue)
            set("--format", request.format.rawValue)
            if request.rewrap { set("--rewrap", "true") }
            set("--timestamp", Self.describe(request.repack.timestamp))
            if let signing = request.signing {
                set("--sign", "true")
                Self.addSigning(signing, to: &options)
            }
        case .sign(let signing, let repack):
            set("--timestamp", Self.describe(repack.timestamp))
            Self.addSigning(signing, to: &options)
        }
        return options
    }

    private static func describe(_ timestamp: NewEntryTimestamp) -> String {
        switch timestamp {
        case .latestInArchive: "latest"
        case .secondsSince1970(let seconds): String(seconds)
        }
    }

    /// The identity by its certificate (a path to a .p12 says nothing of what is in it), the
    /// signing time, and each entitlements override by the SHA-256 of its XML.
    private static func addSigning(_ signing: SigningRequest, to options: inout [String: [String]]) {
        options["--identity"] = ["SHA-1 " + signing.identity.sha1Fingerprint]
        options["--signing-time"] = [String(Int64(signing.signingTime.timeIntervalSince1970.rounded(.down)))]
        let overrides = signing.entitlements.sorted { $0.key < $1.key }.map { identifier, dictionary in
            let xml = (try? PropertyList(root: .dictionary(dictionary), format: .xml).xmlData()) ?? []
            return identifier + "=" + SHA256.hash(data: xml).map { String(format: "%02x", $0) }.joined()
        }
        if !overrides.isEmpty { options["--entitlements"] = overrides }
    }
}

extension Shard: Codable {
    /// As `--shard` takes it: `I/N`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Shard(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a shard I/N: \(text)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
