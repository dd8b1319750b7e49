import CodeSignature
import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// The signed Xcode 7.2 executable and dylib of isign's `Test.app`, read in `../shared/fixtures`
/// (`XcodeShapedMachOTests` checks the generated shape of both).
@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct FixtureTests {
    static let executablePath = "Test.app/isignTestApp"
    static let dylibPath = "Test.app/Frameworks/libswiftContacts.dylib"

    @Test func fatExecutableHeadersAndLoadCommands() throws {
        let file = try MachOFile(bytes: try IsignFixture.bytes(Self.executablePath))
        let fat = try #require(file.fatHeader)
        #expect(file.isFat)
        #expect(fat.kind == .fat32)
        #expect(file.architectureNames == ["armv7", "arm64"])
        #expect(fat.entries.map(\.offset) == [16384, 114_688])
        #expect(fat.entries.map(\.size) == [82224, 83744])
        #expect(fat.entries.map(\.alignment) == [14, 14])

        for slice in file.slices {
            #expect(slice.fileType == .execute)
            #expect(slice.header.flags.contains(.pie))
            #expect(slice.header.flags.contains(.twoLevelNamespace))
            let version = try #require(slice.buildVersion)
            #expect(version.command == .versionMinIPhoneOS)
            #expect(version.platform == .iOS)
            #expect(version.minimumOS.description == "9.2")
            #expect(version.sdk.description == "9.2")
            #expect(slice.linkedLibraries.count == 13)
            #expect(slice.linkedLibraries.allSatisfy { $0.kind == .load })
            #expect(slice.linkedLibraries.first?.path == "/usr/lib/libSystem.B.dylib")
            #expect(slice.linkedLibraries.first?.currentVersion.threeComponentDescription == "1226.10.1")
            #expect(slice.linkedLibraries.last?.path == "@rpath/libswiftUIKit.dylib")
            #expect(slice.rpaths == ["@executable_path/Frameworks"])
            #expect(slice.installName == nil)
            #expect(slice.dynamicLinker == "/usr/lib/dyld")
            #expect(slice.encryption?.cryptID == 0)
            #expect(!slice.isEncrypted)
            #expect(slice.loadCommands.count == Int(slice.header.commandCount))
        }
        let arm64 = try #require(file.slice(named: "arm64"))
        #expect(arm64.is64Bit && arm64.byteOrder == .little)
        #expect(arm64.offset == 114_688 && arm64.size == 83744)
        #expect(arm64.uuid?.description == "C4EB91AD-549B-3F1E-A423-90B0B5960943")
        #expect(arm64.encryption == EncryptionInfo(offset: 16384, size: 16384, cryptID: 0))
        #expect(arm64.codeSignatureRange == LinkeditDataRange(offset: 73440, size: 10304))
        #expect(
            arm64.symbolTableLocation
                == SymbolTableLocation(symbolOffset: 53000, symbolCount: 385, stringOffset: 59368, stringSize: 14072))
        #expect(arm64.section(segment: "__TEXT", name: "__cstring") != nil)
        #expect(arm64.segments.map(\.name) == ["__PAGEZERO", "__TEXT", "__DATA", "__LINKEDIT"])
        let armv7 = try #require(file.slice(named: "armv7"))
        #expect(!armv7.is64Bit)
        #expect(armv7.architecture == MachOArchitecture(cpuType: 12, cpuSubtype: 9))
    }

    @Test func fatExecutableSignature() throws {
        var source = InMemoryByteSource(try IsignFixture.bytes(Self.executablePath))
        let file = try MachOFile(reading: &source)
        for slice in file.slices {
            let signature = try #require(try slice.readCodeSignature(from: &source))
            #expect(signature.blobs.map(\.slot) == [0, 2, 5, 0x10000])
            #expect(signature.identifier == "com.saucelabs.isignTestApp")
            #expect(signature.teamIdentifier == "L37S4Z6BE9")
            #expect(signature.hasCMSSignature)
            #expect(!signature.isAdHoc)
            #expect(signature.cmsSignature?.count == 4370 - 8)
            #expect(signature.blob(inSlot: 2)?.count == 196)
            #expect(signature.entitlementsDER == nil)
            let directory = try #require(signature.codeDirectory)
            #expect(signature.codeDirectories.count == 1)
            #expect(directory.version == 0x20200)
            #expect(directory.hashType == .sha1)
            #expect(directory.hashSize == 20)
            #expect(directory.pageSize == 4096)
            #expect(directory.flags.rawValue == 0)
            // The signature covers the slice up to where the signature itself starts.
            #expect(directory.codeLimit == UInt64(try #require(slice.codeSignatureRange).offset))
            #expect(directory.codeSlotCount == Int((directory.codeLimit + 4095) / 4096))
            #expect(directory.specialSlotCount == 5)
            #expect(directory.hash(for: .entitlements)?.count == 20)
            #expect(directory.hash(forSpecialSlot: 6) == nil)

            // Foundation's parser is the oracle for the XML blob.
            let xml = try #require(signature.entitlementsXML)
            let plist = try PropertyListSerialization.propertyList(from: Data(xml), format: nil)
            let entitlements = try #require(plist as? [String: Any])
            #expect(entitlements["application-identifier"] as? String == "L37S4Z6BE9.com.saucelabs.isignTestApp")
            #expect(entitlements["com.apple.developer.team-identifier"] as? String == "L37S4Z6BE9")
        }
    }

    @Test func fatDylib() throws {
        var source = InMemoryByteSource(try IsignFixture.bytes(Self.dylibPath))
        let file = try MachOFile(reading: &source)
        #expect(file.architectureNames == ["armv7", "armv7s", "arm64"])
        for slice in file.slices {
            #expect(slice.fileType == .dylib)
            #expect(slice.installName == "@rpath/libswiftContacts.dylib")
            #expect(slice.entryPointOffset == nil)
            let signature = try #require(try slice.readCodeSignature(from: &source))
            #expect(signature.blobs.map(\.slot) == [0, 2, 0x10000])
            #expect(signature.identifier == "com.apple.dt.runtime.swiftContacts")
            #expect(signature.teamIdentifier == "L37S4Z6BE9")
            #expect(signature.entitlementsXML == nil)
            #expect(signature.codeDirectory?.specialSlotCount == 2)
            #expect(signature.hasCMSSignature)
        }
    }

    @Test func symbolsOfTheExecutable() throws {
        var source = InMemoryByteSource(try IsignFixture.bytes(Self.executablePath))
        let file = try MachOFile(reading: &source)
        let arm64 = try #require(file.slice(named: "arm64"))
        let symbols = try #require(try arm64.readSymbolTable(from: &source))
        #expect(!symbols.isTruncated)
        #expect(symbols.declaredSymbolCount == 385)
        #expect(
            symbols.objcClassesDefined.sorted() == [
                "_TtC12isignTestApp11AppDelegate", "_TtC12isignTestApp19FirstViewController",
                "_TtC12isignTestApp20SecondViewController",
            ])
        #expect(Set(symbols.objcClassesReferenced) == ["NSObject", "UIResponder", "UIViewController", "UIWindow"])
        let main = try #require(symbols.imported.first { $0.name == "_UIApplicationMain" })
        #expect(main.library == .library(ordinal: 4, path: "/System/Library/Frameworks/UIKit.framework/UIKit"))
        #expect(
            symbols.debugSymbolCount + symbols.localSymbolCount + symbols.defined.count + symbols.imported.count == 385)
    }

    @Test func cStringsOfTheExecutable() throws {
        var source = InMemoryByteSource(try IsignFixture.bytes(Self.executablePath))
        let file = try MachOFile(reading: &source)
        let arm64 = try #require(file.slice(named: "arm64"))
        let strings = try #require(try arm64.readCStrings(from: &source))
        #expect(!strings.isEncrypted && !strings.isTruncated)
        #expect(strings.strings.contains("UIApplicationDelegate"))
        if let output = try LLVMOracle.objdump(
            ["--macho", "--section=__TEXT,__cstring", "--arch=arm64"], bytes: try IsignFixture.bytes(Self.executablePath))
        {
            #expect(OracleParsing.cStrings(output.stdout) == strings.strings)
        }
        let capped = try #require(try arm64.readCStrings(from: &source, maxBytes: 10))
        #expect(capped.isTruncated)
        #expect(capped.strings.allSatisfy { $0.utf8.count < 10 })
        #expect(try arm64.readCStrings(segment: "__TEXT", section: "__nonexistent", from: &source) == nil)
    }

    /// Parsing reads the fat table and the load commands, not the 198 KB file; the signature
    /// adds exactly its own range.
    @Test func readsOnlyTheHeaderPages() throws {
        let bytes = try IsignFixture.bytes(Self.executablePath)
        var source = CountingSource(bytes)
        let file = try MachOFile(reading: &source)
        let headerBytes = source.bytesRead
        let commands = file.slices.reduce(0) { $0 + $1.header.size + Int($1.header.commandsSize) }
        #expect(headerBytes < commands + 200)
        #expect(headerBytes < bytes.count / 30)
        let arm64 = try #require(file.slice(named: "arm64"))
        _ = try arm64.readCodeSignature(from: &source)
        #expect(source.bytesRead - headerBytes == 10304)
    }

    // MARK: Against llvm-objdump / llvm-nm

    @Test(
        .enabled(if: LLVMOracle.isAvailable, "needs llvm-objdump and llvm-nm that read Mach-O"),
        arguments: [executablePath, dylibPath])
    func loadCommandsMatchLLVM(_ path: String) throws {
        let bytes = try IsignFixture.bytes(path)
        let file = try MachOFile(bytes: bytes)
        for slice in file.slices {
            try OracleComparison.compare(slice, of: bytes, arch: slice.architecture.name)
        }
    }

    @Test(
        .enabled(if: LLVMOracle.isAvailable, "needs llvm-objdump and llvm-nm that read Mach-O"),
        arguments: [executablePath, dylibPath])
    func symbolsMatchLLVM(_ path: String) throws {
        let bytes = try IsignFixture.bytes(path)
        var source = InMemoryByteSource(bytes)
        let file = try MachOFile(reading: &source)
        for slice in file.slices {
            let table = try #require(try slice.readSymbolTable(from: &source))
            try OracleComparison.compareSymbols(table, of: bytes, arch: slice.architecture.name)
        }
    }
}

