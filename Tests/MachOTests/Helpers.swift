import CodeSignature
import FormatSupport
import MachO
import TestSupport

/// A source that records what is read, to show the reader does not load whole files.
struct CountingSource: ByteSource {
    var base: InMemoryByteSource
    private(set) var bytesRead = 0
    private(set) var reads = 0
    private(set) var largestRead = 0

    init(_ bytes: [UInt8]) {
        base = InMemoryByteSource(bytes)
    }

    var size: UInt64 { base.size }

    mutating func read(offset: UInt64, count: Int) throws -> [UInt8] {
        let bytes = try base.read(offset: offset, count: count)
        bytesRead += count
        reads += 1
        largestRead = max(largestRead, count)
        return bytes
    }
}

/// Everything a scan asks of a file: the headers, then each slice's signature, symbols and
/// C strings. Hostile-input tests run this and expect a `MachOError`, never a trap.
@discardableResult
func readEverything(_ bytes: [UInt8]) throws -> MachOFile {
    var source = InMemoryByteSource(bytes)
    let file = try MachOFile(reading: &source)
    for slice in file.slices {
        _ = try slice.readCodeSignature(from: &source)
        _ = try slice.readSymbolTable(from: &source)
        _ = try slice.readCStrings(from: &source)
    }
    return file
}

/// The error code `readEverything` ends with, or nil when the file reads cleanly. Any error that
/// is not a `MachOError` is reported as such so the test fails with it.
func firstErrorCode(_ bytes: [UInt8]) -> String? {
    do {
        try readEverything(bytes)
        return nil
    } catch let error as MachOError {
        return error.code
    } catch {
        return "not a MachOError: \(error)"
    }
}

enum Samples {
    static let teamID = "ABCDE12345"
    static let entitlements: [(key: String, value: MachOBuilder.EntitlementValue)] = [
        ("application-identifier", .string("ABCDE12345.com.example.app")),
        ("com.apple.developer.team-identifier", .string("ABCDE12345")),
        ("get-task-allow", .bool(false)),
    ]

    /// A signed executable with every load command the reader decodes.
    static func executable(is64Bit: Bool = true, byteOrder: Endianness = .little) -> MachOBuilder {
        var builder = MachOBuilder()
        builder.is64Bit = is64Bit
        builder.byteOrder = byteOrder
        switch (is64Bit, byteOrder) {
        case (true, .little): (builder.cpuType, builder.cpuSubtype) = (0x0100_000C, 0)
        case (false, .little): (builder.cpuType, builder.cpuSubtype) = (12, 11)
        case (false, .big): (builder.cpuType, builder.cpuSubtype) = (18, 0)
        case (true, .big): (builder.cpuType, builder.cpuSubtype) = (0x0100_0012, 0)
        }
        builder.segmentAlignment = 16
        builder.version = .buildVersion(platform: 2, minOS: "15.0", sdk: "17.2.1", tools: [(3, "1015.7"), (2, "5.9")])
        builder.dylibs = [
            .init("/usr/lib/libSystem.B.dylib", currentVersion: "1319.0.0"),
            .init("/System/Library/Frameworks/UIKit.framework/UIKit", currentVersion: "7082.1.107"),
            .init("@rpath/Optional.framework/Optional", kind: .weak),
            .init(
                "@rpath/Umbrella.framework/Umbrella", kind: .reexport, currentVersion: "2.3.4",
                compatibilityVersion: "2.0.0"),
            .init("/usr/lib/libsqlite3.dylib", kind: .lazy, currentVersion: "321.3.0", compatibilityVersion: "9.0.0"),
            .init("@rpath/Cycle.framework/Cycle", kind: .upward),
        ]
        builder.rpaths = ["/usr/lib/swift", "@executable_path/Frameworks"]
        builder.encryption = .init(cryptID: 0)
        builder.cStrings = ["OpenSSL 1.0.2k  26 Jan 2017", "https://example.com/api", "caf\u{E9}"]
        builder.symbols = [
            .defined("_main"),
            .defined("_SSL_CTX_new"),
            .defined("_helper", external: false),
            .objcClass("AppDelegate"),
            .init("_OBJC_CLASS_$_HiddenThing", .defined(external: false)),
            .init("_main.swift", .debug(type: 0x64)),
            .imported("_UIApplicationMain", ordinal: 2),
            .objcClass("UIViewController", importedFrom: 2),
            .imported("_OptionalThing", ordinal: 3, weak: true),
            .imported("_sqlite3_open", ordinal: 5),
            .imported("_host_function", ordinal: 0xFF),
            .imported("_anywhere", ordinal: 0xFE),
        ]
        var signature = MachOBuilder.CodeSignature(identifier: "com.example.app", teamIdentifier: teamID)
        signature.hashType = 1
        signature.alternateHashTypes = [2]
        signature.entitlementsXML = MachOBuilder.xmlEntitlements(entitlements)
        signature.entitlementsDER = MachOBuilder.derEntitlements(entitlements)
        signature.cms = .bytes(Array(repeating: 0x30, count: 40))
        builder.codeSignature = signature
        return builder
    }

    /// A small signed dylib.
    static func dylib() -> MachOBuilder {
        var builder = MachOBuilder.dylib(installName: "@rpath/Kit.framework/Kit")
        builder.segmentAlignment = 16
        builder.installName?.currentVersion = "4.5.6"
        builder.symbols = [.defined("_KitVersion"), .objcClass("KitView"), .objcClass("NSObject", importedFrom: 1)]
        builder.codeSignature = MachOBuilder.CodeSignature(identifier: "com.example.Kit", teamIdentifier: teamID)
        return builder
    }
}
