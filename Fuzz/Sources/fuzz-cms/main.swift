// Fuzzes the CMS reader and verifier: `CMSSignedData(berEncoded:)` strict and with a code
// signature's zero padding allowed, each SignerInfo and its signed attributes, and
// `verify(content:at:)` (a detached signature against the input's first bytes). Checks that:
// - allowing padding never refuses what strict parsing reads;
// - a detached SignedData carries no content; signed attributes are unique and re-tagged SET;
// - verification answers with typed problems: no signer is exactly CMS_NO_SIGNER, and an intact
//   signer with signed attributes has the content's digest as its messageDigest.
// Every refusal is a `CMSError` by the reader's typed throws.
import CMS
import Foundation
import FuzzDriver

let date = Date(timeIntervalSince1970: 1_750_000_000)

func fuzzOne(_ bytes: [UInt8]) {
    let strict = try? CMSSignedData(berEncoded: bytes)
    guard let cms = try? CMSSignedData(berEncoded: bytes, allowsZeroPadding: true) else {
        precondition(strict == nil, "allowing zero padding refused what strict parsing read")
        return
    }
    precondition(!cms.isDetached || (cms.content.isEmpty && cms.contentChunkCount == 0), "detached with content")
    for signer in cms.signerInfos {
        guard let attributes = signer.signedAttributes else { continue }
        precondition(attributes.derEncoded.first == 0x31, "signed attributes not re-tagged as a SET")
        precondition(Set(attributes.attributes.map(\.type)).count == attributes.attributes.count, "a repeated attribute")
        if let hashes = attributes.cdHashes2 { _ = hashes.map(\.algorithm) }
    }
    let content = cms.isDetached ? Array(bytes.prefix(64)) : cms.content
    let result = cms.verify(content: content, at: date)
    if cms.signerInfos.isEmpty {
        precondition(result.problems.map(\.code) == [.noSigner], "no signer gave \(result.problems)")
    }
    for (signer, outcome) in zip(cms.signerInfos, result.signers) where outcome.isIntact {
        if let digest = signer.signedAttributes?.messageDigest, let algorithm = signer.digestAlgorithm {
            precondition(digest == algorithm.digest(content), "an intact signer whose messageDigest is not the content's")
        }
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
