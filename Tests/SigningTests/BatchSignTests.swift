import Foundation
import Testing
import TestSupport

/// `batch sign` and `batch wrap --sign` through the command line: every output is what the
/// single-file command writes, passes `ipawrap verify` and `sigcheck.py`, and the identity and
/// profiles are read once, before the first input.
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

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// 50 apps (every fifth with an extension) and one for which no profile fits, listed on
    /// standard input: the batch reads its list only after it has read the identity and the
    /// profiles, and the test removes them as soon as it reads, so an input that read them again
    /// would fail.
    @Test func fiftyAppsAreSignedWithTheIdentityAndProfilesReadOnce() throws {
        let scratch = try ScratchDirectory("batch-sign")
        var inputs: [String] = []
        for index in 0..<50 {
            let name = String(format: "App%02d", index)
            inputs.append(try scratch.write("apps/\(name).ipa", Self.app(name, withExtension: index % 5 == 0).bytes()))
        }
        inputs.insert(try scratch.write("apps/Other.ipa", Self.app("Other", bundleIdentifier: "com.other.app").bytes()), at: 7)
        let secrets = try Self.secrets(in: scratch, folder: "secrets")
        let out = scratch.path("out")
        let report = scratch.path("report.html")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.ipawrapPath)
        process.arguments = ["batch", "sign", "--from", "-", "--out-dir", out, "--jobs", "2", "--json-lines", "--report", report,
                             "--signing-time", SignCommandTests.signingTime] + secrets
        let list = Pipe()
        process.standardInput = list
        try #require(FileManager.default.createFile(atPath: scratch.path("stdout"), contents: nil))
        try #require(FileManager.default.createFile(atPath: scratch.path("stderr"), contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("stderr")))
        try process.run()
        // A comment line first: once the pipe holds no byte, the batch has begun reading its list.
        let writer = list.fileHandleForWriting.fileDescriptor
        #expect(write(writer, "#\n", 2) == 2)
        var unread: Int32 = 2
        let deadline = Date().addingTimeInterval(120)
        while unread > 0, process.isRunning, Date() < deadline {
            guard ioctl(writer, UInt(FIONREAD), &unread) == 0 else { break }
            if unread > 0 { usleep(2000) }
        }
        func stderr() -> String { String(decoding: (try? Fixtures.bytesAt(scratch.path("stderr"))) ?? [], as: UTF8.self) }
        try #require(unread == 0 && process.isRunning, "the batch never read its list: \(stderr())")
        try FileManager.default.removeItem(atPath: scratch.path("secrets"))
        let text = Array((inputs.joined(separator: "\n") + "\n").utf8)
        #expect(text.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == text.count)
        try list.fileHandleForWriting.close()
        process.waitUntilExit()

        // One input failed (exit 1 for it, and for the batch); the others are signed.
        #expect(process.terminationStatus == 1, "\(stderr())")
        let records = try Self.jsonLines(String(decoding: try Fixtures.bytesAt(scratch.path("stdout")), as: UTF8.self))
        #expect(records.map { $0["input"] as? String } == inputs)
        let other = records[7]
        #expect(other["exitCode"] as? Int == 1 && other["output"] is NSNull && other["signed"] is NSNull)
        let findings = ((other["report"] as? [String: Any])?["findings"] as? [[String: Any]]) ?? []
        #expect(findings.contains { $0["code"] as? String == "PROFILE_MISSING" && $0["severity"] as? String == "error" })
        let signed = records.enumerated().filter { $0.offset != 7 }.map(\.element)
        for record in signed {
            let name = record["name"] as? String ?? "?"
            #expect(record["exitCode"] as? Int == 0, "\(name): \(record["failure"] ?? "")")
            let bundles = record["signed"] as? [[String: Any]] ?? []
            let withExtension = Int(name.dropFirst(3).prefix(2)).map { $0 % 5 == 0 } ?? false
            #expect(bundles.count == (withExtension ? 2 : 1), "\(name)")
            for bundle in bundles {
                let signature = bundle["signature"] as? [String: Any] ?? [:]
                #expect(signature["teamId"] as? String == "ABCDE12345", "\(name)")
                #expect(signature["hashTypes"] as? [String] == ["SHA-256"], "\(name)")
            }
            let profiles = (record["report"] as? [String: Any])?["profiles"] as? [[String: Any]] ?? []
            #expect(profiles.map { $0["source"] as? String } == Array(repeating: "directory", count: bundles.count), "\(name)")
        }
        let outputs = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(outputs == (0..<50).map { String(format: "App%02d.ipa", $0) })

        // Each output passes verify and the independent checker.
        for name in outputs {
            try SignCommandTests.expectVerifies(out + "/" + name)
            if SigcheckOracle.isAvailable {
                #expect(try SigcheckOracle.problemsWithTestCA(in: out + "/" + name) == [], "\(name)")
            }
        }
        // And is what `ipawrap sign` writes for that input.
        let oracle = try Self.secrets(in: scratch, folder: "again")
        for name in ["App00.ipa", "App01.ipa"] {
            let single = scratch.path("single-" + name)
            let result = try Command.ipawrap(
                ["sign", scratch.path("apps/" + name), "-o", single, "--signing-time", SignCommandTests.signingTime] + oracle)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Fixtures.bytesAt(single) == Fixtures.bytesAt(out + "/" + name), "\(name)")
        }
        // The report shows each app's signature.
        let html = String(decoding: try Fixtures.bytesAt(report), as: UTF8.self)
        #expect(html.contains(">Signature<") && html.contains("team ABCDE12345"))
        #expect(html.contains("profile share.mobileprovision (directory)"))
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
