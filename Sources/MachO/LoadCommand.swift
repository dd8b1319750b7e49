/// `load_command.cmd`: the kind of a load command.
public struct LoadCommandType: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Set on commands dyld must understand to load the image.
    public static let requiredByDyld: UInt32 = 0x8000_0000

    public static let segment = LoadCommandType(rawValue: 0x1)
    public static let symtab = LoadCommandType(rawValue: 0x2)
    public static let dysymtab = LoadCommandType(rawValue: 0xB)
    public static let loadDylib = LoadCommandType(rawValue: 0xC)
    public static let idDylib = LoadCommandType(rawValue: 0xD)
    public static let loadDylinker = LoadCommandType(rawValue: 0xE)
    public static let idDylinker = LoadCommandType(rawValue: 0xF)
    public static let loadWeakDylib = LoadCommandType(rawValue: 0x8000_0018)
    public static let segment64 = LoadCommandType(rawValue: 0x19)
    public static let uuid = LoadCommandType(rawValue: 0x1B)
    public static let rpath = LoadCommandType(rawValue: 0x8000_001C)
    public static let codeSignature = LoadCommandType(rawValue: 0x1D)
    public static let segmentSplitInfo = LoadCommandType(rawValue: 0x1E)
    public static let reexportDylib = LoadCommandType(rawValue: 0x8000_001F)
    public static let lazyLoadDylib = LoadCommandType(rawValue: 0x20)
    public static let encryptionInfo = LoadCommandType(rawValue: 0x21)
    public static let dyldInfo = LoadCommandType(rawValue: 0x22)
    public static let dyldInfoOnly = LoadCommandType(rawValue: 0x8000_0022)
    public static let loadUpwardDylib = LoadCommandType(rawValue: 0x8000_0023)
    public static let versionMinMacOSX = LoadCommandType(rawValue: 0x24)
    public static let versionMinIPhoneOS = LoadCommandType(rawValue: 0x25)
    public static let functionStarts = LoadCommandType(rawValue: 0x26)
    public static let dyldEnvironment = LoadCommandType(rawValue: 0x27)
    public static let main = LoadCommandType(rawValue: 0x8000_0028)
    public static let dataInCode = LoadCommandType(rawValue: 0x29)
    public static let sourceVersion = LoadCommandType(rawValue: 0x2A)
    public static let dylibCodeSignDRs = LoadCommandType(rawValue: 0x2B)
    public static let encryptionInfo64 = LoadCommandType(rawValue: 0x2C)
    public static let linkerOption = LoadCommandType(rawValue: 0x2D)
    public static let linkerOptimizationHint = LoadCommandType(rawValue: 0x2E)
    public static let versionMinTVOS = LoadCommandType(rawValue: 0x2F)
    public static let versionMinWatchOS = LoadCommandType(rawValue: 0x30)
    public static let note = LoadCommandType(rawValue: 0x31)
    public static let buildVersion = LoadCommandType(rawValue: 0x32)
    public static let dyldExportsTrie = LoadCommandType(rawValue: 0x8000_0033)
    public static let dyldChainedFixups = LoadCommandType(rawValue: 0x8000_0034)
    public static let filesetEntry = LoadCommandType(rawValue: 0x8000_0035)

    private static let names: [UInt32: String] = [
        0x1: "LC_SEGMENT", 0x2: "LC_SYMTAB", 0xB: "LC_DYSYMTAB", 0xC: "LC_LOAD_DYLIB", 0xD: "LC_ID_DYLIB",
        0xE: "LC_LOAD_DYLINKER", 0xF: "LC_ID_DYLINKER", 0x8000_0018: "LC_LOAD_WEAK_DYLIB",
        0x19: "LC_SEGMENT_64", 0x1B: "LC_UUID", 0x8000_001C: "LC_RPATH", 0x1D: "LC_CODE_SIGNATURE",
        0x1E: "LC_SEGMENT_SPLIT_INFO", 0x8000_001F: "LC_REEXPORT_DYLIB", 0x20: "LC_LAZY_LOAD_DYLIB",
        0x21: "LC_ENCRYPTION_INFO", 0x22: "LC_DYLD_INFO", 0x8000_0022: "LC_DYLD_INFO_ONLY",
        0x8000_0023: "LC_LOAD_UPWARD_DYLIB", 0x24: "LC_VERSION_MIN_MACOSX", 0x25: "LC_VERSION_MIN_IPHONEOS",
        0x26: "LC_FUNCTION_STARTS", 0x27: "LC_DYLD_ENVIRONMENT", 0x8000_0028: "LC_MAIN",
        0x29: "LC_DATA_IN_CODE", 0x2A: "LC_SOURCE_VERSION", 0x2B: "LC_DYLIB_CODE_SIGN_DRS",
        0x2C: "LC_ENCRYPTION_INFO_64", 0x2D: "LC_LINKER_OPTION", 0x2E: "LC_LINKER_OPTIMIZATION_HINT",
        0x2F: "LC_VERSION_MIN_TVOS", 0x30: "LC_VERSION_MIN_WATCHOS", 0x31: "LC_NOTE", 0x32: "LC_BUILD_VERSION",
        0x8000_0033: "LC_DYLD_EXPORTS_TRIE", 0x8000_0034: "LC_DYLD_CHAINED_FIXUPS",
        0x8000_0035: "LC_FILESET_ENTRY", 0x36: "LC_ATOM_INFO", 0x37: "LC_FUNCTION_VARIANTS",
        0x38: "LC_FUNCTION_VARIANT_FIXUPS", 0x39: "LC_TARGET_TRIPLE",
    ]

    /// `LC_LOAD_DYLIB`-style name, or the hex value for a command this reader does not name.
    public var name: String { Self.names[rawValue] ?? "load command 0x\(hex(rawValue))" }
    public var description: String { name }
}