/// Field-by-field comparison of a slice with what llvm-objdump prints for it.
enum OracleComparison {
    static func compare(_ slice: MachOSlice, of bytes: [UInt8], arch: String?) throws {
        let archArguments = arch.map { ["--arch=\($0)"] } ?? []
        let headers = try #require(
            try LLVMOracle.objdump(["--macho", "--private-headers"] + archArguments, bytes: bytes))
        #expect(headers.status == 0, "llvm-objdump rejected the file: \(headers.stderr)")
        #expect(headers.stderr.isEmpty, "llvm-objdump warned: \(headers.stderr)")
        #expect(LLVMOracle.loadCommandNames(headers.stdout) == slice.loadCommands.map(\.type.name))
        #expect(
            OracleParsing.values(headers.stdout, key: "path").map { $0.components(separatedBy: " (offset").first ?? "" }
                == slice.rpaths)
        #expect(OracleParsing.values(headers.stdout, key: "uuid") == (slice.uuid.map { [$0.description] } ?? []))
        let commands = OracleParsing.commands(headers.stdout)
        func fields(_ name: String) -> [String: String]? { commands.first { $0.name == name }?.fields }
        if let range = slice.codeSignatureRange {
            #expect(fields("LC_CODE_SIGNATURE")?["dataoff"] == "\(range.offset)")
            #expect(fields("LC_CODE_SIGNATURE")?["datasize"] == "\(range.size)")
        }
        if let encryption = slice.encryption {
            let name = slice.is64Bit ? "LC_ENCRYPTION_INFO_64" : "LC_ENCRYPTION_INFO"
            #expect(fields(name)?["cryptoff"] == "\(encryption.offset)")
            #expect(fields(name)?["cryptsize"] == "\(encryption.size)")
            #expect(fields(name)?["cryptid"] == "\(encryption.cryptID)")
        }
        if let symtab = slice.symbolTableLocation {
            #expect(fields("LC_SYMTAB")?["symoff"] == "\(symtab.symbolOffset)")
            #expect(fields("LC_SYMTAB")?["nsyms"] == "\(symtab.symbolCount)")
            #expect(fields("LC_SYMTAB")?["stroff"] == "\(symtab.stringOffset)")
            #expect(fields("LC_SYMTAB")?["strsize"] == "\(symtab.stringSize)")
        }
        if let identity = slice.dylibIdentity {
            #expect(fields("LC_ID_DYLIB")?["name"] == "\(identity.installName) (offset 24)")
        }
        if let version = slice.buildVersion {
            let name = version.command.name
            let key = version.command == .buildVersion ? "minos" : "version"
            #expect(fields(name)?[key] == version.minimumOS.description)
            #expect(fields(name)?["sdk"] == (version.sdk.rawValue == 0 ? "n/a" : version.sdk.description))
        }
        #expect(
            commands.filter { $0.name.hasPrefix("LC_SEGMENT") }.map { $0.fields["segname"] ?? "" }
                == slice.segments.map(\.name))

        let used = try #require(try LLVMOracle.objdump(["--macho", "--dylibs-used"] + archArguments, bytes: bytes))
        let expected = slice.linkedLibraries.map {
            OracleParsing.Dylib(
                path: $0.path, compatibilityVersion: $0.compatibilityVersion.threeComponentDescription,
                currentVersion: $0.currentVersion.threeComponentDescription,
                kind: $0.kind == .load ? "" : $0.kind.rawValue)
        }
        // llvm-objdump lists the dylib's own LC_ID_DYLIB among the libraries it uses.
        let oracle = OracleParsing.dylibs(used.stdout).filter { $0.path != slice.installName }
        #expect(oracle == expected)
    }

    static func compareSymbols(_ table: SymbolTable, of bytes: [UInt8], arch: String?) throws {
        let archArguments = arch.map { ["--arch=\($0)"] } ?? []
        let output = try #require(try LLVMOracle.nm(["-m"] + archArguments, bytes: bytes))
        #expect(output.status == 0, "llvm-nm rejected the file: \(output.stderr)")
        let oracle = OracleParsing.symbols(output.stdout)
        #expect(oracle.definedExternal.sorted() == table.defined.map(\.name).sorted())
        #expect(oracle.undefined.map(\.name).sorted() == table.imported.map(\.name).sorted())
        for symbol in table.imported {
            guard let from = oracle.undefined.first(where: { $0.name == symbol.name })?.from else { continue }
            switch symbol.library {
            case .library(_, let path):
                // llvm-nm prints a short name: "UIKit" for .../UIKit.framework/UIKit, "libSystem" for libSystem.B.dylib.
                #expect(path.contains(from), "\(symbol.name): llvm-nm says \(from), we say \(path)")
            case .dynamicLookup:
                #expect(from == "dynamically looked up")
            case .mainExecutable:
                #expect(from == "executable")
            default:
                break
            }
        }
    }
}
