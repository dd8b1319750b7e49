import Checks
import Foundation
import Reporting
import Signing
import SigningIdentity
import Testing
import TestSupport
import ToolData
import Wrapping

/// `sign` embeds the bytes of the profile `check` judged: the `ProfileSet` the command line loads
/// once, not the file read again at signing time.
@Suite struct ProfileSetSigningTests {
    static let tool = Report.Tool(name: "ipawrap", version: "test")

    /// An app ld64 would link (room for `LC_CODE_SIGNATURE`), with the committed app profile's bundle ID.
    static func app() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        return builder
    }

    @Test func theEmbeddedProfileIsTheOneCheckedWhateverTheFileBecomes() throws {
        let scratch = try ScratchDirectory("profile-set-sign")
        let input = try scratch.write("Sample.ipa", Self.app().bytes())
        let checked = try ProfileBuilder.signingFixture(.app)
        let file = try scratch.write("app.mobileprovision", checked)
        let profiles = try ProfileSet(appProfile: file)
        #expect(profiles.app?.bytes == checked)

        // After loading, the file becomes another valid profile for the same App ID (development,
        // get-task-allow), then disappears: neither may reach the output.
        let other = try ProfileBuilder.signingFixture(.appDevelopment)
        try scratch.write("app.mobileprovision", other)
        let identity = try SigningIdentity(
            pkcs12File: SigningFixtures.PKCS12.openssl.path, password: Array(SigningFixtures.password.utf8))
        let request = SigningRequest(identity: identity, signingTime: Date(timeIntervalSince1970: 1_767_225_600))
        let checks = CheckOptions(profiles: profiles, evaluationDate: Date(timeIntervalSince1970: 1_780_000_000))
        let data = try RepositoryTemplates.toolData()

        let first = scratch.path("first.ipa")
        let outcome = try Resigner.sign(input: input, output: first, checks: checks, toolData: data, signing: request, tool: Self.tool)
        #expect(outcome.written, "\(outcome.report.findings.map(\.code))")
        #expect(try ZipOracle.read("Payload/Sample.app/embedded.mobileprovision", of: first) == checked)

        try FileManager.default.removeItem(atPath: file)
        let second = scratch.path("second.ipa")
        #expect(try Resigner.sign(input: input, output: second, checks: checks, toolData: data, signing: request, tool: Self.tool).written)
        #expect(try Fixtures.bytesAt(second) == Fixtures.bytesAt(first))
        #expect(other != checked)
    }
}

/// What `sign` reports of the signatures it made is what `inspect` reads back from its output.
@Suite struct SignedBundleFactsTests {
    @Test func theSignedBundlesAreWhatInspectReadsBack() throws {
        let scratch = try ScratchDirectory("signed-facts")
        var builder = ProfileSetSigningTests.app()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.nested[0].executable = IPABuilder.executable(fileType: 6, minimumOS: "9.0") { $0.headerPadding = 1024 }
        let input = try scratch.write("Sample.ipa", builder.bytes())
        let profile = try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app))
        let identity = try SigningIdentity(
            pkcs12File: SigningFixtures.PKCS12.openssl.path, password: Array(SigningFixtures.password.utf8))
        let data = try RepositoryTemplates.toolData()
        let output = scratch.path("signed.ipa")
        let outcome = try Resigner.sign(
            input: input, output: output,
            checks: CheckOptions(profiles: try ProfileSet(appProfile: profile), evaluationDate: Date(timeIntervalSince1970: 1_780_000_000)),
            toolData: data, signing: SigningRequest(identity: identity, signingTime: Date(timeIntervalSince1970: 1_767_225_600)),
            tool: ProfileSetSigningTests.tool)
        let signed = try #require(outcome.signedBundles)
        #expect(signed.map(\.path) == ["Payload/Sample.app", "Payload/Sample.app/Frameworks/Kit.framework"])
        // An iOS 9 framework gets SHA-1 and SHA-256 CodeDirectories, the iOS 15 app SHA-256 alone.
        #expect(signed.map { $0.signature?.hashTypes ?? [] } == [["SHA-256"], ["SHA-1", "SHA-256"]])
        #expect(signed.allSatisfy { $0.signature?.teamId == "ABCDE12345" })
        let readBack = try Inspector.inspect(path: output, toolData: data, tool: ProfileSetSigningTests.tool).report.bundles
        #expect(signed == readBack)

        // An error finding (no profile for the app): nothing written, nothing signed.
        builder.profile = nil
        let refused = try Resigner.sign(
            input: try scratch.write("Unprovisioned.ipa", builder.bytes()), output: scratch.path("refused.ipa"),
            checks: CheckOptions(), toolData: data,
            signing: SigningRequest(identity: identity, signingTime: Date(timeIntervalSince1970: 1_767_225_600)),
            tool: ProfileSetSigningTests.tool)
        #expect(refused.report.findings.contains { $0.code == "PROFILE_MISSING" })
        #expect(!refused.written && refused.signedBundles == nil)
    }
}

