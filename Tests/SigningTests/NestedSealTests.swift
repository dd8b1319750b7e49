import Foundation
import Testing
import TestSupport

/// A framework swapped for another, validly signed one: the framework holds by itself, the app's
/// seal of it does not: `SIGNATURE_NESTED_MISMATCH`, one finding for the framework.
@Suite struct NestedSealTests {
    @Test func aFrameworkResignedAloneIsANestedMismatch() throws {
        let scratch = try ScratchDirectory("sign-nested")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let signed = scratch.path("signed.ipa")
        #expect(try SignCommandTests.sign(input, signed, scratch).status == 0)
        try SigcheckOracle.expectAccepted(signed)

        // The same app with one more file in the framework: the framework's seal, and so its cdhash, differ.
        var other = SignCommandTests.app()
        other.nested[0].files["extra.dat"] = IPABuilder.File(data: [1, 2, 3])
        let otherInput = try scratch.write("Other.ipa", other.bytes())
        let otherSigned = scratch.path("other-signed.ipa")
        #expect(try SignCommandTests.sign(otherInput, otherSigned, scratch).status == 0)
        try SigcheckOracle.expectAccepted(otherSigned)

        let swapped = scratch.path("swapped.ipa")
        try ZipOracle.swapEntries(under: "Payload/Sample.app/Frameworks/Kit.framework/", of: signed, from: otherSigned, to: swapped)

        let verify = try Command.ipawrap(["verify", swapped, "--json"])
        #expect(verify.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        let errors = (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
            .map { "\($0["code"] as? String ?? "?") \($0["path"] as? String ?? "")" }
        // Apple's iOS rules2 have no `nested` rule that wins (today's have none; Xcode 7's `^` at
        // weight 20 beat the nested one at 10, see CodeResourcesTests), so codesign and ipawrap
        // seal a framework's files one by one, not by cdhash. The framework's files differ
        // from the app's seal while the framework holds by itself: one finding names the swap.
        #expect(errors == ["SIGNATURE_NESTED_MISMATCH Payload/Sample.app/Frameworks/Kit.framework"])
        let finding = (report["findings"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "SIGNATURE_NESTED_MISMATCH" }
        #expect((finding?["message"] as? String)?.contains("Kit was modified") == true, "\(String(describing: finding))")
        let bundles = report["bundles"] as? [[String: Any]] ?? []
        #expect(bundles.first { $0["kind"] as? String == "framework" }?["intact"] as? Bool == true)
    }
}
