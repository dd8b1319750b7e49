import CMS
import Foundation
import SwiftASN1
import Testing
import TestSupport

/// Hostile CMS: each ends in a `CMSError` with its code when parsing, or in typed problems when
/// verifying; none traps, and none takes long.
struct CMSHostileTests {
    static func code(_ bytes: [UInt8], padding: Bool = false) -> String? {
        do {
            _ = try CMSSignedData(berEncoded: bytes, allowsZeroPadding: padding)
            return nil
        } catch {
            return error.code
        }
    }

    static func built() throws -> (cms: [UInt8], content: [UInt8]) {
        let content = try CMSFixtures.content()
        return (try CMSFixtures.signature(TestIdentity(), content: content), content)
    }

    /// The SignedData fields of `built()`: version, digestAlgorithms, encapContentInfo,
    /// certificates [0], signerInfos.
    static func fields() throws -> [[UInt8]] {
        let fields = try CMSSurgery.signedDataFields(try built().cms)
        try #require(fields.count == 5)
        return fields
    }

    @Test func tenThousandCertificatesAreCountedNotParsed() throws {
        var fields = try Self.fields()
        // 10,000 minimal SEQUENCEs where certificates go: within the size limit, far past any chain.
        let fake: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x00]
        fields[3] = CMSSurgery.constructed(
            ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), Array(repeating: fake, count: 10_000))
        let start = Date()
        let cms = try CMSSignedData(berEncoded: CMSSurgery.contentInfo(fields))
        #expect(cms.certificates.count == 10_000)
        let result = cms.verify(content: try Self.built().content, at: CMSFixtures.now)
        #expect(result.problems.map(\.code) == [.tooManyCertificates])
        #expect(!result.isIntact)
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func tenThousandRealCertificatesAreTooLarge() throws {
        var fields = try Self.fields()
        let leaf = try SigningFixtures.certificateDER("distribution")
        fields[3] = CMSSurgery.constructed(
            ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), Array(repeating: leaf, count: 10_000))
        #expect(Self.code(try CMSSurgery.contentInfo(fields)) == "CMS_TOO_LARGE")
    }

    @Test func deepNestingIsRefused() throws {
        var fields = try Self.fields()
        var nested: [UInt8] = [0x05, 0x00]
        for _ in 0..<200 { nested = CMSSurgery.constructed(.sequence, [nested]) }
        fields[4] = CMSSurgery.constructed(.set, [nested])
        #expect(Self.code(try CMSSurgery.contentInfo(fields)) == "CMS_MALFORMED_ASN1")
    }

    @Test func lengthsPastTheEndAreTruncated() throws {
        let cms = try Self.built().cms
        // The outer SEQUENCE claims 1,000 more bytes than there are.
        try #require(cms[0] == 0x30 && cms[1] == 0x82)
        var longer = cms
        let claimed = (Int(cms[2]) << 8 | Int(cms[3])) + 1_000
        longer[2] = UInt8(claimed >> 8)
        longer[3] = UInt8(claimed & 0xFF)
        #expect(Self.code(longer) == "CMS_TRUNCATED")
        #expect(Self.code(longer, padding: true) == "CMS_TRUNCATED")
        // A nine-byte length and a 2^32 length.
        #expect(Self.code([0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9]) != nil)
        #expect(Self.code([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00], padding: true) != nil)
    }

    @Test func everyTruncationIsRefused() throws {
        let cms = try Self.built().cms
        var codes: [String: Int] = [:]
        for length in 0..<cms.count {
            codes[Self.code(Array(cms[0..<length]), padding: true) ?? "accepted", default: 0] += 1
        }
        #expect(codes["accepted"] == nil)
        #expect(Set(codes.keys).isSubset(of: ["CMS_EMPTY", "CMS_TRUNCATED", "CMS_MALFORMED_ASN1"]), "\(codes)")
    }

    @Test func aSignerPointingAtNoCertificate() throws {
        var fields = try Self.fields()
        // Only the WWDR and root certificates: the leaf the signer names is gone.
        let carried = try CMSSurgery.children(fields[3]).filter { $0 != (try? SigningFixtures.certificateDER("distribution")) }
        try #require(carried.count == 2)
        fields[3] = CMSSurgery.constructed(ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), carried)
        let result = try CMSSignedData(berEncoded: CMSSurgery.contentInfo(fields))
            .verify(content: try Self.built().content, at: CMSFixtures.now)
        #expect(result.problems.map(\.code) == [.certificateMissing])
        #expect(!result.isIntact)
    }

    @Test func aMissingIntermediateLeavesTheChainIncompleteButIntact() throws {
        var fields = try Self.fields()
        let wwdr = try Fixtures.bytes("signing/wwdr.cer")
        fields[3] = CMSSurgery.constructed(
            ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), try CMSSurgery.children(fields[3]).filter { $0 != wwdr })
        let result = try CMSSignedData(berEncoded: CMSSurgery.contentInfo(fields))
            .verify(content: try Self.built().content, at: CMSFixtures.now)
        #expect(result.problems.map(\.code) == [.chainIncomplete])
        #expect(result.isIntact)
        #expect(result.signers.first?.root == nil)
    }

    /// The signer's attributes, rebuilt with a change, in a new CMS.
    static func withAttributes(_ change: ([[UInt8]]) -> [[UInt8]]) throws -> [UInt8] {
        var fields = try fields()
        var signer = try CMSSurgery.children(try CMSSurgery.children(fields[4])[0])
        let attributes = try CMSSurgery.children(signer[3])
        signer[3] = CMSSurgery.constructed(ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific), change(attributes))
        fields[4] = CMSSurgery.constructed(.set, [CMSSurgery.constructed(.sequence, signer)])
        return try CMSSurgery.contentInfo(fields)
    }

    @Test func aRepeatedAttributeIsRefused() throws {
        let repeated = try Self.withAttributes { $0 + [$0[0]] }
        #expect(Self.code(repeated) == "CMS_ATTRIBUTE_INVALID")
        // Two values in one messageDigest attribute.
        let digest = CMSSurgery.constructed(.sequence, [
            [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04],
            CMSSurgery.constructed(.set, [[0x04, 0x01, 0x00], [0x04, 0x01, 0x01]]),
        ])
        let twoValues = try Self.withAttributes { attributes in
            attributes.filter { !$0.starts(with: [0x30, 0x2F, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04]) }
                + [digest]
        }
        #expect(Self.code(twoValues) == "CMS_ATTRIBUTE_INVALID")
    }

    @Test func aRemovedAttributeIsMissingAndBreaksTheSignature() throws {
        // Without messageDigest (the 0x30 0x2F attribute) the content is not bound, and the
        // signature no longer covers what is there.
        let cms = try Self.withAttributes { $0.filter { !$0.starts(with: [0x30, 0x2F]) } }
        let result = try CMSSignedData(berEncoded: cms).verify(content: try Self.built().content, at: CMSFixtures.now)
        #expect(result.problems.map(\.code) == [.attributeMissing, .signatureInvalid])
    }

    @Test func malformedSignerInfosAreTyped() throws {
        var fields = try Self.fields()
        for signer in [[0x02, 0x01, 0x01], CMSSurgery.constructed(.sequence, [[0x02, 0x01, 0x01]]),
                       CMSSurgery.constructed(.sequence, [[0x02, 0x01, 0x01], [0x04, 0x00]])] as [[UInt8]] {
            fields[4] = CMSSurgery.constructed(.set, [signer])
            #expect(Self.code(try CMSSurgery.contentInfo(fields)) == "CMS_SIGNER_INVALID")
        }
    }

    @Test func noSignerIsAProblemNotACrash() throws {
        var fields = try Self.fields()
        fields[4] = CMSSurgery.constructed(.set, [])
        let result = try CMSSignedData(berEncoded: CMSSurgery.contentInfo(fields)).verify(content: [], at: CMSFixtures.now)
        #expect(result.problems.map(\.code) == [.noSigner])
    }

    /// Seeded random byte changes of a built signature: each parses and verifies to typed
    /// problems, or is refused with a CMS code; none traps.
    @Test func randomMutationsNeverCrash() throws {
        let (original, content) = try Self.built()
        var random = SplitMix64(seed: 0x5EED)
        var outcomes: [String: Int] = [:]
        for _ in 0..<1_500 {
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[index] ^= 0x80
                default: bytes.remove(at: index)
                }
            }
            do {
                let result = try CMSSignedData(berEncoded: bytes).verify(content: content, at: CMSFixtures.now)
                outcomes[result.isIntact ? "intact" : "broken", default: 0] += 1
            } catch {
                outcomes[error.code, default: 0] += 1
            }
        }
        #expect(outcomes.keys.allSatisfy { ["intact", "broken"].contains($0) || $0.hasPrefix("CMS_") }, "\(outcomes)")
        #expect((outcomes["broken"] ?? 0) > 0, "\(outcomes)")
    }
}
