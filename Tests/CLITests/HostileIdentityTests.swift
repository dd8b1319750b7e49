import Foundation
import Testing
import TestSupport

/// Issue 27, class 4, end to end: `sign` (and `wrap --sign`) with identities whose key
/// derivations are unbounded (2^31 − 1 iterations in the MAC, the certificates' encryption, the
/// key's, a PEM key's; more parts than the budget) is refused with its code and exit 65 before
/// any derivation runs, in bounded processor time and memory; and `--time-limit` covers loading
/// an identity that is within the bounds but slower than the limit.
@Suite(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed"))
struct HostileIdentityTests {
    static let password = SigningFixtures.password

    /// A signable app, its profile and the password file, in `scratch`.
    static func signable(_ scratch: ScratchDirectory) throws -> (input: String, profile: String, password: String) {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        return (try scratch.write("Sample.ipa", try builder.bytes()),
                try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app)),
                try scratch.write("password.txt", Array((password + "\n").utf8)))
    }

    static func run(_ arguments: [String], processorSeconds: Double = 5, sourceLocation: SourceLocation = #_sourceLocation) throws -> TimeLimitRun {
        let run = try TimeLimitRun.ipawrap(arguments)
        run.expectBounded(
            processorSeconds: processorSeconds, memoryBytes: 256 << 20, sanitized: ResourceLimitTests.sanitized,
            arguments.prefix(2).joined(separator: " "), sourceLocation: sourceLocation)
        return run
    }

    @Test(arguments: [
        ("mac", HostilePKCS12.Rewrite(macIterations: 2_147_483_647, recomputesMAC: false), "the MAC asks for 2147483647 iterations"),
        ("encrypted", .init(encryptedIterations: 2_147_483_647), "the encryption of part 1 of the file's contents asks for 2147483647 iterations"),
        ("key", .init(keyIterations: 2_147_483_647), "the private key's encryption asks for 2147483647 iterations"),
        ("many-parts", .init(encryptedIterations: 1_000_000, extraEncryptedParts: 8),
         "the file asks for 9004096 iterations of key derivation in all over 11 derivations"),
    ] as [(String, HostilePKCS12.Rewrite, String)])
    func anUnboundedIdentityIsRefusedBeforeItsDerivationsRun(_ name: String, _ rewrite: HostilePKCS12.Rewrite, _ words: String) throws {
        let scratch = try ScratchDirectory("hostile-identity")
        let app = try Self.signable(scratch)
        let p12 = scratch.path(name + ".p12")
        try HostilePKCS12.write(from: SigningFixtures.PKCS12.openssl.path, to: p12, password: Self.password, rewrite)
        for command in [["sign", app.input, "-o", scratch.path("out.ipa")], ["wrap", app.input, "-o", scratch.path("out.ipa"), "--sign"]] {
            let run = try Self.run(command + ["--identity", p12, "--password-file", app.password, "--profile", app.profile])
            #expect(run.result.status == 65, "\(run.result.stderr)")
            let line = run.result.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect(line.hasPrefix("ipawrap: error[IDENTITY_KEY_DERIVATION_LIMIT]: \(p12): \(words)"), "\(run.result.stderr)")
            // Refused before deriving: well under the quarter second one maximum derivation costs.
            #expect(run.processorSeconds < 2, "\(command[0]) used \(run.processorSeconds) s")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
        }
    }

    @Test func anUnboundedPEMKeyIsRefusedToo() throws {
        let scratch = try ScratchDirectory("hostile-identity")
        let app = try Self.signable(scratch)
        let encrypted = scratch.path("key.pem")
        try SigningFixtures.openssl([
            "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-iter", "2048", "-in", SigningFixtures.path("distribution.key.pem"),
            "-passout", "pass:" + Self.password, "-out", encrypted,
        ])
        let key = scratch.path("hostile.pem")
        try HostilePKCS12.write(from: encrypted, to: key, password: Self.password, .init(keyIterations: 2_147_483_647))
        let run = try Self.run([
            "sign", app.input, "-o", scratch.path("out.ipa"), "--certificate", SigningFixtures.path("distribution.pem"),
            "--key", key, "--password-file", app.password, "--profile", app.profile,
        ])
        #expect(run.result.status == 65)
        #expect(run.result.stderr.hasPrefix(
            "ipawrap: error[IDENTITY_KEY_DERIVATION_LIMIT]: \(key): the private key's encryption asks for 2147483647 iterations"),
            "\(run.result.stderr)")
        #expect(run.processorSeconds < 2)
    }

    /// An identity within the bounds (openssl's `-legacy -iter 1000000`: four million iterations
    /// of PKCS #12's KDF, a quarter of a second to a second) signs; under `--time-limit 0.05`
    /// (below any one machine's time for all of them) its loading stops at the next derivation
    /// after the deadline, with the time limit's code naming the file.
    @Test func theTimeLimitCoversLoadingTheIdentity() throws {
        let scratch = try ScratchDirectory("hostile-identity")
        let app = try Self.signable(scratch)
        let p12 = try SigningFixtures.writePKCS12(
            in: scratch, named: "slow.p12", key: SigningFixtures.path("distribution.key.pem"),
            certificate: SigningFixtures.path("distribution.pem"), chain: SigningFixtures.chainPEM, options: ["-legacy", "-iter", "1000000"])
        let arguments = ["sign", app.input, "-o", scratch.path("out.ipa"), "--identity", p12, "--password-file", app.password,
                         "--profile", app.profile, "--signing-time", "1767225600"]
        let limited = try Self.run(arguments + ["--time-limit", "0.05"])
        #expect(limited.result.status == 65, "\(limited.result.stderr)")
        #expect(limited.result.stderr == "ipawrap: error[ARCHIVE_TIME_LIMIT]: \(p12): loading the identity took longer than the limit "
                    + "of 0.05 s; raise --time-limit if the file is genuine\n", "\(limited.result.stderr)")
        limited.expectWithin(limit: 0.05, sanitized: ResourceLimitTests.sanitized, "sign with a slow identity")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))

        let unlimited = try Self.run(arguments, processorSeconds: 20)
        #expect(unlimited.result.status == 0, "\(unlimited.result.stderr)")
        print("theTimeLimitCoversLoadingTheIdentity: \(unlimited.processorSeconds) s of processor time to sign with the slow identity, "
              + "\(limited.processorSeconds) s under --time-limit 0.05")
    }
}
