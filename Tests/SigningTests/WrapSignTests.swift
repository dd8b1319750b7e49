import Foundation
import Testing
import TestSupport
import Zip

/// `wrap --sign` is `wrap` then `sign`, in one archive write.
@Suite struct WrapSignTests {
    /// With a stored executable too, whose later entries both paths copy early (`EarlyTailCopyTests`).
    @Test(arguments: [false, true])
    func wrapSignEqualsWrapThenSignByteForByte(storedExecutable: Bool) throws {
        let scratch = try ScratchDirectory("wrap-sign")
        var app = SignCommandTests.app()
        app.storesExecutable = storedExecutable
        let input = try scratch.write("Sample.ipa", app.bytes())
        let profiles = try SignCommandTests.profileArguments(scratch)
        let signing = ["--signing-time", SignCommandTests.signingTime]
            + (try SignCommandTests.identityArguments(.openssl, scratch)) + profiles

        let onePass = scratch.path("one-pass.ipa")
        let wrapped = try Command.ipawrap(["wrap", input, "-o", onePass, "--sign"] + signing)
        #expect(wrapped.status == 0, "\(wrapped.stdout)\(wrapped.stderr)")
        #expect(!wrapped.stdout.contains("SIGNATURE_INVALIDATED"))

        let wrappedOnly = scratch.path("wrapped.ipa")
        let plain = try Command.ipawrap(["wrap", input, "-o", wrappedOnly] + profiles)
        #expect(plain.status == 0, "\(plain.stderr)")
        let twoPass = scratch.path("two-pass.ipa")
        let signed = try Command.ipawrap(["sign", wrappedOnly, "-o", twoPass] + signing)
        #expect(signed.status == 0, "\(signed.stdout)\(signed.stderr)")

        #expect(try Fixtures.bytesAt(onePass) == Fixtures.bytesAt(twoPass))
        // The policy bundle is sealed in the app's CodeResources.
        let seal = try Command.run("unzip", ["-p", onePass, "Payload/Sample.app/_CodeSignature/CodeResources"]).stdout
        #expect(seal.contains("MDXPolicy.bundle/policy_metadata.xml"))
        let listing = try SignedOutput(archive: ZipArchive(path: onePass))
        for (path, problem) in listing.problems { Issue.record("\(path): \(problem)") }
        try SignCommandTests.expectVerifies(onePass)
    }

    @Test func identityOptionsNeedSign() throws {
        let scratch = try ScratchDirectory("wrap-sign-usage")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let result = try Command.ipawrap(
            ["wrap", input, "-o", scratch.path("out.ipa")] + (try SignCommandTests.identityArguments(.openssl, scratch)))
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }
}
