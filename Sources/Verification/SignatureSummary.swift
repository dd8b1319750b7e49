import AppBundle
import CMS
import CodeSignature
import FormatSupport
import Foundation
import IPAArchive
import MachO
import Reporting

/// What a bundle's signature says about itself, read without hashing anything (for `inspect`):
/// signed or not, ad hoc, cdhash, team, hash types and the signing certificate, as the report's
/// `Report.Signature` (what `verify` judges in full, per bundle, is its `BundleSignature`).
public enum SignatureSummary {
    /// One slice's embedded signature as read once for every reader of it (the summary, the
    /// entitlement check): the signature, or why it was not read.
    public struct SliceSignature {
        public let slice: MachOSlice
        public let signature: Result<EmbeddedSignature, any Error>
        /// Not read: the input's memory limit would not admit it.
        public let overMemoryLimit: Bool

        public init(slice: MachOSlice, signature: Result<EmbeddedSignature, any Error>, overMemoryLimit: Bool = false) {
            self.slice = slice
            self.signature = signature
            self.overMemoryLimit = overMemoryLimit
        }
    }

    /// Reads the signature of each slice of `file` that has one (`LC_CODE_SIGNATURE`), in order,
    /// reserving its size from the input's memory limit first.
    public static func read(
        _ file: MachOFile, from source: inout ArchiveEntrySource, of path: String, in zip: ZipArchive
    ) -> [SliceSignature] {
        var signatures: [SliceSignature] = []
        for slice in file.slices {
            guard let range = slice.codeSignatureRange else { continue }
            do {
                try zip.reserveMemory(UInt64(range.size), for: "the code signature of '\(path)'")
            } catch {
                signatures.append(SliceSignature(slice: slice, signature: .failure(error), overMemoryLimit: true))
                continue
            }
            do {
                guard let signature = try slice.readCodeSignature(from: &source) else { continue }
                signatures.append(SliceSignature(slice: slice, signature: .success(signature)))
            } catch {
                signatures.append(SliceSignature(slice: slice, signature: .failure(error)))
            }
        }
        return signatures
    }

    /// The summary of an executable's signatures: the first readable one with a CodeDirectory;
    /// unsigned when none is, or when the memory limit stopped the reading first.
    public static func summarize(_ signatures: [SliceSignature]) -> Report.Signature {
        var summary = Report.Signature(
            signed: false, adHoc: false, cdhash: nil, teamId: nil, hashTypes: [], certificateSubject: nil, certificateExpiry: nil)
        for read in signatures {
            if read.overMemoryLimit { return summary }
            guard case .success(let signature) = read.signature, let primary = signature.codeDirectory else { continue }
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