/// Where one load command sits in its slice. The commands this reader understands are also
/// decoded into `MachOSlice` properties; this list keeps every command, known or not, in order.
public struct LoadCommand: Sendable, Equatable {
    public let type: LoadCommandType
    /// Offset of the command from the start of the slice.
    public let offset: Int
    /// `cmdsize`, including the 8-byte `cmd`/`cmdsize` prefix.
    public let size: Int
}

/// A library the image links, from an `LC_LOAD_DYLIB`-family command.
public struct LinkedLibrary: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// `LC_LOAD_DYLIB`: must be present at launch.
        case load
        /// `LC_LOAD_WEAK_DYLIB`: may be missing at launch.
        case weak
        /// `LC_REEXPORT_DYLIB`: its symbols are re-exported by this image.
        case reexport
        /// `LC_LAZY_LOAD_DYLIB`: loaded on first use.
        case lazy
        /// `LC_LOAD_UPWARD_DYLIB`: a dependency cycle broken upwards.
        case upward

        init?(command: LoadCommandType) {
            switch command {
            case .loadDylib: self = .load
            case .loadWeakDylib: self = .weak
            case .reexportDylib: self = .reexport
            case .lazyLoadDylib: self = .lazy
            case .loadUpwardDylib: self = .upward
            default: return nil
            }
        }

        /// The link a `dylib_use_command`'s flags make, or nil for a plain load.
        init?(useFlags flags: UInt32) {
            if flags & LinkedLibrary.useReexport != 0 {
                self = .reexport
            } else if flags & LinkedLibrary.useUpward != 0 {
                self = .upward
            } else if flags & LinkedLibrary.useWeakLink != 0 {
                self = .weak
            } else {
                return nil
            }
        }
    }

    /// `DYLIB_USE_MARKER`: in the timestamp field, it says the command is a `dylib_use_command`
    /// (name at offset 28, `DYLIB_USE_*` flags at 24), as Xcode 16's linker writes for a link
    /// whose kind or delayed initialisation the classic commands cannot say.
    public static let useMarker: UInt32 = 0x1A74_1800
    public static let useWeakLink: UInt32 = 0x01
    public static let useReexport: UInt32 = 0x02
    public static let useUpward: UInt32 = 0x04
    public static let useDelayedInit: UInt32 = 0x08

    public let kind: Kind
    /// The install name, e.g. `/usr/lib/libsqlite3.dylib` or `@rpath/Alamofire.framework/Alamofire`.
    public let path: String
    public let currentVersion: MachOVersion
    public let compatibilityVersion: MachOVersion
    /// Build timestamp of the library; ld64 writes 2 (`useMarker` for a `dylib_use_command`).
    public let timestamp: UInt32
    /// The `DYLIB_USE_*` flags of a `dylib_use_command`; nil for a classic command.
    public var useFlags: UInt32? = nil

    /// Whether dyld runs the library's initialisers only when it is first used (`DYLIB_USE_DELAYED_INIT`).
    public var initializesLate: Bool { (useFlags ?? 0) & Self.useDelayedInit != 0 }
}

