import CodeSignature
import FormatSupport
import Foundation
import TestSupport
import Testing

@testable import MachO

/// Files written by `MachOBuilder`, covering every decoded load command, both byte orders, both
/// widths and both fat header kinds, read back and compared with llvm-objdump where present.
@Suite struct GeneratedFileTests {
    struct Variant: CustomTestStringConvertible, Sendable {
        let is64Bit: Bool
        let byteOrder: Endianness
        let name: String
        var testDescription: String { name }
    }

    static let variants = [
        Variant(is64Bit: true, byteOrder: .little, name: "arm64"),
        Variant(is64Bit: false, byteOrder: .little, name: "armv7s"),
        Variant(is64Bit: false, byteOrder: .big, name: "ppc"),
        Variant(is64Bit: true, byteOrder: .big, name: "ppc64"),
    ]

    @Test(arguments: variants)
    func everyLoadCommandRoundTrips(_ variant: Variant) throws {
        let builder = Samples.executable(is64Bit: variant.is64Bit, byteOrder: variant.byteOrder)
        let bytes = builder.build()
        #expect(MachOFile.isMachO(prefix: bytes.prefix(8)))
        var source = InMemoryByteSource(bytes)
        let file = try MachOFile(reading: &source)
        #expect(!file.isFat)
        let slice = try #require(file.slices.first)
        #expect(slice.architecture.name == variant.name)
        #expect(slice.is64Bit == variant.is64Bit)
        #expect(slice.byteOrder == variant.byteOrder)
        #expect(slice.offset == 0 && slice.size == UInt64(bytes.count))
        #expect(slice.fileType == .execute)
        #expect(slice.header.flags.contains(.twoLevelNamespace))

        let version = try #require(slice.buildVersion)
        #expect(version.command == .buildVersion)
        #expect(version.platform == .iOS)
        #expect(version.minimumOS.description == "15.0")
        #expect(version.sdk.description == "17.2.1")
        #expect(version.tools.map(\.tool) == [3, 2])
        #expect(version.tools.map(\.version.description) == ["1015.7", "5.9"])

        #expect(slice.linkedLibraries.map(\.kind) == [.load, .load, .weak, .reexport, .lazy, .upward])
        #expect(slice.linkedLibraries.map(\.path) == builder.dylibs.map(\.path))
        #expect(slice.linkedLibraries[3].currentVersion.description == "2.3.4")
        #expect(slice.linkedLibraries[3].compatibilityVersion.description == "2.0")
        #expect(slice.linkedLibraries[4].compatibilityVersion.threeComponentDescription == "9.0.0")
        #expect(slice.linkedLibraries.allSatisfy { $0.timestamp == 2 })
        #expect(slice.rpaths == ["/usr/lib/swift", "@executable_path/Frameworks"])
        #expect(slice.uuid?.description == "C4EB91AD-549B-3F1E-A423-90B0B5960943")
        #expect(slice.dynamicLinker == "/usr/lib/dyld")
        #expect(slice.installName == nil)
        #expect(slice.encryption?.cryptID == 0)
        #expect(slice.entryPointOffset != nil)
        #expect(slice.dynamicSymbolTable?.externalDefinedCount == 3)
        #expect(slice.dynamicSymbolTable?.undefinedCount == 6)
        #expect(slice.segments.map(\.name) == ["__PAGEZERO", "__TEXT", "__LINKEDIT"])
        #expect(slice.section(segment: "__TEXT", name: "__text")?.size == 32)

        let signature = try #require(try slice.readCodeSignature(from: &source))
        #expect(signature.identifier == "com.example.app")
        #expect(signature.teamIdentifier == Samples.teamID)
        #expect(signature.blobs.map(\.slot) == [0, 2, 5, 7, 0x1000, 0x10000])
        #expect(signature.codeDirectories.map(\.hashType) == [.sha1, .sha256])
        #expect(signature.codeDirectories.map(\.hashSize) == [20, 32])
        #expect(signature.codeDirectories.allSatisfy { $0.version == 0x20400 && $0.specialSlotCount == 7 })
        #expect(signature.codeDirectory?.executableSegmentFlags == 1)
        #expect(signature.codeDirectory?.codeLimit == UInt64(try #require(slice.codeSignatureRange).offset))
        #expect(signature.entitlementsXML == MachOBuilder.xmlEntitlements(Samples.entitlements))
        #expect(signature.entitlementsDER == MachOBuilder.derEntitlements(Samples.entitlements))
        #expect(signature.hasCMSSignature && !signature.isAdHoc)
        let plist = try PropertyListSerialization.propertyList(
            from: Data(try #require(signature.entitlementsXML)), format: nil)
        #expect((plist as? [String: Any])?["application-identifier"] as? String == "ABCDE12345.com.example.app")

        let symbols = try #require(try slice.readSymbolTable(from: &source))
        #expect(symbols.defined.map(\.name) == ["_main", "_SSL_CTX_new", "_OBJC_CLASS_$_AppDelegate"])
        #expect(symbols.defined.allSatisfy { $0.isExternal && !$0.isUndefined && $0.sectionNumber == 1 })
        #expect(symbols.objcClassesDefined == ["HiddenThing", "AppDelegate"])
        #expect(symbols.objcClassesReferenced == ["UIViewController"])
        #expect(symbols.localSymbolCount == 2)
        #expect(symbols.debugSymbolCount == 1)
        #expect(!symbols.isTruncated)
        let imports = Dictionary(uniqueKeysWithValues: symbols.imported.map { ($0.name, $0) })
        #expect(
            imports["_UIApplicationMain"]?.library
                == .library(ordinal: 2, path: "/System/Library/Frameworks/UIKit.framework/UIKit"))
        #expect(imports["_OptionalThing"]?.isWeak == true)
        #expect(imports["_OptionalThing"]?.library == .library(ordinal: 3, path: "@rpath/Optional.framework/Optional"))
        #expect(imports["_sqlite3_open"]?.library == .library(ordinal: 5, path: "/usr/lib/libsqlite3.dylib"))
        #expect(imports["_host_function"]?.library == .mainExecutable)
        #expect(imports["_anywhere"]?.library == .dynamicLookup)

        let strings = try #require(try slice.readCStrings(from: &source))
        #expect(strings.strings == ["OpenSSL 1.0.2k  26 Jan 2017", "https://example.com/api", "caf\u{E9}"])

        if LLVMOracle.isAvailable {
            try OracleComparison.compare(slice, of: bytes, arch: nil)
            try OracleComparison.compareSymbols(symbols, of: bytes, arch: nil)
        } else {
            print("skipped llvm comparison: no llvm-objdump/llvm-nm that reads Mach-O")
        }
    }

    @Test(arguments: [false, true])
    func fatFilesOfBothHeaderKinds(_ fat64: Bool) throws {
        let slices = [
            MachOBuilder.FatSlice(Samples.executable(is64Bit: false)),
            MachOBuilder.FatSlice(Samples.executable(is64Bit: true)),
            MachOBuilder.FatSlice(Samples.executable(is64Bit: true, byteOrder: .big), alignment: 12),
        ]
        let bytes = MachOBuilder.fat(slices, fat64: fat64)
        #expect(MachOFile.isMachO(prefix: bytes.prefix(8)))
        var source = CountingSource(bytes)
        let file = try MachOFile(reading: &source)
        let fat = try #require(file.fatHeader)
        #expect(fat.kind == (fat64 ? .fat64 : .fat32))
        #expect(fat.size == 8 + 3 * (fat64 ? 32 : 20))
        #expect(file.architectureNames == ["armv7s", "arm64", "ppc64"])
        #expect(fat.entries.map(\.alignment) == [14, 14, 12])
        #expect(file.slices.map(\.offset) == fat.entries.map(\.offset))
        #expect(file.slices.map(\.size) == slices.map { UInt64($0.bytes.count) })
        for (slice, spec) in zip(file.slices, slices) {
            #expect(slice.offset % (1 << UInt64(spec.alignment)) == 0)
            #expect(slice.rpaths == ["/usr/lib/swift", "@executable_path/Frameworks"])
            let signature = try #require(try slice.readCodeSignature(from: &source))
            #expect(signature.identifier == "com.example.app")
            let symbols = try #require(try slice.readSymbolTable(from: &source))
            #expect(symbols.objcClassesDefined == ["HiddenThing", "AppDelegate"])
            #expect(try slice.readCStrings(from: &source)?.strings.first == "OpenSSL 1.0.2k  26 Jan 2017")
        }
        if LLVMOracle.isAvailable {
            let output = try #require(try LLVMOracle.objdump(["--macho", "--universal-headers"], bytes: bytes))
            #expect(output.status == 0, "\(output.stderr)")
            #expect(OracleParsing.values(output.stdout, key: "offset") == fat.entries.map { "\($0.offset)" })
            #expect(OracleParsing.values(output.stdout, key: "size") == fat.entries.map { "\($0.size)" })
            #expect(OracleParsing.values(output.stdout, key: "fat_magic") == [fat64 ? "FAT_MAGIC_64" : "FAT_MAGIC"])
            for slice in file.slices {
                try OracleComparison.compare(slice, of: bytes, arch: slice.architecture.name)
            }
        }
    }

    /// Xcode 16's linker writes a link it cannot say with the classic commands (delayed
    /// initialisation, or weak with it) as a `dylib_use_command`: an LC_LOAD_DYLIB with
    /// `DYLIB_USE_MARKER` for the timestamp and `DYLIB_USE_*` flags. The flags decide the link.
    @Test func dylibUseCommandsSayTheirLinkInTheirFlags() throws {
        var builder = Samples.executable()
        builder.dylibs = [
            .init("/usr/lib/libSystem.B.dylib", currentVersion: "1319.0.0"),
            .init("@rpath/Weak.framework/Weak", currentVersion: "2.1.0", useFlags: 0x01),
            .init("@rpath/Late.framework/Late", useFlags: 0x08),
            .init("@rpath/WeakLate.framework/WeakLate", useFlags: 0x09),
            .init("@rpath/Again.framework/Again", useFlags: 0x02),
            .init("@rpath/Up.framework/Up", useFlags: 0x04),
        ]
        let bytes = builder.build()
        var source = InMemoryByteSource(bytes)
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(slice.linkedLibraries.map(\.path) == builder.dylibs.map(\.path))
        #expect(slice.linkedLibraries.map(\.kind) == [.load, .weak, .load, .weak, .reexport, .upward])
        #expect(slice.linkedLibraries.map(\.initializesLate) == [false, false, true, true, false, false])
        #expect(slice.linkedLibraries.map(\.useFlags) == [nil, 0x01, 0x08, 0x09, 0x02, 0x04])
        #expect(slice.linkedLibraries[1].currentVersion.threeComponentDescription == "2.1.0")
        // llvm-objdump reads each as a dylib command whose name is at offset 28, after the flags.
        if LLVMOracle.isAvailable {
            let output = try #require(try LLVMOracle.objdump(["--macho", "--private-headers"], bytes: bytes)).stdout
            for dylib in builder.dylibs.dropFirst() {
                #expect(output.contains("name \(dylib.path) (offset 28)"), "\(output)")
            }
        } else {
            print("skipped llvm comparison: no llvm-objdump that reads Mach-O")
        }
    }

    @Test func dylibIdentityAndAdHocSignature() throws {
        var builder = Samples.dylib()
        builder.codeSignature?.cms = .empty
        builder.codeSignature?.flags = 0x2
        builder.codeSignature?.teamIdentifier = nil
        let bytes = builder.build()
        var source = InMemoryByteSource(bytes)
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(slice.fileType == .dylib)
        #expect(slice.installName == "@rpath/Kit.framework/Kit")
        #expect(slice.dylibIdentity?.currentVersion.description == "4.5.6")
        #expect(slice.dynamicLinker == nil && slice.entryPointOffset == nil)
        let signature = try #require(try slice.readCodeSignature(from: &source))
        #expect(signature.cmsSignature == [])
        #expect(!signature.hasCMSSignature)
        #expect(signature.isAdHoc)
        #expect(signature.codeDirectory?.isAdHoc == true)
        #expect(signature.teamIdentifier == nil)
        #expect(signature.entitlementsXML == nil && signature.entitlementsDER == nil)
        let symbols = try #require(try slice.readSymbolTable(from: &source))
        #expect(symbols.imported.first?.library == .library(ordinal: 1, path: "/usr/lib/libSystem.B.dylib"))
        if LLVMOracle.isAvailable {
            try OracleComparison.compare(slice, of: bytes, arch: nil)
        }

        builder.codeSignature?.cms = .absent
        builder.codeSignature?.flags = 0
        var absent = InMemoryByteSource(builder.build())
        let unsigned = try #require(try MachOFile(reading: &absent).slices.first?.readCodeSignature(from: &absent))
        #expect(unsigned.cmsSignature == nil)
        #expect(unsigned.isAdHoc)
        #expect(!unsigned.blobs.contains { $0.slot == 0x10000 })
    }

    @Test func unsignedSliceHasNoSignatureOrSymbols() throws {
        var builder = MachOBuilder()
        builder.segmentAlignment = 16
        var source = InMemoryByteSource(builder.build())
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(slice.codeSignatureRange == nil)
        #expect(try slice.readCodeSignature(from: &source) == nil)
        #expect(try slice.readSymbolTable(from: &source) == nil)
        #expect(try slice.readCStrings(from: &source) == nil)
    }

    @Test(arguments: [
        (UInt32(0x25), MachOPlatform.iOS), (0x24, .macOS), (0x2F, .tvOS), (0x30, .watchOS),
    ])
    func versionMinCommands(_ command: UInt32, _ platform: MachOPlatform) throws {
        var builder = MachOBuilder()
        builder.segmentAlignment = 16
        builder.version = .versionMin(command: command, minOS: "12.1", sdk: "16.4.1")
        let bytes = builder.build()
        let slice = try #require(try MachOFile(bytes: bytes).slices.first)
        let version = try #require(slice.buildVersion)
        #expect(version.command.rawValue == command)
        #expect(version.platform == platform)
        #expect(version.minimumOS == MachOVersion(major: 12, minor: 1))
        #expect(version.sdk.description == "16.4.1")
        #expect(version.tools.isEmpty)
        if LLVMOracle.isAvailable {
            try OracleComparison.compare(slice, of: bytes, arch: nil)
        }
    }

    @Test func buildVersionWinsOverVersionMinAndSeveralAreKept() throws {
        var builder = MachOBuilder()
        builder.segmentAlignment = 16
        builder.version = .versionMin(command: 0x25, minOS: "9.0", sdk: "9.0")
        // A zippered binary carries one LC_BUILD_VERSION per platform.
        builder.extraCommands = [
            .init(command: 0x32, payload: buildVersionPayload(platform: 6, minOS: 0x000E_0000, sdk: 0x000E_0400)),
            .init(command: 0x32, payload: buildVersionPayload(platform: 1, minOS: 0x000B_0000, sdk: 0x000E_0400)),
        ]
        let slice = try #require(try MachOFile(bytes: builder.build()).slices.first)
        #expect(slice.buildVersions.map(\.platform) == [.iOS, .macCatalyst, .macOS])
        #expect(slice.buildVersion?.platform == .macCatalyst)
        #expect(slice.buildVersion?.minimumOS.description == "14.0")
    }

    @Test func encryptedSlicesHideTheirStrings() throws {
        var builder = Samples.executable()
        builder.encryption = .init(cryptID: 1)
        var source = InMemoryByteSource(builder.build())
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(slice.isEncrypted)
        let strings = try #require(try slice.readCStrings(from: &source))
        #expect(strings.isEncrypted && strings.strings.isEmpty)
        // Symbols and the signature live in __LINKEDIT, which FairPlay leaves readable.
        #expect(try slice.readSymbolTable(from: &source)?.defined.isEmpty == false)
        #expect(try slice.readCodeSignature(from: &source)?.identifier == "com.example.app")

        // An encrypted range that ends before __cstring leaves it readable.
        builder.encryption = .init(cryptID: 1, offset: 0, size: 16)
        var partial = InMemoryByteSource(builder.build())
        let clear = try #require(try MachOFile(reading: &partial).slices.first?.readCStrings(from: &partial))
        #expect(!clear.isEncrypted && clear.strings.count == 3)
    }

    @Test func cStringCapDropsThePartialString() throws {
        var builder = Samples.executable()
        builder.cStrings = ["first", "second-string"]
        var source = InMemoryByteSource(builder.build())
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        let capped = try #require(try slice.readCStrings(from: &source, maxBytes: 9))
        #expect(capped.isTruncated)
        #expect(capped.strings == ["first"])
        let exact = try #require(try slice.readCStrings(from: &source, maxBytes: 6))
        #expect(exact.strings == ["first"])
        let whole = try #require(try slice.readCStrings(from: &source, maxBytes: 100))
        #expect(!whole.isTruncated && whole.strings == ["first", "second-string"])
    }

    @Test func symbolLimitsMarkTheTableTruncated() throws {
        var source = InMemoryByteSource(Samples.executable().build())
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        let few = try #require(try slice.readSymbolTable(from: &source, limits: .init(maximumSymbols: 4)))
        #expect(few.isTruncated)
        #expect(few.declaredSymbolCount == 12)
        #expect(few.localSymbolCount + few.debugSymbolCount + few.defined.count + few.imported.count == 4)
        let shortNames = try #require(
            try slice.readSymbolTable(from: &source, limits: .init(maximumStringTableBytes: 54)))
        #expect(shortNames.isTruncated)
        #expect(shortNames.unreadNameCount > 0)
        // " \0", three local names, then "_main\0" ends at byte 54; the next names are past the cap.
        #expect(shortNames.defined.map(\.name) == ["_main"])
        #expect(shortNames.unreadNameCount == 8)
    }

