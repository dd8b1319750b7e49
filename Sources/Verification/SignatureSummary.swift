import AppBundle
import CMS
import CodeSignature
import FormatSupport
import Foundation
import MachO
import Reporting

/// What a bundle's signature says about itself, read without hashing anything (for `inspect`):
/// signed or not, ad hoc, cdhash, team, hash types and the signing certificate, as the report's
/// `Report.Signature` (what `verify` judges in full, per bundle, is its `BundleSignature`).
public enum SignatureSummary {
    /// The summary of `bundle`'s main executable (its first slice with a signature); `signed` is
    /// false when it has none. Nil when the bundle has no executable or it cannot be read as a Mach-O.
    public static func read(_ bundle: BundleInfo, in app: AppArchive) -> Report.Signature? {
        guard let path = bundle.executablePath, let entry = app.entry(path) else { return nil }
        var source = app.archive.zip.byteSource(for: entry)
        guard let file = try? MachOFile(reading: &source, clock: app.archive.zip.workClock()) else { return nil }
        var summary = Report.Signature(
            signed: false, adHoc: false, cdhash: nil, teamId: nil, hashTypes: [], certificateSubject: nil, certificateExpiry: nil)
        for slice in file.slices {
            if let range = slice.codeSignatureRange,
                (try? app.archive.zip.reserveMemory(UInt64(range.size), for: "the code signature of '\(path)'")) == nil
            {
                return summary
            }
            guard let signature = try? slice.readCodeSignature(from: &source), let primary = signature.codeDirectory else { continue }
            summary.signed = true
            summary.adHoc = signature.isAdHoc
            summary.teamId = primary.teamIdentifier
            summary.cdhash = primary.cdhash.map(Judgement.hex)
            summary.hashTypes = signature.codeDirectories.map(\.hashType.name)
            if signature.hasCMSSignature, let bytes = signature.cmsSignature,
                let signedData = try? CMSSignedData(berEncoded: bytes, allowsZeroPadding: true),
                let leaf = signedData.verify(content: primary.bytes, at: Date()).signers.first?.certificate
            {
                summary.certificateSubject = leaf.subject.description
                summary.certificateExpiry = leaf.notValidAfter
            }
            return summary
        }
        return summary
    }
}
