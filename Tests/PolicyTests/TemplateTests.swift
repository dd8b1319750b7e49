import Foundation
import Policy
import Testing
import TestSupport
import ToolData

/// The shipped templates: they load, validate, and carry the policies the documents describe.
@Suite struct TemplateTests {
    @Test(arguments: ["premium", "general"])
    func templateLoadsAndValidates(name: String) throws {
        let directory = try Repo.directory()
        let schema = try directory.loadSchema()
        let validation = PolicyDocument.validate(try Repo.templateBytes(name), schema: schema)
        #expect(validation.issues == [])
        let template = try #require(validation.template)
        #expect(template.mode.rawValue == name)
        #expect(try directory.policyTemplateNames() == ["general", "premium"])
    }

    @Test(.enabled(if: Xmllint.isAvailable, "xmllint (Debian libxml2-utils) is not installed; oracle skipped"),
          arguments: ["premium", "general"])
    func xmllintAgreesTheTemplateIsValid(name: String) throws {
        let result = try Xmllint.validate(Repo.templates.appendingPathComponent("policies/\(name).xml"))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("validates"))
    }

    @Test func toolkitVersionIsDeclared() throws {
        #expect(try Repo.directory().toolkitVersion().text == "20.10.5")
        // Independent reading of the same file.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Repo.templates.appendingPathComponent("toolkit.json")))
        #expect((object as? [String: Any])?["ToolkitVersion"] as? String == "20.10.5")
    }

    /// The device blocks whose selectors the best-practices text lists, and DisableCamera from the API text.
    static let deviceBlocks = [
        "DisableCamera", "DisablePhotoLibrary", "DisableMicrophone", "DisableLocationServices",
        "DisableSMSCompose", "DisableEmailCompose", "DisableICloud", "DisablePrinting", "DisableAirDrop",
    ]

    @Test func premiumCarriesEveryDocumentedPolicyWithItsType() throws {
        let template = try Repo.template("premium")
        for name in Self.deviceBlocks {
            let policy = try #require(template.policy(named: name), "\(name) missing")
            #expect(policy.type == .boolean, "\(name)")
            #expect(policy.category == "AppRestrictions")
        }
        #expect(template.policy(named: "DisableCamera")?.defaultValue == "false")

        let network = try #require(template.policy(named: "NetworkAccess"))
        #expect(network.type.enumValues.map(\.identifier) == [
            "UsePreviousSettings", "Blocked", "Unrestricted",
            "TunneledFullVPN", "TunneledWebSSO", "TunneledFullVPNAndWebSSO",
        ])
        #expect(network.type.enumValues.map(\.title) == [
            "Use previous settings", "Blocked", "Unrestricted",
            "Tunneled - Full VPN", "Tunneled - Web SSO", "Tunneled - Full VPN and Web SSO",
        ])
        #expect(network.defaultValue == "UsePreviousSettings")

        let expectedTypes: [String: PolicyValueType] = [
            "NetworkExclusionList": .stringList,
            "RequireMicroVPNSession": .boolean,
            "EnableEncryption": .boolean,
            "EncryptionExclusions": .stringList,
            "EncryptSecretsUsingPasscode": .boolean,
            "AppURLSchemes": .stringList,
            "AllowedURLs": .stringList,
            "MaxOfflinePeriod": .integer(minimum: 1, maximum: 8760),
            "AlternateGatewayAddress": .string,
        ]
        for (name, type) in expectedTypes {
            #expect(template.policy(named: name)?.type == type, "\(name)")
        }
        #expect(template.policy(named: "EnableEncryption")?.defaultValue == "true")
        #expect(template.policy(named: "EncryptSecretsUsingPasscode")?.title() == "Encrypt secrets using Passcode")
        for name in ["CutAndCopy", "Paste", "DocumentExchange"] {
            #expect(template.policy(named: name)?.type.enumValues.map(\.identifier) == ["Unrestricted", "Blocked", "Restricted"], "\(name)")
        }
        let allowed = try #require(template.policy(named: "AllowedURLs")).defaultValue.split(separator: ",")
        #expect(allowed.contains("^mailto:=ctxmail:"))
        #expect(allowed.contains("^http:=ctxmobilebrowser:"))
        #expect(allowed.contains("^https:=ctxmobilebrowsers:"))
        // The exclusions help text names the built-in exclusions of the best-practices text.
        let exclusions = try #require(template.policy(named: "EncryptionExclusions")).helpText()
        for path in ["CitrixMAM.config", "CTXWrapperPersistentData", "/Documents/CitrixLogs", "SQLCipher"] {
            #expect(exclusions.contains(path), "\(path)")
        }
        let hidden = try #require(template.policy(named: "MinimumDataProtectionClass"))
        #expect(hidden.hidden)
        #expect(template.policies.filter(\.hidden).map(\.name) == ["MinimumDataProtectionClass"])
    }

    @Test func everyPolicyHasTitleAndHelpTextAndAValidDefault() throws {
        for name in ["premium", "general"] {
            for policy in try Repo.template(name).policies {
                #expect(!policy.title().isEmpty && !policy.helpText().isEmpty, "\(policy.name)")
                #expect(policy.type.problem(with: policy.defaultValue) == nil, "\(policy.name)")
            }
        }
    }

    @Test func generalIsAStrictSubsetOfPremiumWithTheSameDefinitions() throws {
        let premium = try Repo.template("premium")
        let general = try Repo.template("general")
        #expect(premium.mode == .premium)
        #expect(general.mode == .general)
        #expect(Set(general.names).isStrictSubset(of: Set(premium.names)))
        for policy in general.policies {
            let twin = try #require(premium.policy(named: policy.name))
            #expect(policy.type == twin.type && policy.defaultValue == twin.defaultValue, "\(policy.name)")
            #expect(policy.hidden == twin.hidden && policy.category == twin.category && policy.titles == twin.titles)
        }
        // General keeps the in-app controls and leaves out the container-level ones.
        #expect(general.policy(named: "DisableCamera") != nil)
        #expect(general.policy(named: "CutAndCopy") != nil)
        for name in ["NetworkAccess", "EnableEncryption", "EncryptSecretsUsingPasscode", "RequireMicroVPNSession"] {
            #expect(general.policy(named: name) == nil, "\(name)")
        }
    }
}