    @Test func flatNamespaceImportsNameNoLibrary() throws {
        var builder = Samples.executable()
        builder.flags &= ~0x80
        builder.symbols = [.imported("_printf", ordinal: 1), .imported("_gone", ordinal: 40)]
        var source = InMemoryByteSource(builder.build())
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        #expect(try slice.readSymbolTable(from: &source)?.imported.map(\.library) == [.flatNamespace, .flatNamespace])

        builder.flags |= 0x80
        var twoLevel = InMemoryByteSource(builder.build())
        let imports = try #require(
            try MachOFile(reading: &twoLevel).slices.first?.readSymbolTable(from: &twoLevel)?.imported)
        #expect(
            imports.map(\.library) == [.library(ordinal: 1, path: "/usr/lib/libSystem.B.dylib"), .invalidOrdinal(40)])
    }

    @Test func specialSlotHashesAreReadFromTheRightPlace() throws {
        var builder = Samples.executable()
        // A stand-in digest that depends on its input, so misplaced slots show.
        builder.codeSignature?.hasher = { type, bytes in
            var hash = [UInt8](repeating: type, count: type == 1 ? 20 : 32)
            for (index, byte) in bytes.enumerated() {
                hash[index % hash.count] &+= byte &* UInt8(truncatingIfNeeded: index | 1)
            }
            return hash
        }
        builder.codeSignature?.specialSlotHashes = [
            1: Array(repeating: 0xAA, count: 32), 3: Array(repeating: 0xCC, count: 32),
        ]
        let hasher = try #require(builder.codeSignature?.hasher)
        let bytes = builder.build()
        var source = InMemoryByteSource(bytes)
        let slice = try #require(try MachOFile(reading: &source).slices.first)
        let signature = try #require(try slice.readCodeSignature(from: &source))
        let sha256 = try #require(signature.codeDirectories.last)
        #expect(sha256.hash(for: .infoPlist) == Array(repeating: 0xAA, count: 32))
        #expect(sha256.hash(for: .resourceDirectory) == Array(repeating: 0xCC, count: 32))
        #expect(sha256.hash(for: .application) == Array(repeating: 0, count: 32))
        let xmlBlob =
            [0xFA, 0xDE, 0x71, 0x71] + bigEndian(UInt32(8 + (signature.entitlementsXML?.count ?? 0)))
            + (signature.entitlementsXML ?? [])
        #expect(sha256.hash(for: .entitlements) == hasher(2, xmlBlob))
        let codeLimit = Int(sha256.codeLimit)
        #expect(sha256.codeSlotCount == (codeLimit + 4095) / 4096)
        #expect(sha256.hash(forCodeSlot: 0) == hasher(2, Array(bytes[0..<min(4096, codeLimit)])))
        #expect(sha256.hash(forCodeSlot: sha256.codeSlotCount) == nil)
        #expect(signature.codeDirectories.first?.hash(for: .infoPlist) == Array(repeating: 0xAA, count: 20))
    }

    @Test func recognisesMachOByMagic() throws {
        #expect(MachOFile.isMachO(prefix: try XcodeShapedApp.bytes(XcodeShapedApp.appName).prefix(8)))
        #expect(MachOFile.isMachO(prefix: [0xCF, 0xFA, 0xED, 0xFE]))
        #expect(MachOFile.isMachO(prefix: [0xFE, 0xED, 0xFA, 0xCE, 0, 0, 0, 18]))
        #expect(MachOFile.isMachO(prefix: [0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 0, 2]))
        // A Java class file (major version 52) shares the fat magic.
        #expect(!MachOFile.isMachO(prefix: [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0x34]))
        #expect(!MachOFile.isMachO(prefix: [0xCA, 0xFE, 0xBA, 0xBE]))
        #expect(!MachOFile.isMachO(prefix: try Fixtures.bytes("png/standard/type6-16bit.png").prefix(8)))
        #expect(!MachOFile.isMachO(prefix: try Fixtures.bytes("profiles/generated/wildcard.mobileprovision").prefix(8)))
        #expect(!MachOFile.isMachO(prefix: []))
    }

    @Test func architectureNames() {
        let names: [(Int32, Int32, String)] = [
            (12, 9, "armv7"), (12, 11, "armv7s"), (12, 12, "armv7k"), (0x0100_000C, 0, "arm64"),
            (0x0100_000C, Int32(bitPattern: 0x8000_0002), "arm64e"), (0x0200_000C, 1, "arm64_32"),
            (7, 3, "i386"), (0x0100_0007, 3, "x86_64"), (0x0100_0007, 8, "x86_64h"),
            (99, 7, "cpu 0x63 sub 0x7"),
        ]
        for (type, subtype, name) in names {
            #expect(MachOArchitecture(cpuType: type, cpuSubtype: subtype).name == name)
        }
        #expect(MachOVersion(rawValue: 0x000E_0400).description == "14.4")
        #expect(MachOVersion(rawValue: 0x0010_0401).description == "16.4.1")
        #expect(MachOVersion(major: 15) > MachOVersion(major: 14, minor: 9, patch: 9))
    }

    private func buildVersionPayload(platform: UInt32, minOS: UInt32, sdk: UInt32) -> [UInt8] {
        [platform, minOS, sdk, 0].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
