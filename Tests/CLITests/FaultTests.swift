import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Faults while writing and reading: a full disk, a write the kernel refuses, a kill in the middle
/// of a 400 MB wrap, an unreadable input, a missing or read-only output folder. Each leaves no file
/// at `-o` and no temporary file, exits 74 with one clear line (or dies, for the kill), and leaves
/// the input as it was.
@Suite struct FaultTests {
    /// An app that passes its checks, whose every output (the icon too: 1024×1024 pixels of noise,
    /// about 4 MB as a PNG) is larger than the 1 MiB disks and file-size limits below.
    private static let appBytes: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var noise = [UInt8](repeating: 0, count: 1024 * 1024 * 4)
        for index in noise.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            noise[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 56)
        }
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFile("AppIcon60x60@3x.png", CgBIEncoder(.standard).encode(rgba: noise, width: 1024, height: 1024))
        return (try? builder.bytes()) ?? []
    }()

    /// A scratch folder holding the app as `App.ipa`: the folder, the input's path and its bytes.
    private static func scratchWithApp(_ label: String) throws -> (ScratchDirectory, String, [UInt8]) {
        let scratch = try ScratchDirectory(label)
        return (scratch, try scratch.write("App.ipa", appBytes), appBytes)
    }

    /// The commands that write an output, with `{in}` and `{out}` to fill in.
    static let writers: [[String]] = [
        ["wrap", "{in}", "-o", "{out}"], ["wrap", "{in}", "-o", "{out}", "--format", "mdx"], ["repack", "{in}", "-o", "{out}"],
        ["icon", "{in}", "-o", "{out}"],
    ]

    private func fill(_ command: [String], input: String, output: String) -> [String] {
        command.map { $0 == "{in}" ? input : $0 == "{out}" ? output : $0 }
    }

    private func expectWriteFailure(
        _ result: Command.Result, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status == 74, "\(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("ipawrap: error[") == true, sourceLocation: sourceLocation)
        #expect(result.stderr.contains(reason), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: A full disk

    /// A 1 MiB tmpfs, when this process may mount one (root with CAP_SYS_ADMIN, as on CI).
    private static let canMount: Bool = {
        guard geteuid() == 0, let scratch = try? ScratchDirectory("mount-probe") else { return false }
        let mounted = (try? Command.run("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", scratch.path]))?.status == 0
        if mounted { _ = try? Command.run("umount", [scratch.path]) }
        return mounted
    }()

    @Test(.enabled(if: canMount, "mounting a small tmpfs needs root with CAP_SYS_ADMIN"), arguments: writers)
    func aFullDiskLeavesNothing(_ command: [String]) throws {
        let (scratch, input, bytes) = try Self.scratchWithApp("full-disk")
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        #expect(try Command.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]).status == 0)
        defer { _ = try? Command.run("umount", [disk]) }
        let result = try Command.ipawrap(fill(command, input: input, output: disk + "/out"))
        expectWriteFailure(result, reason: "No space left on device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
        #expect(try Fixtures.bytesAt(input) == bytes)
        // Every block the failed output took is free again.
        var info = statvfs()
        #expect(statvfs(disk, &info) == 0)
        #expect(info.f_bfree == info.f_blocks, "\(info.f_bfree) of \(info.f_blocks) blocks free")
    }

    /// The same failure wherever the tests run: the kernel refuses writes past RLIMIT_FSIZE
    /// (SIGXFSZ ignored, so write and copy_file_range return EFBIG), set by a python wrapper.
    @Test(arguments: writers)
    func aWriteTheKernelRefusesLeavesNothing(_ command: [String]) throws {
        let (scratch, input, bytes) = try Self.scratchWithApp("fsize")
        let limit = 1 << 20
        let wrapper = """
            import os, resource, signal, sys
            resource.setrlimit(resource.RLIMIT_FSIZE, (\(limit), \(limit)))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            os.execv(sys.argv[1], sys.argv[1:])
            """
        let result = try Command.run("python3", ["-c", wrapper, Command.ipawrapPath] + fill(command, input: input, output: scratch.path("out")))
        expectWriteFailure(result, reason: "File too large")
        #expect(scratch.listing() == ["App.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    // MARK: A kill in the middle

    /// A wrap of a 400 MB IPA killed with SIGKILL while its output is being written: no file at
    /// `-o`, no temporary file (the output has no name until it is complete), the input unchanged.
    @Test func aKillInTheMiddleOfA400MBWrapLeavesNothing() throws {
        let scratch = try ScratchDirectory("kill")
        var small = IPABuilder()
        small.addPrimaryIcon()
        let smallPath = try scratch.write("small.ipa", try small.bytes())
        let input = scratch.path("Big.ipa")
        // Python's zipfile adds a 400 MB stored entry (read from a sparse file) to the small app.
        let make = """
            import os, sys, zipfile
            small, big, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
            with open(big + ".zeros", "wb") as zeros:
                zeros.truncate(size)
            with zipfile.ZipFile(small) as source, zipfile.ZipFile(big, "w") as target:
                for info in source.infolist():
                    target.writestr(info, source.read(info))
                info = zipfile.ZipInfo("Payload/Sample.app/Data.bin", date_time=(2024, 1, 1, 0, 0, 0))
                info.create_system = 3
                info.external_attr = 0o100644 << 16
                info.compress_type = zipfile.ZIP_STORED
                with open(big + ".zeros", "rb") as zeros, target.open(info, "w") as entry:
                    while chunk := zeros.read(1 << 22):
                        entry.write(chunk)
            os.remove(big + ".zeros")
            """
        let made = try Command.run("python3", ["-c", make, smallPath, input, String(400 << 20)])
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: smallPath)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int)
        #expect(size > 400 << 20)
        let inputDigest = try Command.run("sha256sum", [input]).stdout.prefix(64)

        let output = scratch.path("Big.wrapped.ipa")
        let shim = try ScratchDirectory("kill-shim")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Command.ipawrapPath)
        process.arguments = ["wrap", input, "-o", output]
        // The raw copy of 400 MB takes a fraction of a second (or no time at all on a file system
        // with reflinks), too short to be seen reliably: slow the copy down so the kill lands mid-write.
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = try Self.slowCopyShim(in: shim)
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "verify_asan_link_order=0"]
            .compactMap { $0 }.joined(separator: ":")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        // Wait until the unnamed output (O_TMPFILE: "/folder/#inode (deleted)") holds data, then kill.
        var caughtWriting: Int?
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, caughtWriting == nil, Date() < deadline {
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                let link = "/proc/\(pid)/fd/\(fd)"
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
                      target.hasPrefix(scratch.path + "/#"), target.hasSuffix("(deleted)") else { continue }
                var info = stat()
                if stat(link, &info) == 0, info.st_size > 0 {
                    caughtWriting = Int(info.st_size)
                    kill(pid, SIGKILL)
                    break
                }
            }
            if caughtWriting == nil { usleep(500) }
        }
        process.waitUntilExit()
        let written = try #require(caughtWriting, "the wrap ended before its output could be seen being written")
        #expect(written < size, "killed after \(written) of \(size) bytes")
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(scratch.listing() == ["Big.ipa"])
        #expect(try Command.run("sha256sum", [input]).stdout.prefix(64) == inputDigest)
    }

    /// Compiles a preloadable library that makes each `copy_file_range` and `pwrite` wait 2 ms and
    /// copy at most 1 MiB, so a 400 MB wrap takes about a second whatever the file system.
    private static func slowCopyShim(in scratch: ScratchDirectory) throws -> String {
        let source = scratch.path("slow-copy.c")
        try """
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <sys/types.h>
            #include <unistd.h>
            static size_t cap(size_t length) { return length > (1u << 20) ? (1u << 20) : length; }
            ssize_t copy_file_range(int in, off_t *in_offset, int out, off_t *out_offset, size_t length, unsigned flags) {
                ssize_t (*real)(int, off_t *, int, off_t *, size_t, unsigned) =
                    (ssize_t (*)(int, off_t *, int, off_t *, size_t, unsigned))dlsym(RTLD_NEXT, "copy_file_range");
                usleep(2000);
                return real(in, in_offset, out, out_offset, cap(length), flags);
            }
            ssize_t pwrite(int fd, const void *bytes, size_t length, off_t offset) {
                ssize_t (*real)(int, const void *, size_t, off_t) =
                    (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
                usleep(2000);
                return real(fd, bytes, cap(length), offset);
            }
            ssize_t pwrite64(int fd, const void *bytes, size_t length, off_t offset) { return pwrite(fd, bytes, length, offset); }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let library = scratch.path("slow-copy.so")
        let compiler = Command.exists("clang") ? "clang" : "cc"
        let built = try Command.run(compiler, ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl"])
        try #require(built.status == 0, "\(compiler) could not build the copy shim: \(built.stderr)")
        return library
    }

    // MARK: Permissions

    /// Runs ipawrap without the capabilities that let root ignore file permissions, so these
    /// tests mean the same as root (CI) and as a user.
    private func ipawrapWithoutOverride(_ arguments: [String]) throws -> Command.Result {
        guard geteuid() == 0 else { return try Command.ipawrap(arguments) }
        return try Command.run(
            "setpriv", ["--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search", Command.ipawrapPath] + arguments)
    }

    private static let permissionsApply = geteuid() != 0 || Command.exists("setpriv")

    @Test(.enabled(if: permissionsApply, "root without setpriv ignores file permissions"))
    func anUnreadableInputIsAnIOError() throws {
        let (scratch, input, bytes) = try Self.scratchWithApp("unreadable")
        #expect(chmod(input, 0) == 0)
        defer { chmod(input, 0o644) }
        for command in [["inspect", "{in}"], ["check", "{in}"]] + Self.writers {
            let result = try ipawrapWithoutOverride(fill(command, input: input, output: scratch.path("out")))
            expectWriteFailure(result, reason: "Permission denied")
            #expect(result.stderr.contains("error[FILE_READ_FAILED]"), "\(command): \(result.stderr)")
        }
        #expect(scratch.listing() == ["App.ipa"])
        chmod(input, 0o644)
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    @Test(.enabled(if: permissionsApply, "root without setpriv ignores file permissions"), arguments: writers)
    func aReadOnlyOutputFolderIsAnIOError(_ command: [String]) throws {
        let (scratch, input, bytes) = try Self.scratchWithApp("read-only")
        let folder = scratch.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chmod(folder, 0o555) == 0)
        defer { chmod(folder, 0o755) }
        let result = try ipawrapWithoutOverride(fill(command, input: input, output: folder + "/App.out"))
        expectWriteFailure(result, reason: "Permission denied")
        #expect(result.stderr.contains("error[OUTPUT_WRITE_FAILED]"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    @Test(arguments: writers)
    func aMissingOutputFolderIsAnIOError(_ command: [String]) throws {
        let (scratch, input, bytes) = try Self.scratchWithApp("no-folder")
        let result = try Command.ipawrap(fill(command, input: input, output: scratch.path("no/such/folder/App.out")))
        expectWriteFailure(result, reason: "does not exist")
        #expect(result.stderr.contains("error[OUTPUT_WRITE_FAILED]"), "\(result.stderr)")
        #expect(scratch.listing() == ["App.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    // MARK: In a batch

    /// One input whose output cannot be written (a folder stands at its name) and one that cannot
    /// be read, among good ones: those two fail with 74, the others are written, nothing partial.
    @Test(.enabled(if: permissionsApply, "root without setpriv ignores file permissions"))
    func aBatchWithFaultyInputsAndOutputsFinishesTheOthers() throws {
        let scratch = try ScratchDirectory("batch-faults")
        let bytes = Self.appBytes
        for name in ["A", "B", "C", "D", "E"] { try scratch.write("apps/\(name).ipa", bytes) }
        let out = scratch.path("out")
        try FileManager.default.createDirectory(atPath: out + "/B.ipa", withIntermediateDirectories: true)
        #expect(chmod(scratch.path("apps/D.ipa"), 0) == 0)
        defer { chmod(scratch.path("apps/D.ipa"), 0o644) }
        let result = try ipawrapWithoutOverride(
            ["batch", "wrap", scratch.path("apps"), "--out-dir", out, "--jobs", "2", "--json-lines"])
        #expect(result.status == 1, "\(result.stderr)")
        var exits: [String: Int] = [:]
        var codes: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = record["name"] as? String else { continue }
            exits[name] = record["exitCode"] as? Int
            codes[name] = (record["failure"] as? [String: Any])?["code"] as? String
        }
        #expect(exits == ["A.ipa": 0, "B.ipa": 74, "C.ipa": 0, "D.ipa": 74, "E.ipa": 0])
        #expect(codes["B.ipa"] == "OUTPUT_WRITE_FAILED")
        #expect(codes["D.ipa"] == "FILE_READ_FAILED")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(written == ["A.ipa", "B.ipa", "C.ipa", "E.ipa"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out + "/B.ipa").isEmpty)
        for name in ["A", "C", "E"] {
            #expect(try ZipOracle.unzipTest(out + "/\(name).ipa").status == 0)
        }
    }
}
