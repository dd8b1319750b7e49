import AppBundle
import Checks
import FormatSupport
import Foundation
import IPAArchive
import ProvisioningProfile
import Reporting
import Signing

/// `ipawrap sign`: every check of `check` gates the output; then every bundle is signed with the
/// identity and the profiles `check` assigns, in one archive write.
public enum Resigner {
    public struct Outcome: Sendable {
        public let report: Report
        public let written: Bool
        public let outputSize: UInt64?
    }

    public static func sign(
        input: String, output: String, checks: CheckOptions, data: CheckData, limits: ArchiveLimits = .default,
        repack: RepackOptions = RepackOptions(), signing: SigningRequest, tool: Report.Tool
    ) throws -> Outcome {
        // A folder is packed deflated: its entries are copied as they are into the output.
        let inspection = try Inspector.inspect(
            path: input, options: checks, data: data, limits: limits, folderPacking: .deflated, tool: tool)
        guard !inspection.report.hasErrors else {
            return Outcome(report: inspection.report, written: false, outputSize: nil)
        }
        let edits = try ArchiveSigner.edits(
            signing: inspection.archive, profiles: try profiles(inspection.profileAssignments), request: signing)
        let verifyIPA: ArchiveWriter.Verification = { path, limits in _ = try IPAArchive(path: path, limits: limits) }
        let summary = try ArchiveWriter.repack(
            inspection.archive.archive.zip, to: output, edits: edits, options: repack, verifying: verifyIPA)
        return Outcome(report: inspection.report, written: true, outputSize: summary.outputSize)
    }

    /// The profiles to sign with: a profile given on the command line (or found in a folder)
    /// becomes the bundle's `embedded.mobileprovision`; an embedded one stays.
    static func profiles(_ assignments: [ProfileAssignment]) throws -> [BundleProfile] {
        try assignments.map { assignment in
            var bytes: [UInt8]?
            if assignment.source != .embedded {
                do throws(FileReadError) {
                    bytes = try FileByteSource.wholeFile(assignment.file, limit: ProvisioningProfile.maximumSize)
                } catch {
                    throw WrapError.profileUnreadable(assignment.file, reason: error.reason)
                }
            }
            return BundleProfile(
                bundlePath: assignment.bundle.path, profile: assignment.profile, profileBytes: bytes, file: assignment.file)
        }
    }
}
