import AppBundle
import CMS
import CodeSignature
import FormatSupport
import Foundation
import MachO
import Reporting
import Zip

/// What a bundle's signature says about itself, read without hashing anything (for `inspect`):
/// signed or not, ad hoc, cdhash, team, hash types and the signing certificate, as the report's
/// `SignatureFacts` (what `verify` judges in full, per bundle, is its `BundleSignature`, which holds
/// the same facts). The certificate's common name is left out, as the report does not write it.
public enum SignatureSummary {
    /// One slice's embedded signature as read once for every reader of it (the summary, the
    /// entitlement check): the signature, or why it was not read.
    public struct SliceSignature {
        public let slice: MachOSlice
        public let signature: Result<EmbeddedSignature, any Error>
        /// Not read: the input's memory limit would not admit it.
        public let overMemoryLimit: Bool

        init(slice: MachOSlice, signature: Result<EmbeddedSignature, any Error>, overMemoryLimit: Bool = false) {
            self.slice = slice
            self.signature = signature
            self.overMemoryLimit = overMemoryLimit
        }
    }

    /// The slices' signatures of one executable, each read (its size reserved from the input's
    /// memory limit first) when a reader first asks for it, and kept while this lives: readers
    /// that stop at different slices read no slice twice and none that no reader needs.
    public final class Slices {
        public let file: MachOFile
        private var source: ArchiveEntrySource
        private let path: String
        private let zip: ZipArchive
        private var read: [Int: SliceSignature?] = [:]

        public init(file: MachOFile, path: String, entry: ArchiveEntry, in zip: ZipArchive) {
            self.file = file
            self.source = zip.byteSource(for: entry)
            self.path = path
            self.zip = zip
        }

        /// Slice `index`'s signature; nil when the slice has none.
        public func signature(at index: Int) -> SliceSignature? {
            if let known = read[index] { return known }
            let result = readSignature(at: index)
            read[index] = result
            return result
        }

        private func readSignature(at index: Int) -> SliceSignature? {
            guard file.slices.indices.contains(index) else { return nil }
            let slice = file.slices[index]
            guard let range = slice.codeSignatureRange else { return nil }
            do {
                try zip.reserveMemory(UInt64(range.size), for: "the code signature of '\(path)'")
            } catch {
                return SliceSignature(slice: slice, signature: .failure(error), overMemoryLimit: true)
            }
            do {
                guard let signature = try slice.readCodeSignature(from: &source) else { return nil }
                return SliceSignature(slice: slice, signature: .success(signature))
            } catch {
                return SliceSignature(slice: slice, signature: .failure(error))
            }
        }
    }

    /// The summary of an executable's signatures: the first readable one with a CodeDirectory,
    /// slice by slice; unsigned when none is, or when the memory limit stops the reading first.
    public static func summarize(_ slices: Slices) -> SignatureFacts {
        var summary = SignatureFacts.unsigned
        for index in slices.file.slices.indices {
            guard let read = slices.signature(at: index) else { continue }
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
                summary.certificate = SigningCertificate(
                    subject: leaf.subject.description, commonName: nil, notValidAfter: leaf.notValidAfter)
            }
            return summary
        }
        return summary
    }
}
