import AppBundle
import Checks
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import Policy
import PropertyList
import Reporting
import Signing
import ToolData
import Zip

/// `ipawrap wrap`: runs every check of `check`; on any error finding writes nothing; otherwise
/// embeds the policy bundle and repacks with the raw-copy writer (every other entry byte for byte),
/// as an .ipa or inside an .mdx container.
public enum Wrapper {
    /// Which of the files `wrap` adds the app's seal covers, by the rules of its own
    /// CodeResources (`rules2`, else `rules`): "MDXPolicy.bundle/Info.plist and … are not sealed".
    /// Nil when the rules leave them all out; a seal that cannot be read is broken all the same.
    static func brokenSeal(of archive: AppArchive) -> WrappingDetail.SealChange? {
        let path = archive.app.path + "/_CodeSignature/CodeResources"
        let added = [PolicyBundle.folderName + "/Info.plist", PolicyBundle.folderName + "/" + PolicyBundle.policyFileName]
        guard let bytes = try? archive.read(path, maximumSize: 16 << 20), let resources = try? CodeResources(
            bytes: bytes, plistLimits: PropertyListLimits(clock: archive.archive.zip.workClock())),
            let rules = resources.rules2 ?? resources.rules, let ruleSet = try? ResourceRuleSet(rules),
            let decisions = try? ruleSet.decide(added.map { ResourceEntry(path: $0, kind: .file) }, mainExecutable: nil)
        else {
            return .unreadable
        }
        let sealed = decisions.filter { $0.outcome == .sealed || $0.outcome == .nested }.map(\.path)
        guard !sealed.isEmpty else { return nil }
        return .unsealed(paths: sealed, byRules2: resources.rules2 != nil)
    }

    public static func wrap(_ request: WrapRequest, tool: Report.Tool) throws -> WrapOutcome {
        // The policy first: a mistake in the request should not wait for the archive.
        let (template, templateName) = try request.loadPolicy()
        let mode = request.mode ?? template.mode

        let opened = try IPAArchive(path: request.input, limits: request.limits, folderPacking: .deflated)
        // The unchanged entries' copy runs in the kernel on the second core while the checks read
        // the app on this one. When signing, the entries move by the executable's new size: the
        // signer starts the copy once it knows that (`RepackForecast`).
        let early = request.format == .ipa
            ? EarlyCopy(opened.zip, destination: request.output, startingNow: request.signing == nil) : nil
        let inspection = try Inspector.inspect(
            opened, path: request.input, options: request.checks, toolData: request.toolData, tool: tool)
        var report = inspection.report
        let archive = inspection.archive
        let bundlePath = archive.app.path + "/" + PolicyBundle.folderName
        let alreadyWrapped = archive.entry(bundlePath) != nil || archive.archive.zip.isFolder(bundlePath)
        if alreadyWrapped && !request.rewrap {
            report.findings.append(Finding(
                .wrapping(.alreadyWrapped(appPath: archive.app.path, policyFolder: PolicyBundle.folderName)),
                at: .archive(bundlePath)))
        }
        if archive.app.isSigned, request.signing == nil, let broken = brokenSeal(of: archive) {
            report.findings.append(Finding(
                .wrapping(.signatureInvalidated(appPath: archive.app.path, policyFolder: PolicyBundle.folderName, seal: broken)),
                at: .archive(archive.app.path + "/_CodeSignature/CodeResources")))
        }
        if let requested = request.mode, requested != template.mode {
            report.findings.append(Finding(
                .wrapping(.policyModeDiffers(requested: requested, policyMode: template.mode, policyName: templateName))))
        }
        report.findings.sort(by: Finding.reportOrder)
        guard !report.hasErrors else {
            return WrapOutcome(report: report, written: false, policy: nil, outputSize: nil, signedBundles: nil)
        }

        let policy = try PolicyBundle(template: template, templateName: templateName, mode: mode, toolkitVersion: request.toolData.toolkitVersion)
        let toolName = "\(tool.name) \(tool.version)"
        var edits = ArchiveEdits(
            additions: [
                .init(name: bundlePath + "/" + PolicyBundle.policyFileName, content: .bytes(policy.policyXML)),
                .init(name: bundlePath + "/Info.plist", content: .bytes(try policy.infoPlist(tool: toolName))),
            ],
            removals: alreadyWrapped ? [bundlePath] : [])
        var signedBundles: [Report.Bundle]?
        if let signing = request.signing {
            let signed = try ArchiveSigner.sign(
                archive, profiles: Resigner.profiles(inspection.profileAssignments), applying: edits, request: signing,
                startingEarly: early, repack: request.repack)
            edits = signed.edits
            signedBundles = Resigner.reportBundles(signed, of: archive)
        }

        let size: UInt64
        switch request.format {
        case .ipa:
            size = try ArchiveWriter.repack(
                archive.archive.zip, to: request.output, edits: edits, options: request.repack, verifying: ArchiveWriter.verifyingIPA,
                continuing: early
            ).outputSize
        case .mdx:
            size = try MDXContainer.write(
                wrapping: archive, icon: inspection.icon, edits: edits, policy: policy, request: request)
        }
        return WrapOutcome(report: report, written: true, policy: policy, outputSize: size, signedBundles: signedBundles)
    }
}
