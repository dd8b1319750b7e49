import Foundation
import Testing
import TestSupport

/// Inputs that made signing or verifying slow (issue 27, classes 5 and 6): each is answered in
/// time linear in its names, or refused with its code, and `--time-limit` holds.
@Suite struct DeepSigningTests {
    static let sanitized = ProcessInfo.processInfo.environment["IPAWRAP_SANITIZER"] != nil

    /// The signing test app with one more file, `depth` folders deep under `Frameworks/`, added by
    /// Python's zipfile (which lists no folders, so the central directory stays linear).
    static func appWithDeepEntry(depth: Int, in scratch: ScratchDirectory) throws -> String {
        let base = try scratch.write("base.ipa", SignCommandTests.app().bytes())
        let output = scratch.path("deep.ipa")
        let script = """
            import shutil, sys, zipfile
            shutil.copy(sys.argv[1], sys.argv[2])
            with zipfile.ZipFile(sys.argv[2], "a", zipfile.ZIP_DEFLATED) as z:
                z.writestr("Payload/Sample.app/Frameworks/" + "d/" * int(sys.argv[3]) + "x.txt", b"deep")
            """
        let result = try Command.run("python3", ["-c", script, base, output, String(depth)])
        try #require(result.status == 0, "\(result.stderr)")
        return output
    }

    @Test func aNameThirtyTwoThousandFoldersDeepSignsAndVerifiesInLinearTime() throws {
        let scratch = try ScratchDirectory("deep-sign")
        let input = try Self.appWithDeepEntry(depth: 32_700, in: scratch)
        let output = scratch.path("signed.ipa")
        let arguments = try ["sign", input, "-o", output, "--signing-time", SignCommandTests.signingTime]
            + SignCommandTests.identityArguments(.openssl, scratch) + SignCommandTests.profileArguments(scratch)
        let sign = try TimeLimitRun.ipawrap(arguments)
        #expect(sign.result.status == 0, "\(sign.result.stdout)\(sign.result.stderr)")
        sign.expectBounded(processorSeconds: 15, memoryBytes: 400 << 20, sanitized: Self.sanitized, "sign of a deep name")
        let verify = try TimeLimitRun.ipawrap(["verify", output])
        #expect(verify.result.status == 0, "\(verify.result.stdout)\(verify.result.stderr)")
        #expect(verify.processorSeconds < (Self.sanitized ? 60 : 15), "verify used \(verify.processorSeconds) s")
        // Under a short limit the same work stops within a second of it.
        let limited = try TimeLimitRun.ipawrap(arguments.map { $0 == output ? scratch.path("limited.ipa") : $0 } + ["--time-limit", "0.2"])
        #expect([0, 65].contains(limited.result.status), "\(limited.result.stderr)")
        if limited.result.status == 65 { #expect(limited.result.stderr.contains("error[ARCHIVE_TIME_LIMIT]")) }
        limited.expectWithin(limit: 0.2, sanitized: Self.sanitized, "sign of a deep name")
    }

    /// 1,000 extensions nested one inside the next: refused before any signature is read.
    @Test(arguments: ["inspect", "verify", "sign"])
    func aThousandNestedExtensionsAreRefusedAtOnce(_ command: String) throws {
        let scratch = try ScratchDirectory("deep-bundles")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        var path = ""
        for level in 0..<1_000 {
            path += (level == 0 ? "" : "/") + "PlugIns/E\(level).appex"
        }
        builder.addFile(path + "/Info.plist", Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        let input = try scratch.write("nested.ipa", builder.bytes())
        var arguments = [command, input]
        if command == "sign" {
            arguments += ["-o", scratch.path("out.ipa")] + (try SignCommandTests.identityArguments(.openssl, scratch))
        }
        let run = try TimeLimitRun.ipawrap(arguments)
        #expect(run.result.status == 65, "\(run.result.stderr)")
        #expect(run.result.stderr.contains("error[BUNDLE_NESTING_LIMIT]"), "\(run.result.stderr)")
        run.expectBounded(processorSeconds: 5, memoryBytes: 200 << 20, sanitized: Self.sanitized, "\(command) of 1,000 nested extensions")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }
}
