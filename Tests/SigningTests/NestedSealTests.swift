import Foundation
import Testing
import TestSupport

/// A framework swapped for another, validly signed one: the framework holds by itself, the app's
/// seal of it does not. With nested code sealed by cdhash (as codesign does) that is
/// `SIGNATURE_NESTED_MISMATCH`.
@Suite struct NestedSealTests {
    @Test func aFrameworkResignedAloneIsANestedMismatch() throws {
        let scratch = try ScratchDirectory("sign-nested")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let signed = scratch.path("signed.ipa")
        #expect(try SignCommandTests.sign(input, signed, scratch).status == 0)

        // The same app with one more file in the framework: the framework's seal, and so its cdhash, differ.
        var other = SignCommandTests.app()
        other.nested[0].files["extra.dat"] = IPABuilder.File(data: [1, 2, 3])
        let otherInput = try scratch.write("Other.ipa", other.bytes())
        let otherSigned = scratch.path("other-signed.ipa")
        #expect(try SignCommandTests.sign(otherInput, otherSigned, scratch).status == 0)

        let swapped = scratch.path("swapped.ipa")
        let script = """
            import sys, zipfile
            source, target, alternative = sys.argv[1], sys.argv[2], sys.argv[3]
            prefix = "Payload/Sample.app/Frameworks/Kit.framework/"
            alt = zipfile.ZipFile(alternative)
            with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
                for info in zin.infolist():
                    if not info.filename.startswith(prefix):
                        zout.writestr(info, zin.read(info))
                for info in alt.infolist():
                    if info.filename.startswith(prefix):
                        zout.writestr(info, alt.read(info))
            """
        let result = try Command.run("python3", ["-c", script, signed, swapped, otherSigned])
        try #require(result.status == 0, "\(result.stderr)")

        let verify = try Command.ipawrap(["verify", swapped, "--json"])
        #expect(verify.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        let errors = (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
            .map { "\($0["code"] as? String ?? "?") \($0["path"] as? String ?? "")" }
        // Today the signer seals a nested bundle file by file (as zsign does), so the swap shows as
        // broken and unsealed files; Apple's rules seal it as nested code by cdhash, which the
        // verifier checks but the signer does not write yet (issue 17).
        #expect(errors.contains("SIGNATURE_SEAL_BROKEN Payload/Sample.app/Frameworks/Kit.framework/Kit"))
        withKnownIssue("ipawrap sign does not yet seal nested code by cdhash") {
            #expect(errors == ["SIGNATURE_NESTED_MISMATCH Payload/Sample.app/Frameworks/Kit.framework"])
        }
        let bundles = report["bundles"] as? [[String: Any]] ?? []
        #expect(bundles.first { $0["kind"] as? String == "framework" }?["intact"] as? Bool == true)
    }
}
