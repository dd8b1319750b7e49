import Foundation
import Testing
import TestSupport

/// Ctrl-C and SIGTERM in the middle of a batch: no new input starts, finished outputs stay,
/// unfinished ones leave nothing, and the exit status says the batch was interrupted.
@Suite(.serialized) struct BatchInterruptTests {
    /// A folder of `count` names for one ~6 MB app (hard links: no disk cost), and the bytes a
    /// single `ipawrap wrap` (or, with `command`, another command that writes an app) writes for it.
    private func inputs(
        _ scratch: ScratchDirectory, count: Int, command: [String] = ["wrap"]
    ) throws -> (folder: String, wrapped: [UInt8]) {
        var builder = IPABuilder(appName: "Big")
        builder.addPrimaryIcon()
        // Room for a signature, as ld64 leaves it.
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        // Incompressible, so each wrap copies 6 MB.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        builder.addFile("Data/blob.bin", [UInt8](try #require(try random.read(upToCount: 6 << 20))))
        try random.close()
        let source = try scratch.write("source/Big.ipa", builder.bytes())
        let folder = scratch.path("apps")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            try #require(link(source, folder + String(format: "/App%03d.ipa", index)) == 0)
        }
        let reference = scratch.path("source/reference.ipa")
        #expect(try Command.ipawrap([command[0], source, "-o", reference] + command.dropFirst()).status == 0)
        return (folder, try Fixtures.bytesAt(reference))
    }

    /// `batch sign`'s options: the committed identity and app profile, a fixed signing time.
    private func signing(_ scratch: ScratchDirectory) throws -> [String] {
        let password = try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        let profile = try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app))
        return ["--identity", SigningFixtures.PKCS12.openssl.path, "--password-file", password, "--profile", profile,
                "--signing-time", "1767225600"]
    }

    @Test(arguments: [("wrap", SIGINT, Int32(130)), ("wrap", SIGTERM, Int32(143)), ("sign", SIGINT, Int32(130))])
    func interruptedBatchesLeaveOnlyCompleteOutputs(command: String, signal: Int32, status: Int32) throws {
        let scratch = try ScratchDirectory("batch-interrupt")
        let count = 120
        let options = command == "sign" ? try signing(scratch) : []
        let (folder, wrapped) = try inputs(scratch, count: count, command: [command] + options)
        let out = scratch.path("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.ipawrapPath)
        process.arguments = ["batch", command, folder, "--out-dir", out, "--jobs", "2", "--json-lines"] + options
        try #require(FileManager.default.createFile(atPath: scratch.path("stdout"), contents: nil))
        try #require(FileManager.default.createFile(atPath: scratch.path("stderr"), contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("stdout")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("stderr")))
        try process.run()

        // Interrupt as soon as the first output has appeared.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, process.isRunning,
              (try? FileManager.default.contentsOfDirectory(atPath: out))?.contains(where: { !$0.hasPrefix(".") }) != true {
            usleep(2000)
        }
        try #require(process.isRunning, "the batch ended before it could be interrupted")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()

        let stderr = String(decoding: try Fixtures.bytesAt(scratch.path("stderr")), as: UTF8.self)
        #expect(process.terminationReason == .exit, "\(stderr)")
        #expect(process.terminationStatus == status, "\(stderr)")
        #expect(stderr.contains("interrupted after"), "\(stderr)")

        // Only complete outputs: each is the exact bytes of a single wrap; nothing hidden, nothing partial.
        let present = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(present.allSatisfy { !$0.hasPrefix(".") }, "\(present)")
        #expect(!present.isEmpty)
        #expect(present.count < count, "the batch was not interrupted")
        for name in present {
            #expect(try Fixtures.bytesAt(out + "/" + name) == wrapped, "\(name)")
        }
        // Every line printed is a whole record, for an output that is there.
        let lines = String(decoding: try Fixtures.bytesAt(scratch.path("stdout")), as: UTF8.self).split(separator: "\n")
        for line in lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let output = try #require(record["output"] as? String)
            #expect(present.contains(URL(fileURLWithPath: output).lastPathComponent))
        }
        #expect(lines.count <= present.count)
    }
}
