import Foundation
import Testing
import TestSupport

/// The main executable is signed on its own thread while the bundle's resources are hashed
/// (`ExecutableSigning`); what fails is still reported as one thread would: the resources first,
/// then the executable, and nothing is written.
@Suite struct ExecutableSigningOrderTests {
    /// The signing test app with its executable's bytes replaced by `executable` and, when
    /// `damagedResource`, one more resource whose recorded CRC is wrong (Python's zipfile writes
    /// it; both CRC fields are then flipped in place).
    static func app(executable: [UInt8], damagedResource: Bool, in scratch: ScratchDirectory) throws -> String {
        var builder = SignCommandTests.app()
        builder.executable = executable
        let base = try scratch.write("base.ipa", builder.bytes())
        guard damagedResource else { return base }
        let output = scratch.path("damaged.ipa")
        let script = """
            import shutil, struct, sys, zipfile
            shutil.copy(sys.argv[1], sys.argv[2])
            name = "Payload/Sample.app/damaged.txt"
            with zipfile.ZipFile(sys.argv[2], "a", zipfile.ZIP_DEFLATED) as z:
                z.writestr(name, b"resource bytes " * 100)
            with zipfile.ZipFile(sys.argv[2]) as z:
                info = z.getinfo(name)
            data = bytearray(open(sys.argv[2], "rb").read())
            local = info.header_offset
            central = data.rfind(b"PK\\x01\\x02" + data[local + 4:local + 8])
            while data[central + 46:central + 46 + len(name)] != name.encode():
                central = data.rfind(b"PK\\x01\\x02", 0, central)
            for at in (local + 14, central + 16):
                data[at] ^= 0xFF
            open(sys.argv[2], "wb").write(data)
            """
        let result = try Command.run("python3", ["-c", script, base, output])
        try #require(result.status == 0, "\(result.stderr)")
        return output
    }

    @Test func anExecutableThatIsNotMachOIsRefusedAfterTheResources() throws {
        let scratch = try ScratchDirectory("executable-order")
        let input = try Self.app(executable: Array("#!/bin/sh\necho not mach-o\n".utf8), damagedResource: false, in: scratch)
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("Payload/Sample.app/Sample, the executable of Payload/Sample.app, is missing or not a Mach-O file"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Whatever the executable (one that is not Mach-O would be refused too), the damaged
    /// resource is the error.
    @Test(arguments: [false, true])
    func aDamagedResourceIsReportedFirst(executableIsMachO: Bool) throws {
        let scratch = try ScratchDirectory("executable-order")
        let executable = executableIsMachO ? SignCommandTests.executable() : Array("#!/bin/sh\necho not mach-o\n".utf8)
        let input = try Self.app(executable: executable, damagedResource: true, in: scratch)
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("error[ARCHIVE_DATA_ERROR]") && result.stderr.contains("damaged.txt"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