/// The identity of a dynamic library (`LC_ID_DYLIB`): the install name other images link it by.
public struct DylibIdentity: Sendable, Equatable {
    public let installName: String
    public let currentVersion: MachOVersion
    public let compatibilityVersion: MachOVersion
    public let timestamp: UInt32
}

/// Deployment target and SDK, from `LC_BUILD_VERSION` or an older `LC_VERSION_MIN_*` command.
public struct BuildVersion: Sendable, Equatable {
    /// A tool that built the image (`LC_BUILD_VERSION` only).
    public struct Tool: Sendable, Equatable {
        /// 1 clang, 2 swift, 3 ld, 4 lld.
        public let tool: UInt32
        public let version: MachOVersion
    }

    public let platform: MachOPlatform
    /// The oldest OS version the image runs on (the deployment target).
    public let minimumOS: MachOVersion
    /// The SDK the image was built against; 0.0 when the linker did not record it.
    public let sdk: MachOVersion
    public let tools: [Tool]
    /// The command it came from: `LC_BUILD_VERSION` or `LC_VERSION_MIN_*`.
    public let command: LoadCommandType
}

/// `LC_ENCRYPTION_INFO(_64)`: the FairPlay-encrypted range of the slice.
public struct EncryptionInfo: Sendable, Equatable {
    /// Start of the encrypted range from the start of the slice.
    public let offset: UInt32
    public let size: UInt32
    /// Non-zero when the range is encrypted (App Store downloads); 0 in builds from Xcode.
    public let cryptID: UInt32

    public var isEncrypted: Bool { cryptID != 0 }
}

/// `linkedit_data_command`: a range of `__LINKEDIT`, such as the code signature.
public struct LinkeditDataRange: Sendable, Equatable {
    /// Offset from the start of the slice.
    public let offset: UInt32
    public let size: UInt32
}

/// `LC_SYMTAB`: where the `nlist` entries and the string table are.
public struct SymbolTableLocation: Sendable, Equatable {
    /// Offset of the first `nlist` from the start of the slice.
    public let symbolOffset: UInt32
    public let symbolCount: UInt32
    public let stringOffset: UInt32
    public let stringSize: UInt32
}

/// `LC_DYSYMTAB` index ranges into the symbol table: locals, then external definitions, then
/// undefined (imported) symbols.
public struct DynamicSymbolTableRanges: Sendable, Equatable {
    public let localIndex: UInt32
    public let localCount: UInt32
    public let externalDefinedIndex: UInt32
    public let externalDefinedCount: UInt32
    public let undefinedIndex: UInt32
    public let undefinedCount: UInt32
}

/// The 128-bit image UUID (`LC_UUID`) that ties a binary to its dSYM and crash reports.
public struct MachOUUID: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// `C4EB91AD-549B-3F1E-A423-90B0B5960943`.
    public var description: String {
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text += "-" }
            text +=
                byte < 16 ? "0" + String(byte, radix: 16, uppercase: true) : String(byte, radix: 16, uppercase: true)
        }
        return text
    }
}

/// `LC_SEGMENT(_64)`: a range of the file mapped into memory, and its sections.
public struct MachOSegment: Sendable, Equatable {
    public let name: String
    public let vmAddress: UInt64
    public let vmSize: UInt64
    /// Offset of the segment's bytes from the start of the slice.
    public let fileOffset: UInt64
    public let fileSize: UInt64
    public let maximumProtection: Int32
    public let initialProtection: Int32
    public let flags: UInt32
    public let sections: [MachOSection]
}

/// A section of a segment, such as `__TEXT,__cstring`.
public struct MachOSection: Sendable, Equatable {
    public let segmentName: String
    public let name: String
    public let address: UInt64
    public let size: UInt64
    /// Offset of the section's bytes from the start of the slice; 0 for zero-fill sections.
    public let offset: UInt32
    /// log2 of the alignment.
    public let alignment: UInt32
    public let flags: UInt32

    /// `S_ZEROFILL`-style sections occupy no bytes in the file.
    public var isZeroFill: Bool {
        let type = flags & 0xFF
        return type == 0x1 || type == 0xC || type == 0x12
    }

    /// `S_CSTRING_LITERALS`: the section holds NUL-terminated strings.
    public var holdsCStrings: Bool { flags & 0xFF == 0x2 }
}
