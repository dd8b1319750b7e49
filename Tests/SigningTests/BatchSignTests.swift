import Foundation
import Testing
import TestSupport

/// `batch sign` and `batch wrap --sign` through the command line: every output is what the
/// single-file command writes and passes `ipawrap verify`, and the identity and profiles are
/// read before the first input.
@Suite struct BatchSignTests {
    /// A small signable app without an embedded profile (the profiles folder provides it), with a
    /// share extension when asked.
    static func app(_ name: String, bundleIdentifier: String = "com.example.sample", withExtension: Bool = false) -> IPABuilder {
        var builder = IPABuilder(appName: name, bundleIdentifier: bundleIdentifier)
        builder.addPrimaryIcon()
        builder.executable = SignCommandTests.executable()
        builder.profile = nil
        if withExtension {
            builder.addExtension("Share", bundleIdentifier: bundleIdentifier + ".share")
            builder.nested[0].executable = SignCommandTests.executable(fileType: 8)
        }
        return builder
    }

    /// The identity, its password and a profiles folder (the app's and the share extension's),
    /// written into `folder` of `scratch`.
    static func secrets(in scratch: ScratchDirectory, folder: String) throws -> [String] {
        let identity = try scratch.write(folder + "/identity.p12", SigningFixtures.PKCS12.openssl.bytes())
        let password = try scratch.write(folder + "/password.txt", Array((SigningFixtures.password + "\n").utf8))
        try scratch.write(folder + "/profiles/app.mobileprovision", ProfileBuilder.signingFixture(.app))
        try scratch.write(folder + "/profiles/share.mobileprovision", ProfileBuilder.signingFixture(.share))
        return ["--identity", identity, "--password-file", password, "--profiles-dir", scratch.path(folder + "/profiles")]
    }

    @Test func wrapSignOfEachInputIsWhatWrapSignWrites() throws {
        let scratch = try ScratchDirectory("batch-wrap-sign")
        try scratch.write("apps/A.ipa", Self.app("A", withExtension: true).bytes())
        try scratch.write("apps/B.ipa", Self.app("B").bytes())
        try scratch.write("apps/Other.ipa", Self.app("Other", bundleIdentifier: "com.other.app").bytes())
        let secrets = try Self.secrets(in: scratch, folder: "secrets")
        let out = scratch.path("out")
        let result = try Command.ipawrap(
            ["batch", "wrap", scratch.path("apps"), "--out-dir", out, "--sign", "--signing-time", SignCommandTests.signingTime,
             "--template", "general"] + secrets)
        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first { $0.contains("Other.ipa") }?.contains("not wrapped") == true, "\(result.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["A.ipa", "B.ipa"])
        for name in ["A.ipa", "B.ipa"] {
            let single = scratch.path("single-" + name)
            let wrapped = try Command.ipawrap(
                ["wrap", scratch.path("apps/" + name), "-o", single, "--sign", "--signing-time", SignCommandTests.signingTime,
                 "--template", "general"] + secrets)
            #expect(wrapped.status == 0, "\(wrapped.stderr)")
            #expect(try Fixtures.bytesAt(single) == Fixtures.bytesAt(out + "/" + name), "\(name)")
            try SignCommandTests.expectVerifies(out + "/" + name)
        }
        // Signing options need --sign, and batch sign needs an output folder.
        let unsigned = try Command.ipawrap(["batch", "wrap", scratch.path("apps"), "--out-dir", out] + secrets)
        #expect(unsigned.status == 64 && unsigned.stderr.contains("need --sign"), "\(unsigned.stderr)")
        let noOut = try Command.ipawrap(["batch", "sign", scratch.path("apps")] + secrets)
        #expect(noOut.status == 64 && noOut.stderr.contains("--out-dir"), "\(noOut.stderr)")
    }

    /// What the batch cannot start without is the batch's error, before any input: a wrong
    /// password, a profile that is not one.
    @Test func anIdentityOrProfileThatCannotBeReadStopsTheBatchBeforeAnyInput() throws {
        let scratch = try ScratchDirectory("batch-sign-refused")
        try scratch.write("apps/A.ipa", Self.app("A").bytes())
        var secrets = try Self.secrets(in: scratch, folder: "secrets")
        let out = scratch.path("out")
        let wrongPassword = try scratch.write("wrong.txt", Array("nope\n".utf8))
        var arguments = secrets
        arguments[3] = wrongPassword
        let refused = try Command.ipawrap(["batch", "sign", scratch.path("apps"), "--out-dir", out] + arguments)
        #expect(refused.status == 65 && refused.stderr.contains("error[IDENTITY_WRONG_PASSWORD]"), "\(refused.stderr)")
        try scratch.write("secrets/profiles/broken.mobileprovision", Array("not a profile".utf8))
        secrets = try Self.secrets(in: scratch, folder: "secrets")
        let broken = try Command.ipawrap(["batch", "sign", scratch.path("apps"), "--out-dir", out] + secrets)
        #expect(broken.status == 65 && broken.stderr.contains("broken.mobileprovision"), "\(broken.stderr)")
        #expect(broken.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
