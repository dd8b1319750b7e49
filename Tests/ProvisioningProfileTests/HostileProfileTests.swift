import Foundation
import PropertyList
import ProvisioningProfile
import Testing
import TestSupport

/// Malformed and hostile profiles: each gives a `ProfileError` with its code, never a crash.
/// Most are built here with a small DER writer around a real property list (no signature is
/// needed: the decoder does not verify it), so they run without openssl.
struct HostileProfileTests {
    static func code(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ProvisioningProfile(bytes: bytes)
            return nil
        } catch {
            return error.code
        }
    }

    static func content() throws -> [UInt8] {
        try ProfileBuilder().contentBytes()
    }

    @Test func aHandBuiltSignedDataDecodes() throws {
        // The writer below is sound: with a real plist it gives a readable profile.
        let profile = try ProvisioningProfile(bytes: CMS.profile(content: Self.content()))
        #expect(profile.applicationIdentifier.rawValue == "ABCDE12345.com.example.sample")
        #expect(profile.signedData.signerCount == 0)
    }

    @Test func emptyFile() {
        #expect(Self.code([]) == "PROFILE_EMPTY")
    }

    @Test func oversizedFile() {
        #expect(Self.code([UInt8](repeating: 0x30, count: ProvisioningProfile.maximumSize + 1)) == "PROFILE_TOO_LARGE")
    }

    @Test func barePropertyListIsNamedAsSuch() throws {
        let bytes = try Self.content()
        do {
            _ = try ProvisioningProfile(bytes: bytes)
            Issue.record("an unsigned plist was accepted")
        } catch {
            #expect(error.code == "PROFILE_NOT_SIGNED_DATA")
            #expect(error.message.contains("property list"))
        }
        let binary = try PropertyList(root: .dictionary(ProfileBuilder().propertyList()), format: .binary).binaryData()
        #expect(Self.code(binary) == "PROFILE_NOT_SIGNED_DATA")
    }

    @Test func pemTextIsNamedAsSuch() throws {
        let pem = Array("-----BEGIN CMS-----\nMIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwGggCSA\n-----END CMS-----\n".utf8)
        do {
            _ = try ProvisioningProfile(bytes: pem)
            Issue.record("PEM was accepted")
        } catch {
            #expect(error.code == "PROFILE_NOT_SIGNED_DATA")
            #expect(error.message.contains("PEM"))
        }
    }

    @Test(arguments: [
        ("text", Array("this is not a provisioning profile at all".utf8)),
        ("zeros", [UInt8](repeating: 0, count: 64)),
        ("0xFF", [UInt8](repeating: 0xFF, count: 64)),
        ("huge length", [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x06]),
        ("nine-byte length", [0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        ("lone tag", [0x30]),
    ])
    func garbageIsRefused(_ name: String, _ bytes: [UInt8]) {
        let code = Self.code(bytes)
        #expect(code == "PROFILE_TRUNCATED" || code == "PROFILE_MALFORMED_ASN1" || code == "PROFILE_NOT_SIGNED_DATA", "\(name): \(code ?? "accepted")")
    }

    /// Every prefix of a real DER and a real BER profile: each is an error (mostly
    /// `PROFILE_TRUNCATED`), never a crash and never a success.
    @Test(arguments: [ProfileBuilder.Fixture.app, .berIndefinite])
    func everyTruncationIsRefused(_ fixture: ProfileBuilder.Fixture) throws {
        let bytes = try ProfileBuilder.fixture(fixture)
        var codes: [String: Int] = [:]
        for length in 0..<bytes.count {
            codes[Self.code(Array(bytes[0..<length])) ?? "accepted", default: 0] += 1
        }
        #expect(codes["accepted"] == nil)
        #expect(Set(codes.keys).isSubset(of: ["PROFILE_EMPTY", "PROFILE_TRUNCATED", "PROFILE_MALFORMED_ASN1"]), "\(codes)")
        #expect((codes["PROFILE_TRUNCATED"] ?? 0) > bytes.count / 2)
    }

    /// Seeded random byte mutations of real profiles (lengths, tags, content, certificates):
    /// each decodes or throws a `ProfileError`; none traps. The seed makes failures repeatable.
    @Test(arguments: [ProfileBuilder.Fixture.app, .berIndefinite, .wildcard])
    func randomMutationsNeverCrash(_ fixture: ProfileBuilder.Fixture) throws {
        let original = try ProfileBuilder.fixture(fixture)
        var random = SplitMix64(seed: UInt64(original.count))
        var outcomes: [String: Int] = [:]
        for _ in 0..<1_500 {
            var bytes = original
            let changes = 1 + Int(random.next() % 4)
            for _ in 0..<changes {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[index] ^= 0x80
                default: bytes.remove(at: index)
                }
            }
            outcomes[Self.code(bytes) ?? "decoded", default: 0] += 1
        }
        // Mutations in the certificates or the signature leave the profile readable; others do not.
        #expect(outcomes.count > 1, "\(outcomes)")
        #expect(outcomes.keys.allSatisfy { $0 == "decoded" || $0.hasPrefix("PROFILE_") }, "\(outcomes)")
    }

    @Test func bytesAfterTheEndAreRefused() throws {
        let bytes = try ProfileBuilder.fixture(.app) + [0x00, 0x00]
        #expect(Self.code(bytes) == "PROFILE_MALFORMED_ASN1")
    }

    @Test func otherContentTypesAreNotSignedData() throws {
        // envelopedData (…7.3) in the ContentInfo.
        #expect(Self.code(CMS.profile(content: try Self.content(), type: CMS.oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03]))) == "PROFILE_NOT_SIGNED_DATA")
        // A SEQUENCE that does not start with an OID.
        #expect(Self.code(tlv(0x30, [0x02, 0x01, 0x01])) == "PROFILE_NOT_SIGNED_DATA")
        // A SET at the top.
        #expect(Self.code(tlv(0x31, [0x02, 0x01, 0x01])) == "PROFILE_NOT_SIGNED_DATA")
        // Patching the real profile's content type the same way.
        var patched = try ProfileBuilder.fixture(.app)
        try #require(patched[4...14] == [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02])
        patched[14] = 0x06
        #expect(Self.code(patched) == "PROFILE_NOT_SIGNED_DATA")
    }

    @Test func malformedSignedDataStructures() throws {
        let content = try Self.content()
        let encapsulated = CMS.encapsulated(content)
        let cases: [(String, [UInt8])] = [
            ("no [0] content", tlv(0x30, CMS.signedDataOID)),
            ("[0] holds an INTEGER", tlv(0x30, CMS.signedDataOID + tlv(0xA0, [0x02, 0x01, 0x01]))),
            ("no version", CMS.wrap(tlv(0x30, tlv(0x31, []) + encapsulated + tlv(0x31, [])))),
            ("no digest set", CMS.wrap(tlv(0x30, [0x02, 0x01, 0x01] + encapsulated + tlv(0x31, [])))),
            ("digest algorithm not a SEQUENCE", CMS.wrap(tlv(0x30, [0x02, 0x01, 0x01] + tlv(0x31, [0x05, 0x00]) + encapsulated + tlv(0x31, [])))),
            ("no signerInfos", CMS.wrap(tlv(0x30, [0x02, 0x01, 0x01] + CMS.digests + encapsulated))),
            ("elements after signerInfos", CMS.wrap(tlv(0x30, [0x02, 0x01, 0x01] + CMS.digests + encapsulated + tlv(0x31, []) + [0x05, 0x00]))),
            ("content not in [0]", CMS.wrap(CMS.signedData(tlv(0x30, CMS.dataOID + tlv(0x04, content))))),
            ("two OCTET STRINGs in [0]", CMS.wrap(CMS.signedData(tlv(0x30, CMS.dataOID + tlv(0xA0, tlv(0x04, content) + tlv(0x04, [])))))),
            ("an INTEGER inside the chunked content", CMS.wrap(CMS.signedData(tlv(0x30, CMS.dataOID + tlv(0xA0, tlv(0x24, tlv(0x04, content) + [0x02, 0x01, 0x00])))))),
            ("elements after the ContentInfo content", tlv(0x30, CMS.signedDataOID + tlv(0xA0, CMS.signedData(encapsulated)) + [0x05, 0x00])),
        ]
        for (name, bytes) in cases {
            #expect(Self.code(bytes) == "PROFILE_MALFORMED_CMS", "\(name)")
        }
    }

    @Test func detachedOrNonDataContentHasNoProfile() throws {
        // eContent absent: a detached signature.
        #expect(Self.code(CMS.wrap(CMS.signedData(tlv(0x30, CMS.dataOID)))) == "PROFILE_NO_CONTENT")
        // eContentType is not id-data.
        let other = CMS.oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x05])
        #expect(Self.code(CMS.wrap(CMS.signedData(tlv(0x30, other + tlv(0xA0, tlv(0x04, try Self.content())))))) == "PROFILE_NO_CONTENT")
    }

    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func opensslDetachedSignatureHasNoProfile() throws {
        var builder = ProfileBuilder()
        builder.detached = true
        #expect(Self.code(try builder.signed()) == "PROFILE_NO_CONTENT")
    }

    @Test func chunkedContentIsJoinedAtAnyDepth() throws {
        // Nested constructed OCTET STRINGs with chunk boundaries inside XML tags.
        let content = try Self.content()
        let cut1 = 10, cut2 = 777
        let chunked = tlv(0x24, tlv(0x04, Array(content[0..<cut1]))
            + tlv(0x24, tlv(0x04, Array(content[cut1..<cut2])) + tlv(0x04, []))
            + tlv(0x04, Array(content[cut2...])))
        let bytes = CMS.wrap(CMS.signedData(tlv(0x30, CMS.dataOID + tlv(0xA0, chunked))))
        let profile = try ProvisioningProfile(bytes: bytes)
        #expect(profile.signedData.content == content)
        #expect(profile.signedData.contentChunkCount == 4)
        #expect(!profile.signedData.usesIndefiniteLengths)
    }

    @Test func excessiveNestingIsRefused() {
        // 60 nested indefinite-length SEQUENCEs: beyond swift-asn1's depth limit of 50.
        let bytes = [UInt8](repeating: 0x30, count: 120).enumerated().map { $0.offset % 2 == 0 ? 0x30 : 0x80 }
            + [UInt8](repeating: 0, count: 120)
        #expect(Self.code(bytes) == "PROFILE_MALFORMED_ASN1")
    }

    @Test(arguments: [
        ("not a plist", Array("hello, world".utf8), "PROFILE_PLIST_INVALID"),
        ("root array", Array("<plist version=\"1.0\"><array/></plist>".utf8), "PROFILE_PLIST_INVALID"),
        ("XML entity", Array("<!DOCTYPE p [<!ENTITY e \"x\">]><plist version=\"1.0\"><dict/></plist>".utf8), "PROFILE_PLIST_INVALID"),
        ("no entitlements", Array("<plist version=\"1.0\"><dict><key>ExpirationDate</key><date>2030-01-01T00:00:00Z</date></dict></plist>".utf8), "PROFILE_FIELD_INVALID"),
    ])
    func badContent(_ name: String, _ content: [UInt8], _ code: String) {
        #expect(Self.code(CMS.profile(content: content)) == code, "\(name)")
    }

    @Test func fieldsOfTheWrongTypeAreNamed() throws {
        func code(_ change: (inout PropertyListDictionary) -> Void) throws -> (String?, String) {
            var plist = ProfileBuilder().propertyList()
            change(&plist)
            let content = try PropertyList(root: .dictionary(plist), format: .xml).xmlData()
            do {
                _ = try ProvisioningProfile(bytes: CMS.profile(content: content))
                return (nil, "")
            } catch {
                return (error.code, error.message)
            }
        }
        let cases: [(String, (inout PropertyListDictionary) -> Void)] = [
            ("ExpirationDate", { $0["ExpirationDate"] = "2030-01-01" }),
            ("TeamIdentifier", { $0["TeamIdentifier"] = "ABCDE12345" }),
            ("ProvisionedDevices", { $0["ProvisionedDevices"] = [1, 2] }),
            ("ProvisionsAllDevices", { $0["ProvisionsAllDevices"] = "YES" }),
            ("Entitlements", { $0["Entitlements"] = ["application-identifier"] }),
            ("application-identifier", { $0["Entitlements"] = ["application-identifier": 42] }),
            ("TimeToLive", { $0["TimeToLive"] = 1.5 }),
            ("ExpirationDate", { $0["ExpirationDate"] = nil }),
            ("application-identifier", { $0["Entitlements"] = ["get-task-allow": true] }),
            ("application-identifier", { $0["Entitlements"] = ["application-identifier": "nodot"] }),
        ]
        for (key, change) in cases {
            let (found, message) = try code(change)
            #expect(found == "PROFILE_FIELD_INVALID", "\(key)")
            #expect(message.contains(key), "\(key): \(message)")
        }
    }

    @Test func unreadableCertificatesAreReportedNotFatal() throws {
        var builder = ProfileBuilder()
        builder.developerCertificates = [[0x30, 0x03, 0x02, 0x01, 0x01], ProfileBuilder.certificate("developer.cer")]
        var plist = builder.propertyList()
        var certificates = plist["DeveloperCertificates"]?.array ?? []
        certificates.append("not data")
        plist["DeveloperCertificates"] = .array(certificates)
        let content = try PropertyList(root: .dictionary(plist), format: .xml).xmlData()
        let profile = try ProvisioningProfile(bytes: CMS.profile(content: content))
        #expect(profile.developerCertificates.count == 1)
        #expect(profile.certificateProblems.count == 2)
        #expect(profile.certificateProblems.first?.contains("entry 1") == true)
        #expect(profile.certificateProblems.last?.contains("entry 3") == true)
    }

    @Test func unreadableFiles() throws {
        let scratch = try ScratchDirectory("profile-files")
        for path in [scratch.path("missing.mobileprovision"), scratch.path] {
            do {
                _ = try ProvisioningProfile(contentsOfFile: path)
                Issue.record("\(path) was read")
            } catch {
                #expect(error.code == "PROFILE_FILE_UNREADABLE")
                #expect(error.category == .io)
                #expect(error.description.hasPrefix(path))
            }
        }
        let garbage = try scratch.write("garbage.mobileprovision", Array("garbage".utf8))
        do {
            _ = try ProvisioningProfile(contentsOfFile: garbage)
        } catch {
            #expect(error.category == .invalidInput)
            #expect(error.description.hasPrefix(garbage + ": "))
        }
        let good = try scratch.write("good.mobileprovision", try ProfileBuilder.fixture(.app))
        #expect(try ProvisioningProfile(contentsOfFile: good).name == "Sample App Development")
    }
}

// MARK: - A small DER writer for hand-built structures

enum CMS {
    static func oid(_ body: [UInt8]) -> [UInt8] { tlv(0x06, body) }
    static let signedDataOID = oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02])
    static let dataOID = oid([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01])
    /// `{ sha256 }`.
    static let digests = tlv(0x31, tlv(0x30, oid([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]) + [0x05, 0x00]))

    static func encapsulated(_ content: [UInt8]) -> [UInt8] {
        tlv(0x30, dataOID + tlv(0xA0, tlv(0x04, content)))
    }

    /// SignedData with version 1, SHA-256, the given encapContentInfo and no signers.
    static func signedData(_ encapsulated: [UInt8]) -> [UInt8] {
        tlv(0x30, [0x02, 0x01, 0x01] + digests + encapsulated + tlv(0x31, []))
    }

    static func wrap(_ signedData: [UInt8], type: [UInt8] = signedDataOID) -> [UInt8] {
        tlv(0x30, type + tlv(0xA0, signedData))
    }

    static func profile(content: [UInt8], type: [UInt8] = signedDataOID) -> [UInt8] {
        wrap(signedData(encapsulated(content)), type: type)
    }
}
