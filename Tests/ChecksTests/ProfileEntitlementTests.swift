import Checks
import Foundation
import PropertyList
import Reporting
import Testing
import TestSupport

/// Entitlements the executable is signed with but the bundle's profile does not grant: read from
/// the code signature's XML blob, else its DER blob.
struct ProfileEntitlementTests {
    typealias S = ProfileScenario

    static func executable(xml: PropertyListDictionary? = nil, der: [UInt8]? = nil) throws -> [UInt8] {
        let xmlBytes = try xml.map { try PropertyList(root: .dictionary($0), format: .xml).xmlData() }
        return IPABuilder.executable { builder in
            var signature = MachOBuilder.CodeSignature(identifier: S.appID, teamIdentifier: "ABCDE12345")
            signature.entitlementsXML = xmlBytes
            signature.entitlementsDER = der
            builder.codeSignature = signature
        }
    }

    static let granted: PropertyListDictionary = [
        "application-identifier": "ABCDE12345.com.example.sample",
        "com.apple.developer.team-identifier": "ABCDE12345",
        "get-task-allow": true,
        "keychain-access-groups": ["ABCDE12345.com.example.sample"],
    ]

    @Test func keysTheProfileLacksAreNamed() throws {
        var signed = Self.granted
        signed["com.apple.security.application-groups"] = ["group.com.example.sample"]
        signed["com.apple.developer.associated-domains"] = ["applinks:example.com"]
        var builder = S.app()
        builder.executable = try Self.executable(xml: signed)
        let report = try S.inspect(builder)
        let findings = report.findings("ENTITLEMENT_NOT_IN_PROFILE")
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("2 entitlements"))
        #expect(finding.message.contains("com.apple.developer.associated-domains, com.apple.security.application-groups"))
        #expect(finding.message.contains("'Sample App Development'"))
        #expect(!finding.message.contains("get-task-allow"))
    }

    @Test func entitlementsTheProfileGrantsAreFine() throws {
        var builder = S.app()
        builder.executable = try Self.executable(xml: Self.granted)
        #expect(try S.inspect(builder).findings("ENTITLEMENT_NOT_IN_PROFILE").isEmpty)
    }

    @Test func derEntitlementsAreReadWhenThereIsNoXML() throws {
        // {application-identifier: …, com.apple.security.application-groups: [group.x]}
        let entries = tlv(0x30, tlv(0x0C, Array("application-identifier".utf8)) + tlv(0x0C, Array("ABCDE12345.com.example.sample".utf8)))
            + tlv(0x30, tlv(0x0C, Array("com.apple.security.application-groups".utf8)) + tlv(0x30, tlv(0x0C, Array("group.x".utf8))))
        let der = tlv(0x70, [0x02, 0x01, 0x01] + tlv(0xB0, entries))
        var builder = S.app()
        builder.executable = try Self.executable(der: der)
        let finding = try #require(try S.inspect(builder).findings("ENTITLEMENT_NOT_IN_PROFILE").first)
        #expect(finding.message.contains("an entitlement"))
        #expect(finding.message.hasSuffix("com.apple.security.application-groups"))
    }

    @Test func unreadableEntitlementsAreAWarning() throws {
        var builder = S.app()
        builder.executable = try Self.executable(der: [0x70, 0x03, 0x02, 0x01, 0x07])
        let finding = try #require(try S.inspect(builder).findings("SIGNED_ENTITLEMENTS_UNREADABLE").first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
    }

    @Test func extensionsAreJudgedAgainstTheirOwnProfile() throws {
        var builder = S.app()
        let index = try #require(builder.nested.firstIndex { $0.path == "PlugIns/Share.appex" })
        var signed = Self.granted
        signed["application-identifier"] = "ABCDE12345.com.example.sample.share"
        signed["aps-environment"] = "development"  // the app's profile grants it, the share profile does not
        builder.nested[index].executable = try Self.executable(xml: signed)
        let finding = try #require(try S.inspect(builder).findings("ENTITLEMENT_NOT_IN_PROFILE").first)
        #expect(finding.path == S.sharePath + "/Share")
        #expect(finding.message.hasSuffix("aps-environment"))
    }

    @Test func unsignedExecutablesHaveNothingToCompare() throws {
        #expect(try S.inspect(S.app()).findings("ENTITLEMENT_NOT_IN_PROFILE").isEmpty)
    }

    func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        precondition(content.count < 0x10000)
        if content.count < 0x80 { return [tag, UInt8(content.count)] + content }
        if content.count < 0x100 { return [tag, 0x81, UInt8(content.count)] + content }
        return [tag, 0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)] + content
    }
}
