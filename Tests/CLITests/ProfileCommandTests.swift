import Foundation
import Testing
import TestSupport

/// `ipawrap profile show`: the decoded profile as text and JSON, and exit 65/74 for files that
/// are not profiles or cannot be read.
@Suite struct ProfileCommandTests {
    static let wildcard = Fixtures.path("profiles/generated/wildcard.mobileprovision")

    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func showsAProfileAsShortText() throws {
        let result = try Command.ipawrap(["profile", "show", Self.wildcard, "--at", "2026-06-01"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Wildcard Development  4DC3B362-4C49-D175-CF09-0F1FDFEC7C52")
        #expect(lines.contains("  App ID       ABCDE12345.*  wildcard: every bundle ID"))
        #expect(lines.contains("  Team         Example Corp (ABCDE12345)"))
        #expect(lines.contains("  Kind         development, 3 devices"))
        #expect(lines.contains("  Expires      2036-01-01T00:00:00Z"))
        #expect(lines.contains("  Certificates Apple Development: Test Developer (ABCDE12345)  serial 1A2B3C4D, valid to 2035-01-01T00:00:00Z"))
        #expect(lines.contains { $0.hasPrefix("  error   APP_ID_WILDCARD: ") })
        #expect(!result.stdout.contains("PROFILE_EXPIRED"))
        #expect(lines.count < 30)
    }

    @Test func showsAProfileAsStableJSON() throws {
        let arguments = ["profile", "show", Self.wildcard, "--json", "--at", "2036-06-01T00:00:00Z"]
        let result = try Command.ipawrap(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(result.stdout)
        #expect(json["file"] as? String == Self.wildcard)
        #expect(json["name"] as? String == "Wildcard Development")
        #expect(json["uuid"] as? String == "4DC3B362-4C49-D175-CF09-0F1FDFEC7C52")
        #expect(json["appIdentifier"] as? String == "ABCDE12345.*")
        #expect(json["appIdKind"] as? String == "fullWildcard")
        #expect(json["wildcard"] as? Bool == true)
        #expect(json["teamId"] as? String == "ABCDE12345")
        #expect(json["teamName"] as? String == "Example Corp")
        #expect(json["platforms"] as? [String] == ["iOS"])
        #expect(json["creationDate"] as? String == "2026-01-01T00:00:00Z")
        #expect(json["expirationDate"] as? String == "2036-01-01T00:00:00Z")
        #expect(json["expired"] as? Bool == true)
        #expect(json["kind"] as? String == "development")
        #expect(json["deviceCount"] as? Int == 3)
        #expect(json["provisionsAllDevices"] as? Bool == false)
        let entitlements = try #require(json["entitlements"] as? [String: Any])
        #expect(entitlements["get-task-allow"] as? Bool == true)
        #expect(entitlements["keychain-access-groups"] as? [String] == ["ABCDE12345.*"])
        let certificate = try #require((json["certificates"] as? [[String: Any]])?.first)
        #expect(certificate["commonName"] as? String == "Apple Development: Test Developer (ABCDE12345)")
        // openssl x509 -subject of Tests/Fixtures/profiles/developer.cer names the same parts.
        let subject = try #require(certificate["subject"] as? String)
        let openssl = try Command.run(
            "openssl", ["x509", "-inform", "DER", "-in", Fixtures.path("profiles/developer.cer"), "-noout", "-subject", "-nameopt", "sep_comma_plus,utf8"])
        for part in ["CN=Apple Development: Test Developer (ABCDE12345)", "O=Example Corp", "OU=ABCDE12345", "C=US"] {
            #expect(subject.contains(part), "\(subject) lacks \(part)")
            #expect(openssl.stdout.contains(part), "\(openssl.stdout) lacks \(part)")
        }
        #expect(certificate["teamId"] as? String == "ABCDE12345")
        #expect(certificate["serialNumber"] as? String == "1A2B3C4D")
        #expect(certificate["notValidAfter"] as? String == "2035-01-01T00:00:00Z")
        #expect(certificate["expired"] as? Bool == true)
        let container = try #require(json["container"] as? [String: Any])
        #expect(container["encoding"] as? String == "DER")
        #expect(container["digestAlgorithms"] as? [String] == ["sha256"])
        let codes = (json["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["APP_ID_WILDCARD", "PROFILE_EXPIRED", "PROFILE_CERTIFICATE_EXPIRED"])

        // Sorted keys, and the same bytes every time.
        let keys = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(keys == keys.sorted())
        #expect(try Command.ipawrap(arguments).stdout == result.stdout)
    }

    @Test func showsBERProfilesAndAllowWildcard() throws {
        let ber = try Command.ipawrap(["profile", "show", Fixtures.path("profiles/generated/ber-indefinite.mobileprovision"), "--json", "--at", "2026-06-01"])
        #expect(ber.status == 0, "\(ber.stderr)")
        let container = try #require(try Self.json(ber.stdout)["container"] as? [String: Any])
        #expect(container["encoding"] as? String == "BER")
        #expect(container["contentChunks"] as? Int == 2)
        #expect(try Self.json(ber.stdout)["deviceCount"] as? Int == 100)

        let wildcard = try Command.ipawrap(["profile", "show", Fixtures.path("profiles/generated/partial-wildcard.mobileprovision"), "--allow-wildcard", "--at", "2026-06-01"])
        #expect(wildcard.status == 0)
        #expect(wildcard.stdout.contains("warning APP_ID_WILDCARD"))
    }

    @Test(arguments: [
        ("garbage", Array("this is not a provisioning profile".utf8)),
        ("truncated", Array((try? ProfileBuilder.fixture(.app))?.prefix(2_000) ?? [])),
        ("empty", []),
        ("bare plist", Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>".utf8)),
    ])
    func notAProfileExits65WithACodedError(_ name: String, _ bytes: [UInt8]) throws {
        let scratch = try ScratchDirectory("cli-profile")
        let file = try scratch.write("\(name).mobileprovision", bytes)
        let result = try Command.ipawrap(["profile", "show", file])
        #expect(result.status == 65, "\(name): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("ipawrap: error[PROFILE_"), "\(result.stderr)")
        #expect(result.stderr.contains(file))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func unreadableFilesExit74() throws {
        let scratch = try ScratchDirectory("cli-profile")
        for path in [scratch.path("missing.mobileprovision"), scratch.path] {
            let result = try Command.ipawrap(["profile", "show", path])
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("ipawrap: error[PROFILE_FILE_UNREADABLE]: \(path)"))
        }
    }

    @Test func aBadDateIsAUsageError() throws {
        #expect(try Command.ipawrap(["profile", "show", Self.wildcard, "--at", "yesterday"]).status == 64)
    }
}

/// `profile show` of a profile another project made: isign's test profile (`../shared`), a DER
/// CMS with a wildcard App ID, 2 devices, expired in 2017, signed by isign's own test CA.
@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct IsignProfileCommandTests {
    static let isign = IsignFixture.path("test.mobileprovision")

    static func json(_ text: String) throws -> [String: Any] {
        try ProfileCommandTests.json(text)
    }

    @Test func showsAProfileAsShortText() throws {
        let result = try Command.ipawrap(["profile", "show", Self.isign, "--at", "2016-12-01"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "RDC-Dev  f4d8aa37-45a7-4304-960c-1291e1a5a0f3")
        #expect(lines.contains("  App ID       ISIGNTESTS.*  wildcard: every bundle ID"))
        #expect(lines.contains("  Team         ISIGN OPEN SOURCE (ISIGNTESTS)"))
        #expect(lines.contains("  Kind         development, 2 devices"))
        #expect(lines.contains("  Expires      2017-11-28T22:57:49Z"))
        #expect(lines.contains("  Certificates isign_tests  serial 01, valid to 2025-10-19T19:13:07Z"))
        #expect(lines.contains { $0.hasPrefix("  error   APP_ID_WILDCARD: ") })
        #expect(!result.stdout.contains("PROFILE_EXPIRED"))
        #expect(lines.count < 30)
    }

    @Test func showsAProfileAsStableJSON() throws {
        let arguments = ["profile", "show", Self.isign, "--json", "--at", "2018-01-01T00:00:00Z"]
        let result = try Command.ipawrap(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try Self.json(result.stdout)
        #expect(json["file"] as? String == Self.isign)
        #expect(json["name"] as? String == "RDC-Dev")
        #expect(json["uuid"] as? String == "f4d8aa37-45a7-4304-960c-1291e1a5a0f3")
        #expect(json["appIdentifier"] as? String == "ISIGNTESTS.*")
        #expect(json["appIdKind"] as? String == "fullWildcard")
        #expect(json["wildcard"] as? Bool == true)
        #expect(json["teamId"] as? String == "ISIGNTESTS")
        #expect(json["teamName"] as? String == "ISIGN OPEN SOURCE")
        #expect(json["platforms"] as? [String] == ["iOS"])
        #expect(json["creationDate"] as? String == "2016-11-28T22:57:49Z")
        #expect(json["expirationDate"] as? String == "2017-11-28T22:57:49Z")
        #expect(json["expired"] as? Bool == true)
        #expect(json["kind"] as? String == "development")
        #expect(json["deviceCount"] as? Int == 2)
        #expect(json["provisionsAllDevices"] as? Bool == false)
        #expect(json["timeToLive"] as? Int == 365)
        // Absent fields are null, not left out.
        #expect(json.keys.contains("xcodeManaged") && json["xcodeManaged"] is NSNull)
        let entitlements = try #require(json["entitlements"] as? [String: Any])
        #expect(entitlements["get-task-allow"] as? Bool == true)
        #expect(entitlements["keychain-access-groups"] as? [String] == ["ISIGNTESTS.*"])
        let certificate = try #require((json["certificates"] as? [[String: Any]])?.first)
        #expect(certificate["commonName"] as? String == "isign_tests")
        // openssl x509 -subject shows CN = isign_tests, O = isign tests, OU = ISIGNTESTS, ST = CA, C = US, ...
        let subject = try #require(certificate["subject"] as? String)
        for part in ["CN=isign_tests", "O=isign tests", "OU=ISIGNTESTS", "ST=CA", "C=US", "L=San Francisco"] {
            #expect(subject.contains(part), "\(subject) lacks \(part)")
        }
        #expect(certificate["teamId"] as? String == "ISIGNTESTS")
        #expect(certificate["serialNumber"] as? String == "01")
        #expect(certificate["notValidAfter"] as? String == "2025-10-19T19:13:07Z")
        #expect(certificate["expired"] as? Bool == false)
        let container = try #require(json["container"] as? [String: Any])
        #expect(container["encoding"] as? String == "DER")
        #expect(container["digestAlgorithms"] as? [String] == ["sha256"])
        let codes = (json["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["APP_ID_WILDCARD", "PROFILE_EXPIRED"])

        // Sorted keys, and the same bytes every time.
        let keys = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(keys == keys.sorted())
        #expect(try Command.ipawrap(arguments).stdout == result.stdout)
    }
}
