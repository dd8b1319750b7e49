import Foundation
import Testing
import TestSupport

/// The sample app the README's first command wraps: it wraps with exactly one warning, and the
/// committed file is what its generator (Scripts/make-sample) writes today.
@Suite struct SampleAppTests {
    static let sample = Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path
    static let generator = Command.builtProductPath("sample-generator")

    @Test func theSampleWrapsWithOnlyTheSignatureWarning() throws {
        let scratch = try ScratchDirectory("sample")
        let before = try Fixtures.bytesAt(Self.sample)
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap(["wrap", Self.sample, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Findings: 0 errors, 1 warning"), "\(result.stdout)")
        let findings = result.stdout.split(separator: "\n").filter { line in
            ["error", "warning", "info"].contains { line.hasPrefix("  \($0) ") }
        }
        #expect(findings.count == 1, "\(result.stdout)")
        #expect(findings.first?.hasPrefix("  warning SIGNATURE_INVALIDATED: Payload/Sample.app is signed") == true, "\(findings)")
        #expect(result.stdout.contains("Wrapped \(Self.sample) into \(output) (ipa, "))

        // The report as JSON agrees: one finding, that warning.
        let json = try Command.ipawrap(["wrap", Self.sample, "-o", scratch.path("json.ipa"), "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let all = try #require(report["findings"] as? [[String: Any]])
        #expect(all.map { "\($0["severity"] as? String ?? "?") \($0["code"] as? String ?? "?")" } == ["warning SIGNATURE_INVALIDATED"])

        #expect(try ZipOracle.unzipTest(output).status == 0)
        #expect(try Fixtures.bytesAt(Self.sample) == before)
        #expect(scratch.listing() == ["json.ipa", "out.ipa"])
    }

    /// The README's "real session" is what the first command prints today (with the output's
    /// path in the place of the README's).
    @Test func theREADMESessionIsWhatWrapPrints() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "A real session (`./Scripts/run-sample`):\n\n```\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let session = String(readme[start.upperBound..<end.lowerBound])
        let documentedOutput = ".build/samples/Sample.wrapped.ipa"
        try #require(session.hasPrefix("$ ipawrap wrap Samples/Sample.ipa -o \(documentedOutput)\n"))

        let scratch = try ScratchDirectory("sample")
        let output = scratch.path("Sample.wrapped.ipa")
        let result = try Command.run(
            "/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" wrap Samples/Sample.ipa -o \"$3\"", "sh",
                        Fixtures.packageRoot.path, Command.ipawrapPath, output])
        #expect(result.status == 0, "\(result.stderr)")
        let printed = "$ ipawrap wrap Samples/Sample.ipa -o \(documentedOutput)\n"
            + result.stdout.replacingOccurrences(of: output, with: documentedOutput)
        #expect(printed.trimmingCharacters(in: .newlines) == session, "the README's session is stale:\n\(printed)")
    }

    /// The README's signed session (`wrap --sign` of the sample with the test identity and
    /// profiles, then `verify` of the output) is what the two commands print today, run from the
    /// package root with the output in a scratch folder in the place of the README's.
    @Test func theREADMESignedSessionIsWhatWrapSignAndVerifyPrint() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "and `verify` on the result:\n\n```\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let session = String(readme[start.upperBound..<end.lowerBound])
        let commands = session.split(separator: "\n").filter { $0.hasPrefix("$ ipawrap ") }
            .map { $0.dropFirst("$ ipawrap ".count).split(separator: " ").map(String.init) }
        try #require(commands.count == 2 && commands[0].first == "wrap" && commands[1].first == "verify", "\(commands)")
        let documentedOutput = ".build/samples/Sample.signed.ipa"
        #expect(commands[0].contains(documentedOutput) && commands[1].contains(documentedOutput))

        let scratch = try ScratchDirectory("sample")
        let output = scratch.path("Sample.signed.ipa")
        var printed = ""
        for command in commands {
            let arguments = command.map { $0 == documentedOutput ? output : $0 }
            let result = try Command.run(
                "/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", Fixtures.packageRoot.path, Command.ipawrapPath] + arguments)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            printed += "$ ipawrap " + command.joined(separator: " ") + "\n" + result.stdout.replacingOccurrences(of: output, with: documentedOutput)
        }
        #expect(printed.trimmingCharacters(in: .newlines) == session, "the README's signed session is stale:\n\(printed)")
        // What the session shows is what an independent checker finds: every bundle signed.
        try SigcheckOracle.expectAccepted(output)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: generator), "sample-generator is not built beside the tests"))
    func theCommittedSampleIsWhatTheGeneratorWrites() throws {
        let scratch = try ScratchDirectory("sample")
        let output = scratch.path("Sample.ipa")
        let result = try Command.run(Self.generator, [output])
        #expect(result.status == 0, "\(result.stderr)")
        let generated = try Fixtures.bytesAt(output)
        let committed = try Fixtures.bytesAt(Self.sample)
        #expect(generated.count == committed.count)
        #expect(generated == committed, "Samples/Sample.ipa is stale: run Scripts/make-sample")
        // Deterministic: a second run writes the same bytes.
        #expect(try Command.run(Self.generator, [scratch.path("again.ipa")]).status == 0)
        #expect(try Fixtures.bytesAt(scratch.path("again.ipa")) == generated)
    }
}
