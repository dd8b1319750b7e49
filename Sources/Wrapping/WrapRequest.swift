import Checks
import FormatSupport
import Foundation
import Policy
import Reporting
import Signing
import ToolData
import Zip

/// Everything `wrap` is asked to do.
public struct WrapRequest: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// The wrapped app as an .ipa.
        case ipa
        /// A Citrix .mdx container: the policy XML, the wrapped .ipa, the icon and metadata.
        case mdx
    }

    public var input: String
    public var output: String
    public var format: Format
    public var checks: CheckOptions
    public var limits: ArchiveLimits
    /// A template name from `Templates/policies/` (default `premium`), unless `policyFile` is set.
    public var template: String?
    /// A policy XML file to embed instead of a template.
    public var policyFile: String?
    /// `--set NAME=VALUE`, applied in order.
    public var overrides: [PolicyOverride]
    /// `--mode`; nil keeps the template's mode.
    public var mode: AppMode?
    /// Replace a policy bundle that is already there.
    public var rewrap: Bool
    /// The Templates folder, SDK catalog and toolkit version, resolved once by the caller.
    public var toolData: ToolData
    public var repack: RepackOptions
    /// `--sign`: re-sign every bundle in the same archive write.
    public var signing: SigningRequest?

    public init(
        input: String, output: String, format: Format = .ipa, checks: CheckOptions = CheckOptions(),
        limits: ArchiveLimits = .default, template: String? = nil, policyFile: String? = nil,
        overrides: [PolicyOverride] = [], mode: AppMode? = nil, rewrap: Bool = false,
        toolData: ToolData, repack: RepackOptions = RepackOptions(), signing: SigningRequest? = nil
    ) {
        self.signing = signing
        self.input = input
        self.output = output
        self.format = format
        self.checks = checks
        self.limits = limits
        self.template = template
        self.policyFile = policyFile
        self.overrides = overrides
        self.mode = mode
        self.rewrap = rewrap
        self.toolData = toolData
        self.repack = repack
    }

    /// The template used when neither `template` nor `policyFile` is given.
    public static let defaultTemplate = "premium"

    /// The template (or `--policy` file, validated) with the overrides applied, and its name:
    /// `wrap` and a batch's check before any input both load the policy here.
    public func loadPolicy() throws -> (template: PolicyTemplate, name: String) {
        var policy: PolicyTemplate
        let name: String
        if let file = policyFile {
            let bytes: [UInt8]
            do {
                bytes = try FileByteSource.wholeFile(file, limit: PolicyDocument.readLimit)
            } catch {
                throw WrapError(.policyFileUnreadable, "the policy file cannot be read: \(error.detail)", file: file)
            }
            let schema = try toolData.templates.loadSchema()
            policy = try inLocation(file) { try PolicyTemplate(bytes: bytes, schema: schema) }
            name = URL(fileURLWithPath: PathEncoding.replacingCarriedBytes(file)).lastPathComponent
        } else {
            name = template ?? WrapRequest.defaultTemplate
            policy = try toolData.templates.loadPolicyTemplate(named: name)
        }
        try policy.apply(overrides)
        return (policy, name)
    }
}

/// What `wrap` did.
public struct WrapOutcome: Sendable {
    /// The report, including the wrap's own findings.
    public let report: Report
    /// Whether an output was written (false when an error finding stopped the wrap).
    public let written: Bool
    public let policy: PolicyBundle?
    public let outputSize: UInt64?
    /// With `--sign`, the bundles as signed (nil when nothing was written or signed).
    public let signedBundles: [Report.Bundle]?
}
