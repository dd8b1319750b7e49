import Checks
import Foundation
import Policy
import Reporting
import Testing
import TestSupport
import ToolData
import Wrapping

@Suite struct PolicyBundleTests {
    @Test func wrapsThroughTheLibraryAndReportsWhatItDid() throws {
        let scratch = try ScratchDirectory("wrap-lib")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let request = WrapRequest(
            input: input, output: scratch.path("out.ipa"), template: "general",
            overrides: [try PolicyOverride(argument: "DisableCamera=true")], toolData: try RepositoryTemplates.toolData())
        let outcome = try Wrapper.wrap(request, tool: Report.Tool(name: "ipawrap", version: "test"))
        #expect(outcome.written)
        let policy = try #require(outcome.policy)
        #expect(policy.mode == .general)
        #expect(policy.changedPolicies == ["DisableCamera"])
        #expect(policy.sha256.count == 64)
        #expect(outcome.report.findings.map(\.code) == ["SIGNATURE_INVALIDATED"])
        let info = try #require(try PropertyListSerialization.propertyList(from: Data(try policy.infoPlist(tool: "t")), format: nil) as? [String: String])
        #expect(info["MDXPolicySHA256"] == policy.sha256)
        #expect(info["CFBundlePackageType"] == "BNDL")
    }

    @Test func anUnsignedAppIsNotWarnedAboutItsSignature() throws {
        let scratch = try ScratchDirectory("wrap-lib")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.signed = false
        let request = WrapRequest(
            input: try scratch.write("Sample.ipa", builder.bytes()), output: scratch.path("out.ipa"),
            toolData: try RepositoryTemplates.toolData())
        let outcome = try Wrapper.wrap(request, tool: Report.Tool(name: "ipawrap", version: "test"))
        #expect(outcome.written)
        #expect(outcome.report.findings.isEmpty)
    }
}
