import Foundation
import Testing
import TestSupport

/// Hostile paths and arguments through the command line (issue 19): outputs that are inputs,
/// devices and FIFOs, special files as inputs, names too long for a zip header, argument errors,
/// terminal escapes in an app's strings. Each case says what must happen and that the input
/// is untouched.
@Suite struct HostilePathTests {
    private func app() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        return builder
    }

    /// Runs ipawrap under `timeout`, so a case that blocks fails instead of hanging the suite.
    private func ipawrapBounded(_ arguments: [String], seconds: Int = 60) throws -> Command.Result {
        try Command.run("timeout", ["-s", "KILL", String(seconds), Command.ipawrapPath] + arguments)
    }

    private func makeFIFO(_ path: String) throws {
        #expect(mkfifo(path, 0o600) == 0)
    }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// One line on stderr in the README's form, with the code.
    private func expectOneErrorLine(_ result: Command.Result, code: String, naming path: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("ipawrap: error[\(code)]: "), "\(result.stderr)", sourceLocation: sourceLocation)
        if let path { #expect(result.stderr.contains(path), "names \(path): \(result.stderr)", sourceLocation: sourceLocation) }
    }

    // MARK: 1. Never replace an input

    @Test func anOutputThatIsAnInputIsRefusedAndTheInputIsUntouched() throws {
        let scratch = try ScratchDirectory("out-is-in")
        let bytes = try app().bytes()
        let input = try scratch.write("App.ipa", bytes)
        // Refused before it is read, so its content does not matter.
        let policy = try scratch.write("policy.xml", Array("<PolicyMetadata/>".utf8))
        let link = scratch.path("link.ipa")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        let cases: [[String]] = [
            ["icon", input, "-o", input],
            ["icon", input, "-o", link],
            ["wrap", input, "-o", input],
            ["wrap", input, "-o", link, "--format", "mdx"],
            ["wrap", input, "-o", policy, "--policy", policy],
            ["batch", "inspect", input, "--report", link],
        ]
        for arguments in cases {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            expectOneErrorLine(result, code: "OUTPUT_IS_INPUT")
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: input))) == bytes, "\(arguments)")
        }
        #expect(scratch.listing() == ["App.ipa", "link.ipa", "policy.xml"])
    }

    @Test func aFolderAsTheOutputOfASingleFileCommandIsAUsageError() throws {
        let scratch = try ScratchDirectory("out-folder")
        let input = try scratch.write("App.ipa", try app().bytes())
        for command in ["icon", "wrap", "repack"] {
            let result = try Command.ipawrap([command, input, "-o", scratch.path])
            #expect(result.status == 64, "\(command): \(result.stderr)")
            expectOneErrorLine(result, code: "OUTPUT_IS_FOLDER", naming: scratch.path)
        }
    }

    // MARK: 2. Devices and FIFOs as outputs

    @Test func devNullIsWrittenThroughNotReplaced() throws {
        let scratch = try ScratchDirectory("dev-null")
        let input = try scratch.write("App.ipa", try app().bytes())
        for arguments in [["icon", input, "-o", "/dev/null"], ["repack", input, "-o", "/dev/null"], ["wrap", input, "-o", "/dev/null"]] {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(fileType("/dev/null") == S_IFCHR)
        }
        #expect(scratch.listing() == ["App.ipa"])
    }

    @Test func aFullDeviceIsExit74NamingIt() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let scratch = try ScratchDirectory("dev-full")
        let input = try scratch.write("App.ipa", try app().bytes())
        for command in ["icon", "repack", "wrap"] {
            let result = try Command.ipawrap([command, input, "-o", "/dev/full"])
            #expect(result.status == 74, "\(command): \(result.stderr)")
            expectOneErrorLine(result, code: "OUTPUT_WRITE_FAILED", naming: "/dev/full")
            #expect(fileType("/dev/full") == S_IFCHR)
        }
    }

    /// An app, its icon as `icon -o` writes it to a regular file, and an empty FIFO beside them.
    private func fifoOutputSetUp(_ name: String) throws -> (scratch: ScratchDirectory, input: String, icon: [UInt8], fifo: String) {
        let scratch = try ScratchDirectory(name)
        let input = try scratch.write("App.ipa", try app().bytes())
        let regular = scratch.path("icon.png")
        #expect(try Command.ipawrap(["icon", input, "-o", regular]).status == 0)
        let fifo = scratch.path("icon.fifo")
        try makeFIFO(fifo)
        return (scratch, input, Array(try Data(contentsOf: URL(fileURLWithPath: regular))), fifo)
    }

    @Test func aFIFOOutputIsWrittenInOrderAndStaysAFIFO() throws {
        let (scratch, input, icon, fifo) = try fifoOutputSetUp("fifo-out")
        // The reader is open before ipawrap starts, so nothing here depends on timing.
        let reader = try FIFOReader(fifo)
        defer { _ = try? reader.finish() }
        let result = try ipawrapBounded(["icon", input, "-o", fifo])
        let copy = try reader.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(copy == icon)
        #expect(fileType(fifo) == S_IFIFO)
        // Nobody reading: an error once the wait for a reader is over, never a blocked open.
        let clock = ContinuousClock()
        let start = clock.now
        let unread = try ipawrapBounded(["icon", input, "-o", fifo])
        #expect(clock.now - start >= .seconds(2))
        #expect(unread.status == 74, "\(unread.stderr)")
        expectOneErrorLine(unread, code: "OUTPUT_WRITE_FAILED", naming: fifo)
        #expect(unread.stderr.contains("no process opened it for reading within 2 seconds"), "\(unread.stderr)")
        #expect(fileType(fifo) == S_IFIFO)
        #expect(scratch.listing() == ["App.ipa", "icon.fifo", "icon.png"])
    }

    /// `cat out.fifo > copy & ipawrap … -o out.fifo`: the reader may open the FIFO after ipawrap
    /// first tries it (this raced on a loaded CI machine). ipawrap waits for it, within bounds.
    @Test func aFIFOReaderThatComesLateIsWaitedFor() throws {
        let (scratch, input, icon, fifo) = try fifoOutputSetUp("fifo-late")
        // ipawrap reaches its open in well under 500 ms; without the wait this fails with ENXIO.
        let reader = try FIFOReader(fifo, openingAfter: .milliseconds(500))
        defer { _ = try? reader.finish() }
        let result = try ipawrapBounded(["icon", input, "-o", fifo])
        let copy = try reader.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(copy == icon)
        #expect(scratch.listing() == ["App.ipa", "icon.fifo", "icon.png"])
    }

    // MARK: 3. Special files as inputs never block

    @Test func specialFilesAsInputsAreExit74WithoutBlocking() throws {
        let scratch = try ScratchDirectory("fifo-in")
        let input = try scratch.write("App.ipa", try app().bytes())
        let fifo = scratch.path("input.fifo")
        try makeFIFO(fifo)
        let profiles = scratch.path("profiles")
        try FileManager.default.createDirectory(atPath: profiles, withIntermediateDirectories: true)
        try makeFIFO(profiles + "/a.mobileprovision")
        let cases: [(arguments: [String], names: String)] = [
            (["inspect", fifo], fifo),
            (["inspect", "/dev/zero"], "/dev/zero"),
            (["check", input, "--profile", fifo], fifo),
            (["check", input, "--profiles-dir", profiles], profiles + "/a.mobileprovision"),
            (["profile", "show", fifo], fifo),
            (["policy", "validate", fifo], fifo),
            (["wrap", input, "-o", scratch.path("out.ipa"), "--policy", fifo], fifo),
            (["repack", input, "-o", scratch.path("out.ipa"), "--add", "Payload/Sample.app/x=" + fifo], fifo),
        ]
        for (arguments, path) in cases {
            let result = try ipawrapBounded(arguments)
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("ipawrap: error["), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(path), "\(arguments): \(result.stderr)")
        }
        let batch = try ipawrapBounded(["batch", "inspect", fifo, input, "--no-progress"])
        #expect(batch.status == 1, "\(batch.stderr)")
        #expect(batch.stdout.contains(fifo))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ipa")))
    }

    // MARK: 5. Names too long for a zip header

    @Test func aNameLongerThan65535BytesIsAnErrorAndNothingIsWritten() throws {
        let scratch = try ScratchDirectory("long-name")
        let input = try scratch.write("App.ipa", try app().bytes())
        let source = try scratch.write("x.txt", Array("x".utf8))
        let name = "Payload/Sample.app/" + Array(repeating: String(repeating: "n", count: 200), count: 330).joined(separator: "/")
        let result = try Command.ipawrap(["repack", input, "-o", scratch.path("out.ipa"), "--add", name + "=" + source])
        #expect(result.status == 65, "\(result.status) \(result.stderr.prefix(300))")
        expectOneErrorLine(result, code: "ARCHIVE_NAME_TOO_LONG")
        #expect(scratch.listing() == ["App.ipa", "x.txt"])
    }

    // MARK: 4. Documented bounds before quadratic work

    @Test func anElementWithTooManyAttributesIsRefusedAtOnce() throws {
        var plist = Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict ".utf8)
        for index in 0..<650_000 { plist += Array("a\(index)=\"x\" ".utf8) }
        plist += Array("/></plist>".utf8)
        var builder = app()
        builder.rawInfoPlist = plist
        let scratch = try ScratchDirectory("attributes")
        let input = try scratch.write("App.ipa", try builder.bytes())
        let started = Date()
        let result = try ipawrapBounded(["inspect", input, "--time-limit", "20"], seconds: 60)
        #expect(result.status == 65, "\(result.stderr)")
        expectOneErrorLine(result, code: "BUNDLE_INFO_PLIST_INVALID")
        #expect(result.stderr.contains("attributes"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        var policyBytes = Array("<?xml version=\"1.0\"?><PolicyMetadata ".utf8)
        for index in 0..<5_000 { policyBytes += Array("a\(index)=\"x\" ".utf8) }
        policyBytes += Array("/>".utf8)
        let policy = try scratch.write("policy.xml", policyBytes)
        let validated = try ipawrapBounded(["policy", "validate", policy], seconds: 60)
        #expect(validated.status == 65, "\(validated.stderr)")
        #expect(validated.stderr.contains("attributes"), "\(validated.stderr)")
    }

    // MARK: 7. The decode budget counts every byte a decode holds

    @Test func aSixteenBitIconIsCountedAtItsRealDecodeSize() throws {
        let scratch = try ScratchDirectory("png16")
        // 2048×2048 16-bit RGBA: 32 MiB of scanlines and 16 MiB of RGBA8 output, over 40M; the
        // old count (4 bytes a pixel) said 16 MiB.
        let script = """
            import struct, sys, zlib
            w = h = 2048
            raw = (b"\\0" + b"\\0" * (w * 8)) * h
            def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0))
            png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
            open(sys.argv[1], "wb").write(png)
            """
        let pngPath = scratch.path("big.png")
        let made = try Command.run("python3", ["-c", script, pngPath])
        #expect(made.status == 0, "\(made.stderr)")
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Icon.png", try Array(Data(contentsOf: URL(fileURLWithPath: pngPath))))
        let input = try scratch.write("App.ipa", try builder.bytes())
        let result = try Command.ipawrap(["icon", input, "-o", scratch.path("icon.png"), "--max-memory", "40M"])
        #expect(result.status == 65, "\(result.stderr)")
        expectOneErrorLine(result, code: "ARCHIVE_MEMORY_LIMIT")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("icon.png")))
        let roomy = try Command.ipawrap(["icon", input, "-o", scratch.path("icon.png"), "--max-memory", "64M"])
        #expect(roomy.status == 0, "\(roomy.stderr)")
    }

    // MARK: 8. One line per error

    @Test func argumentErrorsAreOneUsageLineWithAHelpHint() throws {
        let scratch = try ScratchDirectory("usage")
        let input = try scratch.write("App.ipa", try app().bytes())
        let cases: [[String]] = [
            ["inspect", input, "--no-such-option"],
            ["icon", input, "-o"],
            ["inspect", input, "--max-entries", "many"],
            // One date parser for every --at: a bad date is the same usage error everywhere.
            ["verify", input, "--at", "2026-13-45"],
            ["check", input, "--at", "yesterday"],
            ["batch", "wrap", input],
            ["frobnicate"],
        ]
        for arguments in cases {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            expectOneErrorLine(result, code: "USAGE")
            #expect(result.stderr.hasSuffix("--help')\n"), "\(arguments): \(result.stderr)")
        }
        let batch = try Command.ipawrap(["batch", "wrap", input])
        #expect(batch.stderr.contains("ipawrap batch wrap --help"))
        #expect(try Command.ipawrap(["inspect", "--help"]).status == 0)
    }

    @Test func formatErrorsNameTheFileAndTheEntry() throws {
        let scratch = try ScratchDirectory("located")
        let input = try scratch.write("App.ipa", try app().bytes())
        // A policy file with several problems: one line naming it; --json lists them.
        let policy = try scratch.write("policy.xml", try Fixtures.bytes("policy/invalid/POLICY_SCHEMA.and-semantic-problems.xml"))
        let wrapped = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.ipa"), "--policy", policy, "--json"])
        #expect(wrapped.status == 65, "\(wrapped.stderr)")
        expectOneErrorLine(wrapped, code: "POLICY_SCHEMA", naming: policy)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(wrapped.stdout.utf8)) as? [String: Any])
        let details = (object["error"] as? [String: Any])?["details"] as? [String]
        #expect((details?.count ?? 0) > 1, "\(wrapped.stdout)")
        // A damaged asset catalog: the archive and the entry.
        var builder = app()
        builder.addFile("Assets.car", try Fixtures.bytes("assets/hostile/CAR_BLOCK_OUT_OF_RANGE.block-past-end.car"))
        let catalog = try scratch.write("Car.ipa", try builder.bytes())
        let listed = try Command.ipawrap(["assets", "list", catalog])
        #expect(listed.status == 65, "\(listed.stderr)")
        expectOneErrorLine(listed, code: "CAR_BLOCK_OUT_OF_RANGE", naming: catalog + ": Payload/Sample.app/Assets.car: ")
    }

    @Test func aDanglingSymlinkAddedIsExit74NamingThePathGiven() throws {
        let scratch = try ScratchDirectory("dangling")
        let input = try scratch.write("App.ipa", try app().bytes())
        let link = scratch.path("dangling")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.path("nowhere"))
        let result = try Command.ipawrap(["repack", input, "-o", scratch.path("out.ipa"), "--add", "Payload/Sample.app/x=" + link])
        #expect(result.status == 74, "\(result.stderr)")
        expectOneErrorLine(result, code: "REPACK_SOURCE_UNREADABLE", naming: link)
        #expect(!result.stderr.contains("/proc/self"))
    }

    @Test func aMissingDataDescriptorIsSaidSo() throws {
        let hostile = try #require(HostileArchives.all.first { $0.name.hasSuffix("data-descriptor-missing") })
        let scratch = try ScratchDirectory("descriptor")
        let input = try scratch.write("A.ipa", hostile.bytes)
        let result = try Command.ipawrap(["inspect", input])
        #expect(result.status == 65)
        expectOneErrorLine(result, code: "ARCHIVE_SIZE_MISMATCH", naming: input)
        #expect(result.stderr.contains("data descriptor"), "\(result.stderr)")
        #expect(result.stderr.contains("missing"), "\(result.stderr)")
        #expect(!result.stderr.contains("0x04034B50"), "\(result.stderr)")
    }

    @Test func jsonCommandsPrintOneJSONObjectOnFailure() throws {
        let scratch = try ScratchDirectory("json-error")
        let input = try scratch.write("bad.ipa", Array("not a zip at all".utf8))
        for arguments in [["inspect", input, "--json"], ["check", input, "--json"], ["wrap", input, "-o", scratch.path("o.ipa"), "--json"],
                          ["assets", "list", input, "--json"], ["profile", "show", input, "--json"]] {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments)")
            #expect(object["schemaVersion"] as? Int == 2)  // the report's schema (2 since verify)
            #expect(object["input"] as? String == input)
            let error = try #require(object["error"] as? [String: Any])
            let code = try #require(error["code"] as? String)
            #expect(result.stderr.contains("error[\(code)]"), "\(arguments)")
            #expect((error["message"] as? String)?.isEmpty == false)
        }
    }

    // MARK: 9. Terminal escapes in an app's strings

    @Test func controlCharactersInAppStringsAreEscapedInTextAndKeptInJSON() throws {
        var builder = app()
        let hostileName = "Evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m"
        builder.info["CFBundleName"] = .string(hostileName)
        builder.info["CFBundleDisplayName"] = .string(hostileName)
        builder.infoPlistFormat = .binary  // XML 1.0 cannot hold U+001B
        let scratch = try ScratchDirectory("escapes")
        let input = try scratch.write("App.ipa", try builder.bytes())
        for command in ["inspect", "check"] {
            let text = try Command.ipawrap([command, input])
            #expect([0, 1].contains(text.status), "\(text.stderr)")
            #expect(!text.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(text.stdout)")
            #expect(text.stdout.contains("Evil\\u{1B}]0;owned\\u{7}\\u{1B}[2J\\u{9B}31m"), "\(text.stdout)")
        }
        let batch = try Command.ipawrap(["batch", "inspect", input, "--no-progress"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(!batch.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(batch.stdout)")
        #expect(batch.stdout.contains("Evil\\u{1B}"), "\(batch.stdout)")
        let json = try Command.ipawrap(["inspect", input, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let app = try #require(report["app"] as? [String: Any])
        #expect(app["name"] as? String == hostileName)
    }

    // MARK: 12. --set values must be UTF-8

    @Test func aSetValueThatIsNotUTF8IsRefused() throws {
        let scratch = try ScratchDirectory("set-utf8")
        let input = try scratch.write("App.ipa", try app().bytes())
        let output = scratch.path("out.ipa")
        let script = "\"$1\" wrap \"$2\" -o \"$3\" --set \"DisableCamera=$(printf 'tr\\377ue')\""
        let result = try Command.run("/bin/sh", ["-c", script, "sh", Command.ipawrapPath, input, output])
        #expect(result.status == 64, "\(result.stderr)")
        expectOneErrorLine(result, code: "USAGE")
        #expect(result.stderr.contains("UTF-8"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

/// Reads a FIFO on a thread of its own until `finish()`: the read end is opened without blocking
/// (at once, or after a delay), so it exists before or after the writer as a test needs.
private final class FIFOReader: @unchecked Sendable {
    private let path: String
    private let delay: Duration
    private let lock = NSLock()
    private var writerDone = false
    private var bytes: [UInt8] = []
    private var failure: String?
    private let finished = DispatchSemaphore(value: 0)
    private var descriptor: Int32 = -1

    init(_ path: String, openingAfter delay: Duration = .zero) throws {
        self.path = path
        self.delay = delay
        if delay == .zero {
            descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            try #require(descriptor >= 0, "open \(path): \(errno)")
        }
        Thread.detachNewThread { [self] in
            run()
            finished.signal()
        }
    }

    private func run() {
        if descriptor < 0 {
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                lock.withLock { failure = "open \(path): \(errno)" }
                return
            }
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Read whether or not the writer is gone: after it is, what is left is drained to EOF.
            let done = lock.withLock { writerDone }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                lock.withLock { bytes += buffer.prefix(count) }
                continue
            }
            if count < 0, errno != EAGAIN, errno != EINTR {
                lock.withLock { failure = "read \(path): \(errno)" }
                return
            }
            if done { return }
            usleep(1_000)
        }
    }

    /// Call after the writer has exited: the bytes read, once all are drained. Later calls
    /// (a `defer` that ends the thread when a test throws first) return at once.
    func finish() throws -> [UInt8] {
        let first = lock.withLock {
            defer { writerDone = true }
            return !writerDone
        }
        if first { finished.wait() }
        if let failure = lock.withLock({ failure }) { throw FIFOReaderError(message: failure) }
        return lock.withLock { bytes }
    }
}

private struct FIFOReaderError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
