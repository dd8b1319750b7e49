import Foundation
import Testing
import TestSupport

/// Issue 27, class 10: the smaller ones, each a wrong or missing word. Every case is run with its
/// exact code, exit status and a bound on processor time and memory.
@Suite struct SigningWordsTests {
    static func run(_ arguments: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) throws -> Command.Result {
        let run = try TimeLimitRun.ipawrap(arguments)
        run.expectBounded(
            processorSeconds: 15, memoryBytes: 256 << 20, sanitized: ResourceLimitTests.sanitized,
            arguments.prefix(2).joined(separator: " "), sourceLocation: sourceLocation)
        return run.result
    }

    /// A signable app, its profile and the test identity's password file, in `scratch`.
    static func signable(_ scratch: ScratchDirectory) throws -> (input: String, profile: String, password: String) {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        return (try scratch.write("Sample.ipa", try builder.bytes()),
                try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app)),
                try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8)))
    }

    /// The usage asks for a password source beside `--identity`; none is a usage error, not an
    /// empty password tried and reported wrong.
    @Test func anIdentityWithoutAPasswordSourceIsAUsageError() throws {
        let scratch = try ScratchDirectory("signing-words")
        let app = try Self.signable(scratch)
        let p12 = SigningFixtures.PKCS12.openssl.path
        let result = try Self.run(["sign", app.input, "-o", scratch.path("out.ipa"), "--identity", p12, "--profile", app.profile])
        #expect(result.status == 64)
        #expect(result.stderr == "ipawrap: error[SIGN_IDENTITY_OPTIONS]: --identity \(p12) needs its password, and no --password-file "
                    + "or --password-env was given; pass one (an empty one for a file exported without a password)\n", "\(result.stderr)")
        #expect(scratch.listing() == ["Sample.ipa", "app.mobileprovision", "password.txt"])
    }

    /// A negative number is refused for what it is, not as a missing value (the parser would take
    /// `-1` for an option): each option that takes a number.
    @Test(arguments: [
        (["sign", "App.ipa", "-o", "out.ipa", "--signing-time", "-1"],
         "--signing-time expects seconds since 1970 (a whole number, 0 or more), got '-1' (see 'ipawrap sign --help')"),
        (["wrap", "App.ipa", "-o", "out.ipa", "--timestamp", "-1"],
         "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '-1' (see 'ipawrap wrap --help')"),
        (["repack", "App.ipa", "-o", "out.ipa", "--timestamp", "-1"],
         "--timestamp expects 'latest', 'now' or seconds since 1970 (a whole number, 0 or more), got '-1' (see 'ipawrap repack --help')"),
        (["inspect", "App.ipa", "--time-limit", "-1"], "--time-limit must be a positive number of seconds (see 'ipawrap inspect --help')"),
        (["inspect", "App.ipa", "--max-entries", "-5"], "--max-entries must be at least 1 (see 'ipawrap inspect --help')"),
        (["inspect", "App.ipa", "--max-ratio", "-1"], "The value '-1' is invalid for '--max-ratio <max-ratio>' (see 'ipawrap inspect --help')"),
        (["inspect", "App.ipa", "--max-memory", "-1M"], "The value '-1M' is invalid for '--max-memory <size>' (see 'ipawrap inspect --help')"),
        (["batch", "inspect", "apps", "--jobs", "-1"], "--jobs expects a number from 1 to 1024, got -1 (see 'ipawrap batch inspect --help')"),
        (["batch", "inspect", "apps", "--shard", "-1/4"],
         "The value '-1/4' is invalid for '--shard <I/N>': expects I/N with 1 <= I <= N (e.g. 2/4) (see 'ipawrap batch inspect --help')"),
    ])
    func aNegativeNumberGetsARealMessage(_ arguments: [String], _ message: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "ipawrap: error[USAGE]: \(message)\n", "\(result.stderr)")
    }

    /// A well-formed developer certificate with a 1024-bit RSA key says what is wrong with it.
    @Test(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
    func anRSA1024DeveloperCertificateSaysItsKeyIsTooSmall() throws {
        let scratch = try ScratchDirectory("signing-words")
        let (pem, _) = try SigningFixtures.writeSelfSigned(in: scratch, named: "weak", keyArguments: ["-newkey", "rsa:1024"])
        let der = scratch.path("weak.cer")
        try SigningFixtures.openssl(["x509", "-in", pem, "-outform", "DER", "-out", der])
        var builder = ProfileBuilder()
        builder.developerCertificates = [try Fixtures.bytesAt(der)]
        let profile = try scratch.write("weak.mobileprovision", try builder.signed())
        let result = try Self.run(["profile", "show", profile, "--json", "--at", "2026-06-01"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let messages = (summary["findings"] as? [[String: Any]] ?? [])
            .filter { $0["code"] as? String == "PROFILE_CERTIFICATE_INVALID" }.compactMap { $0["message"] as? String }
        #expect(messages.count == 1 && messages.allSatisfy {
            $0.contains("DeveloperCertificates entry 1 has a 1024-bit RSA key: too small; code signing needs 2048 bits or more")
        }, "\(messages)")
    }

    /// Every command that exits 1 on error findings ends with the one-line error form scripts
    /// grep, `ipawrap: error[ERROR_FINDINGS]: FILE: …`, naming each error code once.
    @Test func exitingOnErrorFindingsEndsWithTheErrorLine() throws {
        let scratch = try ScratchDirectory("signing-words")
        let app = try Self.signable(scratch)
        // No icon: an error finding for check and wrap (a wrapping rule, a warning for sign).
        let bare = try scratch.write("Bare.ipa", try IPABuilder().bytes())
        // No executable: an error finding for sign too.
        var withoutExecutable = IPABuilder()
        withoutExecutable.executable = nil
        let empty = try scratch.write("Empty.ipa", try withoutExecutable.bytes())
        let expired = try scratch.write("expired.mobileprovision", try Fixtures.bytes("profiles/generated/expired.mobileprovision"))
        let identity = ["--identity", SigningFixtures.PKCS12.openssl.path, "--password-file", app.password]
        let cases: [([String], String)] = [
            (["check", bare], "\(bare): the check failed because of ICON_NOT_FOUND"),
            (["check", bare, "--json"], "\(bare): the check failed because of ICON_NOT_FOUND"),
            (["wrap", bare, "-o", scratch.path("out.ipa")], "\(bare): not wrapped because of ICON_NOT_FOUND; nothing was written"),
            (["sign", empty, "-o", scratch.path("out.ipa")] + identity + ["--profile", app.profile],
             "\(empty): not signed because of EXECUTABLE_MISSING; nothing was written"),
            // The builder's app carries a stand-in CodeResources: verify's codes may be several.
            (["verify", app.input], "\(app.input): not intact because of SIGNATURE_MISSING"),
            (["profile", "show", expired, "--check"], "\(expired): the check failed because of PROFILE_EXPIRED"),
        ]
        for (arguments, message) in cases {
            let result = try Self.run(arguments)
            #expect(result.status == 1, "\(arguments.prefix(2)): \(result.stderr)")
            let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
            let expected = "ipawrap: error[ERROR_FINDINGS]: \(message)"
            #expect(arguments[0] == "verify" ? last.hasPrefix(expected) : last == expected, "\(arguments.prefix(2)): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }
}
