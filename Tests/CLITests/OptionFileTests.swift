import Foundation
import Testing
import TestSupport

/// Issue 27, classes 7 and 10: the files options name (a `batch --from` list, a password file,
/// an entitlements file) follow the rule every input follows: a regular file, opened without
/// blocking and looked at before any read. A FIFO nobody writes to is refused at once (the run
/// is killed as a hang after 120 s), `/dev/zero` is not read without end, and each is named for
/// what it is, with the command's code and exit status.
@Suite struct OptionFileTests {
    /// Something that is not a regular file, and how the error names it.
    struct Special: Sendable, CustomTestStringConvertible {
        let kind: String
        let words: String
        var testDescription: String { kind }
    }

    static let specials = [
        Special(kind: "fifo", words: "it is a FIFO, not a regular file"),
        Special(kind: "device", words: "it is a character device, not a regular file"),
        Special(kind: "folder", words: "it is a folder, not a regular file"),
        Special(kind: "large", words: "it is larger than 1048576 bytes"),
    ]

    /// A file of `special`'s kind in `scratch` (the device is `/dev/zero`).
    static func make(_ special: Special, in scratch: ScratchDirectory) throws -> String {
        switch special.kind {
        case "fifo":
            let path = scratch.path("named.fifo")
            try #require(mkfifo(path, 0o644) == 0)
            return path
        case "device":
            return "/dev/zero"
        case "folder":
            let path = scratch.path("a-folder")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            return path
        default:
            // Over the option files' 1 MiB, and over a list's 64 MiB for `--from` (sparse).
            let path = try scratch.write("large.txt", [])
            try #require(truncate(path, (64 << 20) + 1) == 0)
            return path
        }
    }

    static func run(_ arguments: [String], stdin: [UInt8]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Command.Result {
        let run = try TimeLimitRun.ipawrap(bytes: arguments.map { Array($0.utf8) }, stdin: stdin)
        run.expectBounded(
            processorSeconds: 10, memoryBytes: 256 << 20, sanitized: ResourceLimitTests.sanitized,
            arguments.prefix(2).joined(separator: " "), sourceLocation: sourceLocation)
        return run.result
    }

    // MARK: batch --from (class 7)

    @Test(arguments: specials)
    func aBatchListThatIsNotARegularFileIsRefusedWithoutBlocking(_ special: Special) throws {
        let scratch = try ScratchDirectory("option-file")
        let list = try Self.make(special, in: scratch)
        let result = try Self.run(["batch", "inspect", "--from", list])
        #expect(result.status == 74, "\(result.stderr)")
        let words = special.kind == "large" ? "it is larger than 64 MiB"
            : special.words + (special.kind == "fifo" ? "; to read the list from a pipe, give --from -" : "")
        #expect(result.stderr == "ipawrap: error[BATCH_LIST_UNREADABLE]: \(list): the input list cannot be read: \(words)\n",
                "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func aListFromAPipeIsStandardInput() throws {
        let scratch = try ScratchDirectory("option-file")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        let ipa = try scratch.write("Listed.ipa", try builder.bytes())
        let result = try Self.run(["batch", "inspect", "--from", "-", "--json-lines"], stdin: Array("# from a pipe\n\(ipa)\n".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let inputs = result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["input"] as? String
        }
        #expect(inputs == [ipa], "\(result.stdout)")
    }

    // MARK: sign's password and entitlements files (class 10)

    /// `sign` of a signable app with the test identity and profile, plus `extra`; the password
    /// file is `password` when given.
    static func sign(_ scratch: ScratchDirectory, password: String? = nil, extra: [String]) throws -> Command.Result {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        let input = try scratch.write("Sample.ipa", try builder.bytes())
        let profile = try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app))
        let passwordFile = try password ?? scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        return try run(
            ["sign", input, "-o", scratch.path("out.ipa"), "--identity", SigningFixtures.PKCS12.openssl.path,
             "--password-file", passwordFile, "--profile", profile, "--signing-time", "1767225600"] + extra)
    }

    @Test(arguments: specials)
    func anEntitlementsFileThatIsNotARegularFileIsNamedForWhatItIs(_ special: Special) throws {
        let scratch = try ScratchDirectory("option-file")
        let file = try Self.make(special, in: scratch)
        let result = try Self.sign(scratch, extra: ["--entitlements", "com.example.sample=" + file])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr == "ipawrap: error[SIGN_ENTITLEMENTS_FILE]: \(file): cannot be read: \(special.words); "
                    + "name a regular file holding the entitlements as an XML plist\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }

    @Test(arguments: specials)
    func aPasswordFileThatIsNotARegularFileIsNamedForWhatItIs(_ special: Special) throws {
        let scratch = try ScratchDirectory("option-file")
        let file = try Self.make(special, in: scratch)
        let result = try Self.sign(scratch, password: file, extra: [])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr == "ipawrap: error[SIGN_IDENTITY_OPTIONS]: --password-file \(file): cannot be read: \(special.words); "
                    + "name a regular file whose first line is the password\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }
}
