import Foundation
import PropertyList
import ProvisioningProfile
import Testing
import TestSupport

/// The committed profiles signed by `ProfileBuilder` with openssl (Tests/Fixtures/profiles).
struct GeneratedProfileTests {
    typealias Fixture = ProfileBuilder.Fixture

    static func profile(_ fixture: Fixture) throws -> ProvisioningProfile {
        try ProvisioningProfile(bytes: ProfileBuilder.fixture(fixture))
    }

    @Test(arguments: Fixture.allCases)
    func decodesWhatTheBuilderWrote(_ fixture: Fixture) throws {
        let builder = fixture.builder
        let profile = try Self.profile(fixture)
        #expect(profile.name == builder.name)
        #expect(profile.uuid == builder.uuid)
        #expect(profile.teamIdentifiers == [builder.teamIdentifier])
        #expect(profile.teamName == builder.teamName)
        #expect(profile.applicationIdentifierPrefixes == [builder.applicationIdentifierPrefix])
        #expect(profile.applicationIdentifier.rawValue == builder.applicationIdentifier)
        #expect(profile.applicationIdentifier.bundlePattern == builder.bundlePattern)
        #expect(profile.platforms == builder.platforms ?? [])
        #expect(profile.expirationDate.timeIntervalSince1970 == builder.expirationDate.secondsSince1970)
        #expect(profile.creationDate?.timeIntervalSince1970 == builder.creationDate.secondsSince1970)
        #expect(profile.provisionedDevices == builder.devices)
        #expect(profile.provisionsAllDevices == builder.provisionsAllDevices)
        #expect(profile.getTaskAllow == builder.getTaskAllow)
        #expect(profile.developerCertificates.map(\.derBytes) == builder.developerCertificates)
        #expect(profile.certificateProblems.isEmpty)
        #expect(PropertyListValue.dictionary(profile.plist) == .dictionary(builder.propertyList()))
        #expect(profile.signedData.content == (try builder.contentBytes()))
    }

    @Test(.enabled(if: ProfileOracle.opensslMissing == nil, "openssl is not installed"), arguments: Fixture.allCases)
    func contentEqualsWhatOpensslExtracts(_ fixture: Fixture) throws {
        let bytes = try ProfileBuilder.fixture(fixture)
        #expect(try ProvisioningProfile(bytes: bytes).signedData.content == ProfileOracle.cmsContent(bytes))
    }

    @Test(arguments: Fixture.allCases)
    func plistAgreesWithFoundation(_ fixture: Fixture) throws {
        let profile = try Self.profile(fixture)
        let oracle = try ProfileOracle.foundationDictionary(profile.signedData.content)
        #expect(Set(oracle.keys) == Set(profile.plist.keys))
        #expect(oracle["UUID"] as? String == profile.uuid)
        #expect((oracle["ExpirationDate"] as? Date)?.timeIntervalSince1970 == profile.expirationDate.timeIntervalSince1970)
        #expect(oracle["ProvisionedDevices"] as? [String] == profile.provisionedDevices)
        let entitlements = try #require(oracle["Entitlements"] as? [String: Any])
        #expect(Set(entitlements.keys) == Set(profile.entitlements.keys))
        #expect(entitlements["application-identifier"] as? String == profile.applicationIdentifier.rawValue)
    }

    @Test func distributionKinds() throws {
        #expect(try Self.profile(.app).distribution == .development)
        #expect(try Self.profile(.adhoc).distribution == .adhoc)
        #expect(try Self.profile(.enterprise).distribution == .enterprise)
        #expect(try Self.profile(.appstore).distribution == .appstore)
    }

    @Test func appIDKinds() throws {
        #expect(try Self.profile(.app).applicationIdentifier.kind == .explicit)
        #expect(try Self.profile(.share).applicationIdentifier.match("com.example.sample.share") == .exact)
        let partial = try Self.profile(.partialWildcard).applicationIdentifier
        #expect(partial.kind == .partialWildcard)
        #expect(partial.wildcardStem == "com.example.")
        #expect(partial.match("com.example.sample.share") == .partialWildcard(stemLength: 12))
        #expect(!partial.matches("com.other.sample"))
        #expect(try Self.profile(.wildcard).applicationIdentifier.kind == .fullWildcard)
    }

