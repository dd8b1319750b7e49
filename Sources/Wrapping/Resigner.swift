import AppBundle
import Checks
import CodeSignature
import Foundation
import IPAArchive
import ProvisioningProfile
import Reporting
import Signing
import ToolData
import Zip

/// `ipawrap sign`: every check of `check` gates the output; then every bundle is signed with the
/// identity and the profiles `check` assigns, in one archive write.
public enum Resigner {
    public struct Outcome: Sendable {
        public let report: Report
        public let written: Bool
        public let outputSize: UInt64?
        /// The bundles as signed (nil when nothing was written).
        public let signedBundles: [Report.Bundle]?
    }

    public static func sign(
        input: String, output: String, checks: CheckOptions, toolData: ToolData, limits: ArchiveLimits = .default,
        repack: RepackOptions = RepackOptions(), signing: SigningRequest, tool: Report.Tool
    ) throws -> Outcome {
        // Signing judges what signing and installing need: the rules of wrapping are warnings.
        var checks = checks
        checks.purpose = .signing
        // A folder is packed deflated: its entries are copied as they are into the output.
        let inspection = try Inspector.inspect(
            path: input, options: checks, toolData: toolData, limits: limits, folderPacking: .deflated, tool: tool)
        guard !inspection.report.hasErrors else {
            return Outcome(report: inspection.report, written: false, outputSize: nil, signedBundles: nil)
        }
        let zip = inspection.archive.archive.zip
        // The entries after the main executable are copied to where they go while the resources are hashed.
        let early = EarlyCopy(zip, destination: output, startingNow: false)
        let signed = try ArchiveSigner.sign(
            inspection.archive, profiles: profiles(inspection.profileAssignments), request: signing, startingEarly: early,
            repack: repack)
        let summary = try ArchiveWriter.repack(
            zip, to: output, edits: signed.edits, options: repack, verifying: ArchiveWriter.verifyingIPA, continuing: early)
        return Outcome(
            report: inspection.report, written: true, outputSize: summary.outputSize,
            signedBundles: reportBundles(signed, of: inspection.archive))
    }

    /// The signed bundles as `inspect` would list them from the output: kind, bundle ID and
    /// version from the bundle model, the signature's facts from what was just signed.
    static func reportBundles(_ signed: SignedArchive, of archive: AppArchive) -> [Report.Bundle] {
        let bundles = Dictionary(archive.allBundles.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        return signed.bundles.compactMap { bundle in
            guard let info = bundles[bundle.path] else { return nil }
            return Report.Bundle(
                path: bundle.path, kind: info.kind, bundleId: info.bundleIdentifier, version: info.shortVersion,
                signature: SignatureFacts(
                    signed: true, adHoc: false, cdhash: bundle.cdhash.map { String(format: "%02x", $0) }.joined(),
                    teamId: signed.teamIdentifier, hashTypes: bundle.hashTypes.map(\.name),
                    certificate: SigningCertificate(
                        subject: signed.certificateSubject, commonName: nil, notValidAfter: signed.certificateExpiry)))
        }
    }

    /// The profiles to sign with, as `check` assigned them: a profile given on the command line
    /// (or found in a folder) becomes the bundle's `embedded.mobileprovision`, from the bytes that
    /// were checked; an embedded one stays.
    static func profiles(_ assignments: [ProfileAssignment]) -> [BundleProfile] {
        assignments.map { assignment in
            BundleProfile(
                bundlePath: assignment.bundle.path, profile: assignment.profile, profileBytes: assignment.bytes,
                file: assignment.file)
        }
    }
}
