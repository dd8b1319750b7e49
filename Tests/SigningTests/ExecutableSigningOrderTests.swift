import Foundation
import Testing
import TestSupport

/// The main executable is signed on its own thread while the bundle's resources are hashed
/// (`ExecutableSigning`); what fails is still reported as one thread would: the resources first,
/// then the executable, and nothing is written.
@Suite struct ExecutableSigningOrderTests {
    /// The signing test app with its executable's bytes replaced by `executable` (its entry
    /// stored or deflated) and, when `damagedResource`, one more resource whose declared CRC is
    /// wrong. Either way the executable's entry size is known early and the copy of the entries
    /// after it may have started when the resources fail (`EarlyTailCopyTests`): it must leave nothing.
    static func app(executable: [UInt8], stored: Bool = true, damagedResource: Bool, in scratch: ScratchDirectory) throws -> String {
        var builder = SignCommandTests.app()
        builder.executable = executable
        builder.storesExecutable = stored
        if damagedResource {
            let bytes = Array(String(repeating: "resource bytes ", count: 100).utf8)
            builder.files["damaged.txt"] = IPABuilder.File(data: bytes, declaredCRC: ~ZipBuilder.crc32(bytes))
        }
        return try scratch.write(damagedResource ? "damaged.ipa" : "base.ipa", builder.bytes())
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

    /// Whatever the executable (one that is not Mach-O would be refused too; a deflated one whose
    /// stream is spliced on the signing thread), the damaged resource is the error.
    @Test(arguments: ["not Mach-O", "stored", "deflated"])
    func aDamagedResourceIsReportedFirst(executable kind: String) throws {
        let scratch = try ScratchDirectory("executable-order")
        let executable = switch kind {
        case "stored": SignCommandTests.executable()
        case "deflated": EarlyTailCopyTests.codeExecutable()
        default: Array("#!/bin/sh\necho not mach-o\n".utf8)
        }
        let input = try Self.app(executable: executable, stored: kind != "deflated", damagedResource: true, in: scratch)
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("error[ARCHIVE_DATA_ERROR]") && result.stderr.contains("damaged.txt"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!scratch.listing().contains { $0.contains("signed") }, "no output, hidden or not, is left: \(scratch.listing())")
    }
}