    @Test func legacyPrefixIsTakenFromTheProfileNotTheTeam() throws {
        let profile = try Self.profile(.legacyPrefix)
        #expect(profile.teamIdentifier == "ABCDE12345")
        #expect(profile.applicationIdentifier.prefix == "LEGACY9876")
        #expect(profile.applicationIdentifier.prefixIsDeclared)
        #expect(profile.applicationIdentifier.match("com.example.sample") == .exact)
    }

    @Test func otherTeam() throws {
        let profile = try Self.profile(.otherTeam)
        #expect(profile.teamIdentifier == "ZYXWV98765")
        #expect(profile.developerCertificates.first?.teamIdentifier == "ZYXWV98765")
        #expect(profile.developerCertificates.first?.commonName == "Apple Distribution: Other Company (ZYXWV98765)")
    }

    @Test func platforms() throws {
        #expect(try Self.profile(.app).isForIOS)
        #expect(try !Self.profile(.macOS).isForIOS)
    }

    @Test func expiry() throws {
        let expired = try Self.profile(.expired)
        #expect(expired.isExpired(at: date("2025-01-01T00:00:00Z")))
        #expect(!expired.isExpired(at: date("2023-06-01T00:00:00Z")))
        let certificate = try #require(try Self.profile(.expiredCertificate).developerCertificates.first)
        #expect(certificate.isExpired(at: date("2026-06-01T00:00:00Z")))
        #expect(iso(certificate.notValidAfter) == "2021-01-01T00:00:00Z")
        #expect(certificate.serialNumber == "0F0E0D0C")
    }

    @Test(.enabled(if: ProfileOracle.opensslMissing == nil, "openssl is not installed"))
    func certificatesAgreeWithOpenssl() throws {
        for name in ["developer.cer", "developer-expired.cer", "developer-other-team.cer"] {
            let der = ProfileBuilder.certificate(name)
            let certificate = try ProfileCertificate(derEncoded: der)
            let oracle = try ProfileOracle.certificate(der)
            #expect(oracle.serial == certificate.serialNumber, "\(name)")
            #expect(oracle.sha1 == certificate.sha1Fingerprint, "\(name)")
            #expect(oracle.subject.contains("OU=\(certificate.teamIdentifier ?? "?")"), "\(name)")
            #expect(oracle.subject.contains("CN=\(certificate.commonName ?? "?")"), "\(name)")
            #expect(oracle.notAfter.replacingOccurrences(of: " ", with: "T") == iso(certificate.notValidAfter), "\(name)")
            #expect(oracle.notBefore.replacingOccurrences(of: " ", with: "T") == iso(certificate.notValidBefore), "\(name)")
        }
    }

    /// The streamed profile is BER: indefinite lengths, and the plist split into OCTET STRING
    /// chunks. Slicing the file between `<?xml` and `</plist>` (what several tools do) keeps the
    /// chunk headers inside the XML; the decoder joins the chunks.
    @Test func berIndefiniteLengthsAndChunkedContent() throws {
        let bytes = try ProfileBuilder.fixture(.berIndefinite)
        let profile = try ProvisioningProfile(bytes: bytes)
        #expect(profile.signedData.usesIndefiniteLengths)
        #expect(profile.signedData.contentChunkCount == 2)
        #expect(profile.provisionedDevices?.count == 100)
        #expect(profile.signedData.content == (try Fixture.berIndefinite.builder.contentBytes()))

        let text = Array("<?xml".utf8)
        let end = Array("</plist>".utf8)
        let start = try #require(bytes.firstRange(of: text)?.lowerBound)
        let stop = try #require(bytes.lastRange(of: end)?.upperBound)
        let sliced = Array(bytes[start..<stop])
        #expect(sliced.count > profile.signedData.content.count)
        #expect(throws: (any Error).self) { try PropertyList(bytes: sliced) }

        #expect(try !Self.profile(.app).signedData.usesIndefiniteLengths)
    }
}

extension Array where Element == UInt8 {
    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    func lastRange(of needle: [UInt8]) -> Range<Int>? {
        guard needle.count <= count else { return nil }
        for start in stride(from: count - needle.count, through: 0, by: -1)
        where self[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}
