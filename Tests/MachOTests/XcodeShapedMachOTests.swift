import CodeSignature
import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// The generated app's executable and dylib (`XcodeShapedApp`) in the shapes Xcode builds and
/// signs: a fat armv7 + arm64 executable and a fat armv7 + armv7s + arm64 dylib, each slice with
/// an Xcode-style signature. `FixtureTests` checks Xcode 7.2's own (isign's, in `../shared`).
@Suite struct XcodeShapedMachOTests {
    static let executable = XcodeShapedApp.appName
    static let dylib = XcodeShapedApp.dylibPath

    @Test func fatExecutableHeadersAndLoadCommands() throws {
        let file = try MachOFile(bytes: try XcodeShapedApp.bytes(Self.executable))
        let fat = try #require(file.fatHeader)
        #expect(file.isFat)
        #expect(fat.kind == .fat32)
        #expect(file.architectureNames == ["armv7", "arm64"])
        #expect(fat.entries.map(\.alignment) == [14, 14])
        #expect(fat.entries.allSatisfy { $0.offset % 0x4000 == 0 })
        for slice in file.slices {
            #expect(slice.fileType == .execute)
            #expect(slice.header.flags.contains(.pie))
            #expect(slice.header.flags.contains(.twoLevelNamespace))
            let version = try #require(slice.buildVersion)
            #expect(version.platform == .iOS)
            #expect(version.minimumOS.description == "12.0")
            #expect(version.sdk.description == "17.2")
            #expect(slice.linkedLibraries.map(\.path) == [
                "/System/Library/Frameworks/Foundation.framework/Foundation", "/usr/lib/libSystem.B.dylib",
                "/System/Library/Frameworks/UIKit.framework/UIKit", "@rpath/libExampleKit.dylib",
            ])
            #expect(slice.rpaths == ["@executable_path/Frameworks"])
            #expect(slice.installName == nil)
            #expect(slice.dynamicLinker == "/usr/lib/dyld")
            #expect(slice.encryption?.cryptID == 0)
            #expect(!slice.isEncrypted)
            #expect(slice.loadCommands.count == Int(slice.header.commandCount))
            #expect(slice.section(segment: "__TEXT", name: "__cstring") != nil)
        }
        let armv7 = try #require(file.slice(named: "armv7"))
        #expect(!armv7.is64Bit)
        #expect(armv7.architecture == MachOArchitecture(cpuType: 12, cpuSubtype: 9))
        let arm64 = try #require(file.slice(named: "arm64"))
        #expect(arm64.is64Bit && arm64.byteOrder == .little)
        #expect(arm64.segments.map(\.name) == ["__PAGEZERO", "__TEXT", "__LINKEDIT"])
    }

    @Test func fatExecutableSignature() throws {
        var source = InMemoryByteSource(try XcodeShapedApp.bytes(Self.executable))
        for slice in try MachOFile(reading: &source).slices {
            let signature = try #require(try slice.readCodeSignature(from: &source))
            #expect(signature.blobs.map(\.slot) == [0, 2, 5, 7, 0x1000, 0x10000])
            #expect(signature.identifier == XcodeShapedApp.bundleIdentifier)
            #expect(signature.teamIdentifier == XcodeShapedApp.teamIdentifier)
            #expect(signature.hasCMSSignature)
            #expect(!signature.isAdHoc)
            #expect(signature.codeDirectories.map(\.hashType) == [.sha1, .sha256])
            #expect(signature.codeDirectories.allSatisfy { $0.version == 0x20400 })
            let xml = try #require(signature.entitlementsXML)
            let plist = try PropertyListSerialization.propertyList(from: Data(xml), format: nil)
            let entitlements = try #require(plist as? [String: Any])
            #expect(entitlements["application-identifier"] as? String == "ABCDE12345.com.example.sample")
            #expect(entitlements["com.apple.developer.team-identifier"] as? String == "ABCDE12345")
            #expect(signature.entitlementsDER != nil)
        }
    }

    @Test func fatDylib() throws {
        var source = InMemoryByteSource(try XcodeShapedApp.bytes(Self.dylib))
        let file = try MachOFile(reading: &source)
        #expect(file.architectureNames == ["armv7", "armv7s", "arm64"])
        for slice in file.slices {
            #expect(slice.fileType == .dylib)
            #expect(slice.installName == "@rpath/libExampleKit.dylib")
            #expect(slice.entryPointOffset == nil)
            let signature = try #require(try slice.readCodeSignature(from: &source))
            #expect(signature.blobs.map(\.slot) == [0, 2, 0x1000, 0x10000])
            #expect(signature.identifier == XcodeShapedApp.dylibIdentifier)
            #expect(signature.teamIdentifier == XcodeShapedApp.teamIdentifier)
            #expect(signature.entitlementsXML == nil)
            #expect(signature.codeDirectory?.specialSlotCount == 2)
            #expect(signature.hasCMSSignature)
        }
    }

    @Test func symbolsOfTheExecutable() throws {
        var source = InMemoryByteSource(try XcodeShapedApp.bytes(Self.executable))
        let file = try MachOFile(reading: &source)
        let arm64 = try #require(file.slice(named: "arm64"))
        let symbols = try #require(try arm64.readSymbolTable(from: &source))
        #expect(!symbols.isTruncated)
        #expect(symbols.objcClassesDefined == ["_TtC11XcodeShaped11AppDelegate"])
        #expect(symbols.objcClassesReferenced == ["UIResponder"])
        let main = try #require(symbols.imported.first { $0.name == "_UIApplicationMain" })
        #expect(main.library == .library(ordinal: 3, path: "/System/Library/Frameworks/UIKit.framework/UIKit"))
    }

    @Test func cStringsOfTheExecutable() throws {
        let bytes = try XcodeShapedApp.bytes(Self.executable)
        var source = InMemoryByteSource(bytes)
        let arm64 = try #require(try MachOFile(reading: &source).slice(named: "arm64"))
        let strings = try #require(try arm64.readCStrings(from: &source))
        #expect(strings.strings == ["Main", "LaunchScreen", "AppDelegate"])
        if let output = try LLVMOracle.objdump(["--macho", "--section=__TEXT,__cstring", "--arch=arm64"], bytes: bytes) {
            #expect(OracleParsing.cStrings(output.stdout) == strings.strings)
        }
    }

    /// Parsing reads the fat table and the load commands; the signature adds exactly its range.
    @Test func readsOnlyTheHeaderPages() throws {
        let bytes = try XcodeShapedApp.bytes(Self.executable)
        var source = CountingSource(bytes)
        let file = try MachOFile(reading: &source)
        let headerBytes = source.bytesRead
        let commands = file.slices.reduce(0) { $0 + $1.header.size + Int($1.header.commandsSize) }
        #expect(headerBytes < commands + 200)
        #expect(headerBytes < bytes.count / 30)
        let arm64 = try #require(file.slice(named: "arm64"))
        _ = try arm64.readCodeSignature(from: &source)
        #expect(source.bytesRead - headerBytes == Int(try #require(arm64.codeSignatureRange).size))
    }

    @Test(
        .enabled(if: LLVMOracle.isAvailable, "needs llvm-objdump and llvm-nm that read Mach-O"),
        arguments: [executable, dylib])
    func loadCommandsMatchLLVM(_ path: String) throws {
        let bytes = try XcodeShapedApp.bytes(path)
        for slice in try MachOFile(bytes: bytes).slices {
            try OracleComparison.compare(slice, of: bytes, arch: slice.architecture.name)
        }
    }

    @Test(
        .enabled(if: LLVMOracle.isAvailable, "needs llvm-objdump and llvm-nm that read Mach-O"),
        arguments: [executable])
    func symbolsMatchLLVM(_ path: String) throws {
        let bytes = try XcodeShapedApp.bytes(path)
        var source = InMemoryByteSource(bytes)
        for slice in try MachOFile(reading: &source).slices {
            let table = try #require(try slice.readSymbolTable(from: &source))
            try OracleComparison.compareSymbols(table, of: bytes, arch: slice.architecture.name)
        }
    }
}
