import Foundation
import Testing
import TestSupport

/// Issue 27, class 8: paths are bytes from `argv` to `open`. Real files on disk at paths holding
/// bytes that are not UTF-8 (FF FE, a CESU-8 lone surrogate) are read and written by every
/// command; a name inside an `.app` folder that cannot go into an IPA is refused, named in
/// escaped form. Python makes and checks the files by their bytes (an oracle that never decodes).
@Suite struct NonUTF8PathTests {
    static let notUTF8: [UInt8] = [0xFF, 0xFE]
    static let loneSurrogate: [UInt8] = [0xED, 0xA0, 0x80]

    /// `folder/name` as bytes.
    static func path(_ folder: String, _ name: [UInt8]) -> [UInt8] {
        Array(folder.utf8) + [UInt8(ascii: "/")] + name
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Writes `contents` at the byte path `path` (its folders made), as Python does with bytes.
    static func write(_ contents: [UInt8], at path: [UInt8]) throws {
        let script = """
            import os, sys
            path = bytes.fromhex(sys.argv[1])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as out:
                out.write(sys.stdin.buffer.read())
            """
        let result = try Command.run("python3", ["-c", script, hex(path)], input: contents)
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// The bytes of the file at the byte path `path`, or nil when there is none.
    static func contents(at path: [UInt8]) throws -> [UInt8]? {
        let script = """
            import os, sys
            path = bytes.fromhex(sys.argv[1])
            if os.path.isfile(path):
                sys.stdout.write(open(path, "rb").read().hex())
            else:
                sys.stdout.write("none")
            """
        let result = try Command.run("python3", ["-c", script, hex(path)])
        guard result.stdout != "none" else { return nil }
        var bytes: [UInt8] = []
        var characters = result.stdout.makeIterator()
        while let high = characters.next(), let low = characters.next() {
            bytes.append(try #require(UInt8(String([high, low]), radix: 16)))
        }
        return bytes
    }

    /// Runs `ipawrap` with byte arguments, bounded in processor time and memory.
    static func run(_ arguments: [[UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws -> Command.Result {
        let run = try TimeLimitRun.ipawrap(bytes: arguments)
        let label = arguments.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
        run.expectBounded(
            processorSeconds: 20, memoryBytes: 512 << 20, sanitized: ResourceLimitTests.sanitized, label,
            sourceLocation: sourceLocation)
        return run.result
    }

    static func words(_ text: String...) -> [[UInt8]] {
        text.map { Array($0.utf8) }
    }

    /// A signable app: an executable with room for `LC_CODE_SIGNATURE`, as ld64 links it.
    static func app() throws -> [UInt8] {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.executable = IPABuilder.executable { $0.headerPadding = 1024 }
        return try builder.bytes()
    }

    @Test func anIPAAtAPathThatIsNotUTF8IsReadWrittenSignedAndVerified() throws {
        let scratch = try ScratchDirectory("non-utf8-path")
        let folder = Self.path(scratch.path, Self.notUTF8)
        let input = folder + Array("/App-".utf8) + Self.notUTF8 + Array(".ipa".utf8)
        let bytes = try Self.app()
        try Self.write(bytes, at: input)
        let shown = scratch.path + "/\\xFF\\xFE/App-\\xFF\\xFE.ipa"

        let inspect = try Self.run(Self.words("inspect") + [input] + Self.words("--json"))
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        #expect((report["input"] as? [String: Any])?["path"] as? String == shown, "\(inspect.stdout.prefix(400))")
        #expect(Int((report["input"] as? [String: Any])?["size"] as? Int ?? 0) == bytes.count)

        let check = try Self.run(Self.words("check") + [input])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains(shown), "\(check.stdout)")

        // -o to a path that is not UTF-8 either: the file appears at exactly those bytes.
        let wrapped = folder + Array("/wrapped-".utf8) + Self.loneSurrogate + Array(".ipa".utf8)
        let wrap = try Self.run(Self.words("wrap") + [input] + Self.words("-o") + [wrapped])
        #expect(wrap.status == 0, "\(wrap.stdout)\(wrap.stderr)")
        let written = try #require(try Self.contents(at: wrapped), "wrap wrote nothing at the path's bytes")
        let copy = try scratch.write("wrapped.ipa", written)
        #expect(try ZipOracle.unzipTest(copy).status == 0)
        #expect(try ZipOracle.entries(copy).contains { $0.nameString.hasSuffix("MDXPolicy.bundle/policy_metadata.xml") })

        let password = try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        let profile = try scratch.write("app.mobileprovision", ProfileBuilder.signingFixture(.app))
        let signed = folder + Array("/signed-".utf8) + Self.notUTF8 + Array(".ipa".utf8)
        let sign = try Self.run(
            Self.words("sign") + [input] + Self.words("-o") + [signed]
                + Self.words("--identity", SigningFixtures.PKCS12.openssl.path, "--password-file", password,
                             "--profile", profile, "--signing-time", "1767225600"))
        #expect(sign.status == 0, "\(sign.stdout)\(sign.stderr)")
        #expect(try Self.contents(at: signed) != nil, "sign wrote nothing at the path's bytes")

        let verify = try Self.run(Self.words("verify") + [signed] + Self.words("--at", "2026-06-01"))
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.contains("intact"), "\(verify.stdout)")
        // Nothing left beside the outputs: no temporary file under a mangled name.
        let listing = try Command.run("python3", ["-c", "import os, sys; print(sorted(os.listdir(bytes.fromhex(sys.argv[1]))))", Self.hex(folder)])
        #expect(listing.stdout == "[b'App-\\xff\\xfe.ipa', b'signed-\\xff\\xfe.ipa', b'wrapped-\\xed\\xa0\\x80.ipa']\n", "\(listing.stdout)")
    }

    @Test func aMissingFileIsNamedInEscapedForm() throws {
        let scratch = try ScratchDirectory("non-utf8-path")
        let missing = Self.path(scratch.path, Array("gone-".utf8) + Self.notUTF8 + Array(".ipa".utf8))
        let result = try Self.run(Self.words("inspect") + [missing])
        #expect(result.status == 74)
        #expect(result.stderr == "ipawrap: error[FILE_READ_FAILED]: \(scratch.path)/gone-\\xFF\\xFE.ipa: cannot be read: No such file or directory\n",
                "\(result.stderr)")
    }

    /// Names inside an `.app` folder that no IPA can hold: refused before anything is read or
    /// written, with the name as the user can find it (`ls` shows such bytes as `\377\376`).
    @Test(arguments: [(notUTF8, "\\xFF\\xFE"), (loneSurrogate, "\\xED\\xA0\\x80"), ([0x41, 0x80, 0x42], "A\\x80B")])
    func aNameInAnAppFolderThatIsNotUTF8IsRefused(_ name: [UInt8], _ shown: String) throws {
        let scratch = try ScratchDirectory("non-utf8-path")
        let app = try AppFolders.unpack(try Self.app(), in: scratch)
        try Self.write(Array("data".utf8), at: Self.path(app + "/en.lproj", name + Array(".strings".utf8)))
        for command in [["inspect", app], ["check", app], ["wrap", app, "-o", scratch.path("out.ipa")]] {
            let result = try Self.run(command.map { Array($0.utf8) })
            #expect(result.status == 65, "\(command[0]): \(result.stderr)")
            #expect(result.stderr == "ipawrap: error[ARCHIVE_UNSAFE_NAME]: \(app): entry 'Payload/Sample.app/en.lproj/\(shown).strings' "
                        + "has an unsafe name (it is not UTF-8, which every name in an IPA must be); refusing the archive\n",
                    "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }

    @Test func anAppFolderWhoseOwnNameIsNotUTF8IsRefusedAndOneBelowSuchAFolderIsRead() throws {
        let scratch = try ScratchDirectory("non-utf8-path")
        let app = try AppFolders.unpack(try Self.app(), in: scratch)
        // The app below a folder whose name is not UTF-8: the folder's name never enters the IPA.
        let parent = Self.path(scratch.path, Self.notUTF8)
        let moved = parent + Array("/Sample.app".utf8)
        let badlyNamed = parent + Array("/".utf8) + Self.loneSurrogate + Array(".app".utf8)
        let move = """
            import os, shutil, sys
            os.makedirs(bytes.fromhex(sys.argv[2]))
            shutil.copytree(sys.argv[1].encode(), bytes.fromhex(sys.argv[3]), symlinks=True)
            shutil.copytree(sys.argv[1].encode(), bytes.fromhex(sys.argv[4]), symlinks=True)
            """
        let made = try Command.run("python3", ["-c", move, app, Self.hex(parent), Self.hex(moved), Self.hex(badlyNamed)])
        try #require(made.status == 0, "\(made.stderr)")

        let inspect = try Self.run(Self.words("inspect") + [moved])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("Payload/Sample.app"), "\(inspect.stdout)")

        let refused = try Self.run(Self.words("inspect") + [badlyNamed])
        #expect(refused.status == 65)
        #expect(refused.stderr.hasPrefix("ipawrap: error[ARCHIVE_UNSAFE_NAME]: \(scratch.path)/\\xFF\\xFE/\\xED\\xA0\\x80.app: "
                                            + "entry 'Payload/\\xED\\xA0\\x80.app' has an unsafe name (it is not UTF-8"),
                "\(refused.stderr)")
    }

    /// `batch` finds inputs whose names are not UTF-8, in folders and in `--from` lists, and names
    /// its outputs after them byte for byte.
    @Test func batchFindsListsAndWritesNamesThatAreNotUTF8() throws {
        let scratch = try ScratchDirectory("non-utf8-path")
        let folder = scratch.path + "/apps"
        try Self.write(try Self.app(), at: Self.path(folder, Self.notUTF8 + Array(".ipa".utf8)))
        let listed = Self.path(scratch.path, Array("listed-".utf8) + Self.loneSurrogate + Array(".ipa".utf8))
        try Self.write(try Self.app(), at: listed)
        let list = try scratch.write("list.txt", listed + [0x0A])
        let reports = scratch.path + "/reports"
        let result = try Self.run(Self.words("batch", "inspect", folder, "--from", list, "--out-dir", reports, "--json-lines"))
        #expect(result.status == 0, "\(result.stderr)")
        let inputs = result.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["input"] as? String
        }
        #expect(inputs == [folder + "/\\xFF\\xFE.ipa", scratch.path + "/listed-\\xED\\xA0\\x80.ipa"], "\(result.stdout)")
        #expect(try Self.contents(at: Self.path(reports, Self.notUTF8 + Array(".json".utf8))) != nil)
        #expect(try Self.contents(at: Self.path(reports, Array("listed-".utf8) + Self.loneSurrogate + Array(".json".utf8))) != nil)
    }
}
