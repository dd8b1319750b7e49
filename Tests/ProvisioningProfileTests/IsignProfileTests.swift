import Foundation
import PropertyList
import ProvisioningProfile
import Testing
import TestSupport

/// isign's test profile (`../shared/fixtures/isign`): a real-format DER profile another project
/// made, with a full wildcard App ID, two devices, expired in 2017, and a self-signed developer
/// certificate. The generated profiles (`ProfileBuilder`) are checked for the same facts elsewhere.
@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct IsignProfileTests {
    static let path = "test.mobileprovision"

    @Test func decodesEveryField() throws {
        let profile = try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path))
        #expect(profile.name == "RDC-Dev")
        #expect(profile.uuid == "f4d8aa37-45a7-4304-960c-1291e1a5a0f3")
        #expect(profile.appIDName == "isign tests")
        #expect(profile.teamName == "ISIGN OPEN SOURCE")
        #expect(profile.teamIdentifiers == ["ISIGNTESTS"])
        #expect(profile.teamIdentifier == "ISIGNTESTS")
        #expect(profile.applicationIdentifierPrefixes == ["ISIGNTESTS"])
        #expect(profile.platforms == ["iOS"])
        #expect(profile.isForIOS)
        #expect(profile.timeToLive == 365)
        #expect(profile.version == 1)
        #expect(profile.provisionedDevices == [
            "e2cd3a02c1a3f69a5ff05bce3ea1b1092b30efe0", "0a0fd3dcb248d3c001a586e8f638800e18c54efc",
        ])
        #expect(!profile.provisionsAllDevices)
        #expect(profile.getTaskAllow)
        #expect(profile.distribution == .development)
        #expect(iso(profile.creationDate) == "2016-11-28T22:57:49Z")
        #expect(iso(profile.expirationDate) == "2017-11-28T22:57:49Z")
        #expect(profile.isExpired(at: date("2017-11-28T22:57:49Z")))
        #expect(!profile.isExpired(at: date("2017-11-28T22:57:48Z")))
        #expect(profile.entitlements.keys.sorted() == [
            "application-identifier", "com.apple.developer.team-identifier", "get-task-allow", "keychain-access-groups",
        ])
        #expect(!profile.hasDEREncodedProfile)
    }

    @Test func itsAppIDIsAFullWildcard() throws {
        let appID = try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path)).applicationIdentifier
        #expect(appID.rawValue == "ISIGNTESTS.*")
        #expect(appID.prefix == "ISIGNTESTS")
        #expect(appID.prefixIsDeclared)
        #expect(appID.kind == .fullWildcard)
        #expect(appID.isWildcard)
        #expect(appID.wildcardStem == "")
        #expect(appID.match("com.example.anything") == .fullWildcard)
        #expect(appID.resolved(for: "com.example.app") == "ISIGNTESTS.com.example.app")
    }

    @Test func readsTheCMSContainer() throws {
        let cms = try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path)).signedData
        #expect(cms.version == 1)
        #expect(cms.digestAlgorithms == ["sha256"])
        #expect(cms.signerCount == 1)
        #expect(cms.certificates.count == 1)
        #expect(!cms.usesIndefiniteLengths)
        #expect(cms.contentChunkCount == 1)
    }

    @Test func readsTheDeveloperCertificate() throws {
        let profile = try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path))
        #expect(profile.certificateProblems.isEmpty)
        let certificate = try #require(profile.developerCertificates.first)
        #expect(profile.developerCertificates.count == 1)
        #expect(certificate.commonName == "isign_tests")
        #expect(certificate.teamIdentifier == "ISIGNTESTS")
        #expect(certificate.organization == "isign tests")
        #expect(certificate.issuerCommonName == "isign_tests")
        #expect(certificate.serialNumber == "01")
        #expect(iso(certificate.notValidBefore) == "2015-10-22T19:13:07Z")
        #expect(iso(certificate.notValidAfter) == "2025-10-19T19:13:07Z")
        #expect(certificate.isExpired(at: date("2026-01-01T00:00:00Z")))
        #expect(!certificate.isExpired(at: date("2020-01-01T00:00:00Z")))
    }

    @Test(.enabled(if: ProfileOracle.opensslMissing == nil, "openssl is not installed"))
    func contentEqualsWhatOpensslExtracts() throws {
        let bytes = try IsignFixture.bytes(Self.path)
        let profile = try ProvisioningProfile(bytes: bytes)
        #expect(profile.signedData.content == (try ProfileOracle.cmsContent(bytes)))
        #expect(profile.signedData.content == (try ProfileOracle.smimeContent(bytes)))
        // isign ships the plist it signed beside the profile; it was signed in S/MIME text mode,
        // which turned its line ends into CRLF, and the decoder keeps the signed bytes exactly.
        let lineFeeds = String(decoding: profile.signedData.content, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        #expect(profile.signedData.content.contains(13))
        #expect(Array(lineFeeds.utf8) == (try IsignFixture.bytes("test.mobileprovision.plist")))
    }

    @Test(.enabled(if: ProfileOracle.opensslMissing == nil, "openssl is not installed"))
    func certificateFieldsAgreeWithOpenssl() throws {
        let certificate = try #require(try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path)).developerCertificates.first)
        let oracle = try ProfileOracle.certificate(certificate.derBytes)
        #expect(oracle.serial == certificate.serialNumber)
        #expect(oracle.sha1 == certificate.sha1Fingerprint)
        #expect(oracle.notAfter == "2025-10-19 19:13:07Z")
        #expect(oracle.subject.contains("CN=isign_tests"))
        #expect(oracle.subject.contains("OU=ISIGNTESTS"))
    }

    @Test func fieldsAgreeWithFoundation() throws {
        let profile = try ProvisioningProfile(bytes: IsignFixture.bytes(Self.path))
        let oracle = try ProfileOracle.foundationDictionary(profile.signedData.content)
        #expect(oracle["Name"] as? String == profile.name)
        #expect(oracle["UUID"] as? String == profile.uuid)
        #expect(oracle["TeamIdentifier"] as? [String] == profile.teamIdentifiers)
        #expect((oracle["ExpirationDate"] as? Date)?.timeIntervalSince1970 == profile.expirationDate.timeIntervalSince1970)
        #expect((oracle["CreationDate"] as? Date)?.timeIntervalSince1970 == profile.creationDate?.timeIntervalSince1970)
        #expect(oracle["ProvisionedDevices"] as? [String] == profile.provisionedDevices)
        let entitlements = try #require(oracle["Entitlements"] as? [String: Any])
        #expect(entitlements["application-identifier"] as? String == profile.applicationIdentifier.rawValue)
        let certificates = try #require(oracle["DeveloperCertificates"] as? [Data])
        #expect(certificates.map { [UInt8]($0) } == profile.developerCertificates.map(\.derBytes))
    }
}

func iso(_ date: Date?) -> String? {
    date.map { PropertyListDate(secondsSince1970: $0.timeIntervalSince1970).iso8601 }
}

func date(_ text: String) -> Date {
    Date(timeIntervalSince1970: PropertyListDate(iso8601: text)?.secondsSince1970 ?? .nan)
}
