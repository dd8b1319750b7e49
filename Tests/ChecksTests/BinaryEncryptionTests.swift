@testable import Checks
import Foundation
import MachO
import PropertyList
import Reporting
import Testing
import TestSupport

/// `APP_ENCRYPTED` and `BINARY_UNREADABLE`, on generated images, hostile images, an app as Xcode
/// builds it (`XcodeShapedApp`) and a real Xcode 7.2 build (isign's, in `../shared`).
@Suite struct BinaryEncryptionTests {
    @Test func encryptedMainExecutableIsAnError() throws {
        let report = try BinaryFixture.report(BinaryFixture.app { $0.encryption = .init(cryptID: 1) })
        let findings = report.findings(.appEncrypted)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.severity == .error)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("arm64 slice is App Store encrypted (cryptid 1)"))
        #expect(finding.remedy == FindingCode.appEncrypted.remedy)
        #expect(report.app.executable?.encrypted == true)
        #expect(report.hasErrors)
    }

    @Test func unencryptedExecutableWithEncryptionInfoIsFine() throws {
        // Xcode builds carry LC_ENCRYPTION_INFO_64 with cryptid 0.
        let report = try BinaryFixture.report(BinaryFixture.app { $0.encryption = .init(cryptID: 0) })
        #expect(report.findings(.appEncrypted).isEmpty)
        #expect(report.binaryCodes.isEmpty, "\(report.findings)")
    }

    @Test func encryptedExtensionIsNamed() throws {
        var builder = BinaryFixture.app()
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested[0].executable = IPABuilder.executable(fileType: 8) { $0.encryption = .init(cryptID: 1) }
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.appEncrypted).map(\.path) == ["Payload/Sample.app/PlugIns/Share.appex/Share"])
        #expect(report.app.executable?.encrypted == false)
    }

    @Test func anEncryptedLooseDylibInFrameworksIsNamed() throws {
        var builder = BinaryFixture.app()
        let encrypted = IPABuilder.executable(fileType: 6) { $0.encryption = .init(cryptID: 1) }
        let plain = IPABuilder.executable(fileType: 6) { $0.encryption = .init(cryptID: 0) }
        builder.addFile("Frameworks/libVendor.dylib", encrypted, mode: 0o100755)
        builder.addFile("Frameworks/libswiftCore.dylib", plain, mode: 0o100755)
        // Not a library the app loads from its Frameworks folder: not read.
        builder.addFile("Resources/libVendor.dylib", encrypted, mode: 0o100755)
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.appEncrypted).map(\.path) == ["Payload/Sample.app/Frameworks/libVendor.dylib"])
        #expect(report.findings(.binaryUnreadable).isEmpty, "\(report.findings)")
    }

    @Test func anUnreadableLooseDylibIsAFinding() throws {
        var builder = BinaryFixture.app()
        builder.addFile("Frameworks/libBroken.dylib", Array("not a Mach-O file".utf8), mode: 0o100755)
        let report = try BinaryFixture.report(builder)
        let unreadable = try #require(report.findings(.binaryUnreadable).first)
        #expect(unreadable.path == "Payload/Sample.app/Frameworks/libBroken.dylib")
        #expect(unreadable.message.contains("[MACHO_"), "\(unreadable.message)")
        #expect(report.findings(.appEncrypted).isEmpty)
    }

    @Test func onlyTheEncryptedSliceOfAFatFileIsNamed() throws {
        var armv7 = MachOBuilder()
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        armv7.is64Bit = false
        armv7.encryption = .init(cryptID: 0)
        var arm64 = MachOBuilder()
        arm64.encryption = .init(cryptID: 1)
        var builder = BinaryFixture.app()
        builder.executable = MachOBuilder.fat([.init(armv7), .init(arm64)])
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.appEncrypted).first)
        #expect(finding.message.contains("the arm64 slice is"))
        #expect(!finding.message.contains("armv7"))
    }

    @Test func stringChecksAreSkippedWhenTheTextIsEncrypted() throws {
        // The background-session selector is in the encrypted __cstring: not readable, so only
        // the encryption itself is reported.
        let encrypted = try BinaryFixture.report(BinaryFixture.app {
            $0.encryption = .init(cryptID: 1)
            $0.cStrings = ["backgroundSessionConfigurationWithIdentifier:", "OpenSSL 1.0.2k  26 Jan 2017"]
        })
        #expect(encrypted.binaryCodes == ["APP_ENCRYPTED"])
        let clear = try BinaryFixture.report(BinaryFixture.app {
            $0.encryption = .init(cryptID: 0)
            $0.cStrings = ["backgroundSessionConfigurationWithIdentifier:", "OpenSSL 1.0.2k  26 Jan 2017"]
        })
        #expect(clear.binaryCodes == ["OPENSSL_STATIC", "URLSESSION_BACKGROUND"])
    }

    // MARK: Unreadable binaries

    @Test func executableThatIsNotMachOIsReported() throws {
        var builder = BinaryFixture.app()
        builder.executable = Array("#!/bin/sh\necho not a binary\n".utf8)
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.binaryUnreadable).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("cannot be read as a Mach-O file"))
        #expect(finding.message.contains("[MACHO_BAD_MAGIC]"))
    }

    /// Every hostile image of the MachO tests as the main executable: never a crash or a thrown
    /// error; a finding naming the reader's error code when the checks needed the broken part.
    @Test(arguments: try hostileImages())
    func hostileExecutablesGiveAFindingNotACrash(_ name: String) throws {
        let code = String(name.prefix { $0 != "-" })
        var builder = BinaryFixture.app()
        builder.executable = try Fixtures.bytes("macho/hostile/\(name)")
        let report = try BinaryFixture.report(builder)
        let unreadable = report.findings(.binaryUnreadable)
        if code == "MACHO_SIGNATURE" {
            // The binary checks do not read the code signature; the profile checks, which read
            // its entitlements, name the damage.
            #expect(unreadable.isEmpty, "\(unreadable)")
            let signature = report.findings(.signedEntitlementsUnreadable)
            #expect(signature.count == 1, "\(name): \(report.findings)")
            #expect(signature.first?.message.contains("[\(code)]") == true, "\(name): \(signature)")
        } else {
            #expect(unreadable.count == 1, "\(name): \(report.findings)")
            #expect(unreadable.first?.message.contains("[\(code)]") == true, "\(name): \(unreadable)")
        }
    }

    static func hostileImages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("macho/hostile"))
            .filter { $0.hasSuffix(".macho") }.sorted()
    }

    // MARK: Apps as Xcode builds them

    /// An Xcode build (fat armv7 + arm64, cryptid 0) zipped as an IPA: its Info.plist, executable,
    /// catalog and Swift dylib.
    struct XcodeBuild: Sendable {
        let appName: String
        let bundleIdentifier: String
        let executable: String
        let dylib: String
        let read: @Sendable (String) throws -> [UInt8]

        static let generated = XcodeBuild(
            appName: XcodeShapedApp.appName, bundleIdentifier: XcodeShapedApp.bundleIdentifier,
            executable: XcodeShapedApp.appName, dylib: XcodeShapedApp.dylibPath, read: { try XcodeShapedApp.bytes($0) })
        static let isign = XcodeBuild(
            appName: "isignTestApp", bundleIdentifier: "com.saucelabs.isignTestApp", executable: "isignTestApp",
            dylib: "Frameworks/libswiftContacts.dylib", read: { try IsignFixture.bytes("Test.app/" + $0) })

        func app(executable bytes: [UInt8]? = nil) throws -> IPABuilder {
            var builder = IPABuilder(appName: appName, bundleIdentifier: bundleIdentifier)
            builder.rawInfoPlist = try read("Info.plist")
            builder.executable = try bytes ?? read(executable)
            builder.addFile("Assets.car", try read("Assets.car"))
            builder.addFile(dylib, try read(dylib), mode: 0o100755)
            return builder
        }

        func hasNoBinaryFindings() throws {
            let report = try BinaryFixture.report(try app())
            #expect(report.binaryCodes.isEmpty, "\(report.findings)")
            #expect(report.sdks.isEmpty)
            #expect(report.app.executable?.architectures == ["armv7", "arm64"])
        }

        func withCryptidPatchedToOneIsEncrypted() throws {
            var bytes = try read(executable)
            let file = try MachOFile(bytes: bytes)
            for slice in file.slices {
                let command = try #require(slice.loadCommands.first { $0.type == .encryptionInfo || $0.type == .encryptionInfo64 })
                // cryptoff, cryptsize, cryptid follow the 8-byte command prefix; both slices are little-endian.
                MachOBuilder.patch(&bytes, uint32: 1, at: Int(slice.offset) + command.offset + 16, .little)
            }
            let report = try BinaryFixture.report(try app(executable: bytes))
            let finding = try #require(report.findings(.appEncrypted).first)
            #expect(finding.message.contains("the armv7, arm64 slices are App Store encrypted"))

            // llvm-objdump, an independent reader, agrees that the patch set cryptid.
            guard Command.exists("llvm-objdump") else { return }
            let scratch = try ScratchDirectory("cryptid")
            let path = try scratch.write(executable, bytes)
            let dump = try Command.run("llvm-objdump", ["--macho", "--private-headers", "--arch=all", path])
            let cryptids = dump.stdout.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("cryptid ") }
            #expect(cryptids.count == 2)
            #expect(cryptids.allSatisfy { $0.hasSuffix(" 1") }, "\(cryptids)")
        }
    }

    @Test func anXcodeBuildHasNoBinaryFindings() throws { try XcodeBuild.generated.hasNoBinaryFindings() }

    @Test func anXcodeBuildWithCryptidPatchedToOneIsEncrypted() throws {
        try XcodeBuild.generated.withCryptidPatchedToOneIsEncrypted()
    }

    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func isignFixtureAppHasNoBinaryFindings() throws { try XcodeBuild.isign.hasNoBinaryFindings() }

    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func isignFixtureWithCryptidPatchedToOneIsEncrypted() throws {
        try XcodeBuild.isign.withCryptidPatchedToOneIsEncrypted()
    }
}
