import Foundation
import Testing
import TestSupport

/// `sign` checks the entitlements it would write with the rules `verify` applies (issue 27,
/// classes 2 and 3): nothing is written that its own `verify`, or a device, would refuse; and
/// `verify` and `profile show` check Apple's types.
@Suite struct EntitlementRuleCommandTests {
    static func entitlementsFile(_ body: String, in scratch: ScratchDirectory) throws -> String {
        try scratch.write("entitlements.plist", Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8))
    }

    @Test(arguments: [
        ("<key>get-task-allow</key><true/>", "SIGN_ENTITLEMENT_NOT_GRANTED", "get-task-allow"),
        ("<key>application-identifier</key><string>ABCDE12345.com.example.other</string>", "SIGN_ENTITLEMENT_NOT_GRANTED",
         "application-identifier ABCDE12345.com.example.other"),
        ("<key>keychain-access-groups</key><array><string>ZYXWV98765.com.example.sample</string></array>",
         "SIGN_ENTITLEMENT_NOT_GRANTED", "keychain-access-groups"),
        ("<key>aps-environment</key><string>development</string>", "SIGN_ENTITLEMENT_NOT_GRANTED", "aps-environment"),
        ("<key>application-identifier</key><integer>5</integer>", "SIGN_ENTITLEMENT_TYPE", "application-identifier as an integer"),
        ("<key>keychain-access-groups</key><string>ABCDE12345.*</string>", "SIGN_ENTITLEMENT_TYPE", "array of strings"),
        ("<key>get-task-allow</key><false/><key>get-task-allow</key><true/>", "SIGN_ENTITLEMENTS_FILE", "PLIST_DUPLICATE_KEY"),
    ])
    func entitlementsTheProfileDoesNotGrantAreRefusedBeforeWriting(_ body: String, _ code: String, _ words: String) throws {
        let scratch = try ScratchDirectory("entitlement-rules")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let file = try Self.entitlementsFile(body, in: scratch)
        let output = scratch.path("out.ipa")
        let result = try SignCommandTests.sign(input, output, scratch, extra: ["--entitlements", "com.example.sample=" + file])
        #expect(result.status == 64, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix("ipawrap: error[\(code)]:"), "\(result.stderr)")
        #expect(result.stderr.contains(words), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func grantedValuesStillSign() throws {
        // false where the profile grants false, the profile's own group and App ID: fine.
        let scratch = try ScratchDirectory("entitlement-rules-ok")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let file = try Self.entitlementsFile(
            "<key>application-identifier</key><string>ABCDE12345.com.example.sample</string>"
                + "<key>get-task-allow</key><false/>"
                + "<key>com.apple.security.application-groups</key><array><string>group.com.example.sample</string></array>",
            in: scratch)
        let output = scratch.path("out.ipa")
        let result = try SignCommandTests.sign(input, output, scratch, extra: ["--entitlements", "com.example.sample=" + file])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        try SignCommandTests.expectVerifies(output)
    }

    /// An executable "signed" (CodeDirectory, entitlements, empty CMS) with these XML entitlements.
    static func appSigned(withEntitlements xml: [UInt8]) throws -> [UInt8] {
        var machO = MachOBuilder()
        machO.version = .iOS("15.0", sdk: "17.2")
        var signature = MachOBuilder.CodeSignature(identifier: "com.example.sample", teamIdentifier: "ABCDE12345")
        signature.entitlementsXML = xml
        machO.codeSignature = signature
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = machO.build()
        return try builder.bytes()
    }

    @Test(arguments: [
        ("<key>application-identifier</key><integer>5</integer>", "SIGNATURE_ENTITLEMENT_TYPE"),
        ("<key>get-task-allow</key><string>yes</string>", "SIGNATURE_ENTITLEMENT_TYPE"),
        ("<key>get-task-allow</key><false/><key>get-task-allow</key><true/>", "SIGNATURE_MALFORMED"),
    ])
    func verifyChecksTypesAndRefusesDuplicateKeys(_ body: String, _ code: String) throws {
        let scratch = try ScratchDirectory("entitlement-types")
        let xml = Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>\(body)</dict></plist>".utf8)
        let input = try scratch.write("typed.ipa", Self.appSigned(withEntitlements: xml))
        let result = try Command.ipawrap(["verify", input, "--json"])
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let codes = (report?["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains(code), "\(codes)")
    }

    @Test func profileShowChecksTypesAndAcceptsListWildcards() throws {
        let scratch = try ScratchDirectory("profile-types")
        var builder = ProfileBuilder()
        builder.extraEntitlements = [
            "keychain-access-groups": "ABCDE12345.*", "com.apple.developer.associated-domains": "*",
            "com.apple.developer.icloud-services": "*",
        ]
        let path = try scratch.write("typed.mobileprovision", try builder.signed())
        let result = try Command.ipawrap(["profile", "show", path, "--json", "--check", "--at", "2026-06-01"])
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let findings = (report?["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "PROFILE_ENTITLEMENT_TYPE" }
        #expect(findings.count == 1)
        let message = findings.first?["message"] as? String ?? ""
        #expect(message.contains("keychain-access-groups is a string, not an array of strings"), "\(message)")
        #expect(!message.contains("associated-domains") && !message.contains("icloud-services"))
    }
}
