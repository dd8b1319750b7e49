import FormatSupport

/// One architecture of a Mach-O file: its header and what its load commands say.
///
/// Parsing reads only the header and the load commands. The code signature's bytes, the symbol
/// table and section contents are read on request (`readCodeSignatureBytes(from:)`, which the
/// `CodeSignature` module parses; `readSymbolTable(from:limits:)`,
/// `readCStrings(segment:section:from:maxBytes:)`) from the same `ByteSource` the file was parsed from.
public struct MachOSlice: Sendable {
    /// The load commands may take at most this many bytes; real images use a few KiB.
    public static let maximumLoadCommandsSize = 16 << 20

    public let header: MachHeader
    /// Start of the slice from the start of the file (0 for a thin file).
    public let offset: UInt64
    /// Size of the slice in bytes (the whole file for a thin file).
    public let size: UInt64

    /// Every load command in order, including those not decoded below.
    public let loadCommands: [LoadCommand]
    public let segments: [MachOSegment]
    /// `LC_BUILD_VERSION` and `LC_VERSION_MIN_*` commands in order; see `buildVersion`.
    public let buildVersions: [BuildVersion]
    /// Libraries from `LC_LOAD_DYLIB`, `LC_LOAD_WEAK_DYLIB`, `LC_REEXPORT_DYLIB`,
    /// `LC_LAZY_LOAD_DYLIB` and `LC_LOAD_UPWARD_DYLIB`, in command order; a symbol's library
    /// ordinal N names element N−1.
    public let linkedLibraries: [LinkedLibrary]
    /// `LC_ID_DYLIB` of a dynamic library.
    public let dylibIdentity: DylibIdentity?
    /// `LC_RPATH` paths in order, e.g. `@executable_path/Frameworks`.
    public let rpaths: [String]
    public let encryption: EncryptionInfo?
    public let uuid: MachOUUID?
    /// `LC_CODE_SIGNATURE`: where the embedded signature SuperBlob is.
    public let codeSignatureRange: LinkeditDataRange?
    public let symbolTableLocation: SymbolTableLocation?
    public let dynamicSymbolTable: DynamicSymbolTableRanges?
    /// `LC_LOAD_DYLINKER` path, `/usr/lib/dyld` for executables.
    public let dynamicLinker: String?
    /// `LC_MAIN` entry point offset from the start of `__TEXT`.
    public let entryPointOffset: UInt64?
    /// The header and load commands as read, `[0, header.size + sizeofcmds)` of the slice: what
    /// a signing layout edits.
    let headerAndCommandBytes: [UInt8]

    public var architecture: MachOArchitecture { header.architecture }
    public var fileType: MachOFileType { header.fileType }
    public var is64Bit: Bool { header.is64Bit }
    public var byteOrder: Endianness { header.byteOrder }

    /// The deployment target: the first `LC_BUILD_VERSION`, else the first `LC_VERSION_MIN_*`.
    public var buildVersion: BuildVersion? {
        buildVersions.first { $0.command == .buildVersion } ?? buildVersions.first
    }

    /// The `LC_ID_DYLIB` install name.
    public var installName: String? { dylibIdentity?.installName }

    /// Whether `LC_ENCRYPTION_INFO(_64)` marks part of the slice as FairPlay-encrypted.
    public var isEncrypted: Bool { encryption?.isEncrypted ?? false }

    /// The section named `segment,section`, e.g. `("__TEXT", "__cstring")`.
    public func section(segment: String, name: String) -> MachOSection? {
        segments.lazy.flatMap(\.sections).first { $0.segmentName == segment && $0.name == name }
    }

    /// Reads the header and load commands of a slice at `offset`, `size` bytes long, in `source`.
    /// `clock` is the time limit of the work on the file, checked per load command.
    public init<Source: ByteSource>(
        reading source: inout Source, offset: UInt64, size: UInt64, clock: WorkClock = .unlimited
    ) throws {
        let sliceEnd = offset.addingReportingOverflow(size)
        guard !sliceEnd.overflow, sliceEnd.partialValue <= source.size else {
            throw MachOError(.truncated, "the slice at offset \(offset), size \(size), ends past the end of the file")
        }
        let prefix = try readChecked(&source, offset: offset, count: Int(min(size, 32)))
        let header = try MachHeader(bytes: prefix)
        guard UInt64(header.size) <= size else {
            throw MachOError(.truncated, "the \(header.size)-byte Mach-O header is cut off after \(size) bytes")
        }
        let commandsSize = Int(header.commandsSize)
        guard commandsSize <= Self.maximumLoadCommandsSize else {
            throw MachOError(
                .loadCommands,
                "sizeofcmds is \(commandsSize) bytes, more than the \(Self.maximumLoadCommandsSize)-byte limit"
            )
            .inSlice(header.architecture.name)
        }
        let total = header.size + commandsSize
        guard UInt64(total) <= size else {
            throw MachOError(
                .truncated,
                "the \(commandsSize) bytes of load commands extend past the end of the \(size)-byte slice"
            )
            .inSlice(header.architecture.name)
        }
        let bytes = try readChecked(&source, offset: offset, count: total)
        try self.init(headerAndCommands: bytes, offset: offset, size: size, clock: clock)
    }

    /// Parses a slice from its first bytes, which must hold the header and all load commands;
    /// `offset` and `size` place the slice in its file.
    public init(
        headerAndCommands bytes: [UInt8], offset: UInt64, size: UInt64, clock: WorkClock = .unlimited
    ) throws(MachOError) {
        let header = try MachHeader(bytes: bytes)
        do {
            var parser = LoadCommandParser(header: header, bytes: bytes, clock: clock)
            try parser.parse()
            self.header = header
            self.offset = offset
            self.size = size
            loadCommands = parser.commands
            segments = parser.segments
            buildVersions = parser.buildVersions
            linkedLibraries = parser.linkedLibraries
            dylibIdentity = parser.dylibIdentity
            rpaths = parser.rpaths
            encryption = parser.encryption
            uuid = parser.uuid
            codeSignatureRange = parser.codeSignature
            symbolTableLocation = parser.symbolTable
            dynamicSymbolTable = parser.dynamicSymbolTable
            dynamicLinker = parser.dynamicLinker
            entryPointOffset = parser.entryPointOffset
            headerAndCommandBytes = Array(bytes.prefix(header.size + Int(header.commandsSize)))
        } catch {
            throw error.inSlice(header.architecture.name)
        }
    }
}

/// Reads `[offset, offset + count)` after checking it lies in the source, turning a short read
/// into `MACHO_TRUNCATED`; I/O errors from the source pass through unchanged.
func readChecked<Source: ByteSource>(_ source: inout Source, offset: UInt64, count: Int) throws -> [UInt8] {
    guard count >= 0, offset <= source.size, UInt64(count) <= source.size - offset else {
        throw MachOError(
            .truncated, "needed \(count) bytes at offset \(offset), but the file has \(source.size) bytes")
    }
    do {
        return try source.read(offset: offset, count: count)
    } catch is OutOfBoundsError {
        throw MachOError(.truncated, "needed \(count) bytes at offset \(offset), but the data ended first")
    }
}

/// Walks the load commands of one slice, checking each against the command area and decoding the
/// ones `MachOSlice` exposes.
private struct LoadCommandParser {
    let header: MachHeader
    let reader: ByteReader
    var order: Endianness { header.byteOrder }

    var commands: [LoadCommand] = []
    var segments: [MachOSegment] = []
    var buildVersions: [BuildVersion] = []
    var linkedLibraries: [LinkedLibrary] = []
    var dylibIdentity: DylibIdentity?
    var rpaths: [String] = []
    var encryption: EncryptionInfo?
    var uuid: MachOUUID?
    var codeSignature: LinkeditDataRange?
    var symbolTable: SymbolTableLocation?
    var dynamicSymbolTable: DynamicSymbolTableRanges?
    var dynamicLinker: String?
    var entryPointOffset: UInt64?
    private var seenUnique: Set<UInt32> = []

    private var clock: WorkClock

    init(header: MachHeader, bytes: [UInt8], clock: WorkClock) {
        self.header = header
        self.clock = clock
        self.reader = ByteReader(bytes)
    }

    mutating func parse() throws(MachOError) {
        let start = header.size
        let areaSize = Int(header.commandsSize)
        guard areaSize <= reader.count - start else {
            throw MachOError(.truncated, "the \(areaSize) bytes of load commands are cut off")
        }
        let count = Int(header.commandCount)
        // Every command takes at least its 8-byte prefix, which bounds the loop by the area.
        guard count <= areaSize / 8 else {
            throw MachOError(
                .loadCommands,
                "ncmds is \(count), more than the \(areaSize)-byte load-command area (sizeofcmds) can hold")
        }
        let end = start + areaSize
        let alignment = header.is64Bit ? 8 : 4
        var offset = start
        commands.reserveCapacity(count)
        for index in 0..<count {
            if clock.isExpired(after: 1) { throw MachOError(.timeLimit, clock.timeLimitMessage) }
            guard end - offset >= 8 else {
                throw MachOError(
                    .loadCommands,
                    "load command \(index) starts past the end of the \(areaSize)-byte area (ncmds \(count))")
            }
            let type = LoadCommandType(rawValue: try u32(offset))
            let size = Int(try u32(offset + 4))
            guard size >= 8, size % alignment == 0 else {
                throw MachOError(
                    .loadCommands,
                    "load command \(index) (\(type.name)) has cmdsize \(size), which is not a non-zero multiple of \(alignment)"
                )
            }
            guard size <= end - offset else {
                throw MachOError(
                    .loadCommands,
                    "load command \(index) (\(type.name)) with cmdsize \(size) extends past the end of the \(areaSize)-byte area"
                )
            }
            let command = LoadCommand(type: type, offset: offset, size: size)
            commands.append(command)
            do throws(MachOError) {
                try decode(command)
            } catch {
                throw MachOError(error.reason, "load command \(index) (\(type.name)): \(error.message)")
            }
            offset += size
        }
    }

    private func u32(_ at: Int) throws(MachOError) -> UInt32 {
        do { return try reader.uint32(at: at, order) } catch { throw tooSmall() }
    }

    private func u64(_ at: Int) throws(MachOError) -> UInt64 {
        do { return try reader.uint64(at: at, order) } catch { throw tooSmall() }
    }

    private func tooSmall() -> MachOError {
        MachOError(.loadCommand, "a field lies past the end of the command")
    }

    private mutating func requireUnique(_ command: LoadCommand, group: UInt32? = nil) throws(MachOError) {
        guard seenUnique.insert(group ?? command.type.rawValue).inserted else {
            throw MachOError(.loadCommand, "the command appears more than once")
        }
    }

    private func requireSize(_ command: LoadCommand, atLeast minimum: Int) throws(MachOError) {
        guard command.size >= minimum else {
            throw MachOError(
                .loadCommand, "cmdsize \(command.size) is smaller than the \(minimum) bytes the command needs")
        }
    }

    /// The `lc_str` whose offset (from the command start) is stored at `fieldOffset`: it must
    /// start after the fixed fields and end with a NUL inside the command.
    private func string(in command: LoadCommand, fieldOffset: Int, fixedSize: Int) throws(MachOError) -> String {
        let stringOffset = Int(try u32(command.offset + fieldOffset))
        guard stringOffset >= fixedSize, stringOffset < command.size else {
            throw MachOError(
                .loadCommand,
                "the string offset \(stringOffset) is outside the command's \(fixedSize)..<\(command.size) range")
        }
        do {
            let window = try reader.window(offset: command.offset, length: command.size)
            let bytes = try window.cString(at: command.offset + stringOffset, maxLength: command.size - stringOffset)
            return String(decoding: bytes, as: UTF8.self)
        } catch {
            throw MachOError(
                .loadCommand, "the string at offset \(stringOffset) is not NUL-terminated inside the command")
        }
    }

    private func fixedName(at offset: Int) throws(MachOError) -> String {
        do {
            return String(decoding: try reader.nulTerminatedField(at: offset, size: 16), as: UTF8.self)
        } catch {
            throw tooSmall()
        }
    }

    private mutating func decode(_ command: LoadCommand) throws(MachOError) {
        let at = command.offset
        switch command.type {
        case .loadDylib, .loadWeakDylib, .reexportDylib, .lazyLoadDylib, .loadUpwardDylib, .idDylib:
            try requireSize(command, atLeast: 24)
            let path = try string(in: command, fieldOffset: 8, fixedSize: 24)
            let timestamp = try u32(at + 12)
            let current = MachOVersion(rawValue: try u32(at + 16))
            let compatibility = MachOVersion(rawValue: try u32(at + 20))
            if var kind = LinkedLibrary.Kind(command: command.type) {
                // ld-prime's `dylib_use_command`: the marker where the timestamp was, and the
                // weak, re-export and upward links as flags of an LC_LOAD_DYLIB.
                var useFlags: UInt32?
                if command.type == .loadDylib || command.type == .loadWeakDylib, timestamp == LinkedLibrary.useMarker,
                    command.size >= 28, try u32(at + 8) == 28
                {
                    let flags = try u32(at + 24)
                    useFlags = flags
                    kind = LinkedLibrary.Kind(useFlags: flags) ?? kind
                }
                linkedLibraries.append(
                    LinkedLibrary(
                        kind: kind, path: path, currentVersion: current, compatibilityVersion: compatibility,
                        timestamp: timestamp, useFlags: useFlags))
            } else {
                try requireUnique(command)
                dylibIdentity = DylibIdentity(
                    installName: path, currentVersion: current, compatibilityVersion: compatibility,
                    timestamp: timestamp)
            }
        case .rpath:
            try requireSize(command, atLeast: 12)
            rpaths.append(try string(in: command, fieldOffset: 8, fixedSize: 12))
        case .loadDylinker:
            try requireSize(command, atLeast: 12)
            try requireUnique(command)
            dynamicLinker = try string(in: command, fieldOffset: 8, fixedSize: 12)
        case .uuid:
            try requireSize(command, atLeast: 24)
            try requireUnique(command)
            do {
                uuid = MachOUUID(bytes: Array(try reader.bytes(at: at + 8, count: 16)))
            } catch {
                throw tooSmall()
            }
        case .buildVersion:
            try requireSize(command, atLeast: 24)
            let toolCount = Int(try u32(at + 20))
            guard toolCount <= (command.size - 24) / 8 else {
                throw MachOError(
                    .loadCommand, "ntools is \(toolCount), more than the \(command.size)-byte command holds")
            }
            var tools: [BuildVersion.Tool] = []
            tools.reserveCapacity(toolCount)
            for tool in 0..<toolCount {
                tools.append(
                    BuildVersion.Tool(
                        tool: try u32(at + 24 + tool * 8),
                        version: MachOVersion(rawValue: try u32(at + 28 + tool * 8))))
            }
            buildVersions.append(
                BuildVersion(
                    platform: MachOPlatform(rawValue: try u32(at + 8)),
                    minimumOS: MachOVersion(rawValue: try u32(at + 12)),
                    sdk: MachOVersion(rawValue: try u32(at + 16)),
                    tools: tools, command: command.type))
        case .versionMinIPhoneOS, .versionMinMacOSX, .versionMinTVOS, .versionMinWatchOS:
            try requireSize(command, atLeast: 16)
            try requireUnique(command, group: LoadCommandType.versionMinIPhoneOS.rawValue)
            let platform: MachOPlatform =
                switch command.type {
                case .versionMinMacOSX: .macOS
                case .versionMinTVOS: .tvOS
                case .versionMinWatchOS: .watchOS
                default: .iOS
                }
            buildVersions.append(
                BuildVersion(
                    platform: platform,
                    minimumOS: MachOVersion(rawValue: try u32(at + 8)),
                    sdk: MachOVersion(rawValue: try u32(at + 12)),
                    tools: [], command: command.type))
        case .encryptionInfo, .encryptionInfo64:
            try requireSize(command, atLeast: command.type == .encryptionInfo ? 20 : 24)
            try requireUnique(command, group: LoadCommandType.encryptionInfo.rawValue)
            encryption = EncryptionInfo(offset: try u32(at + 8), size: try u32(at + 12), cryptID: try u32(at + 16))
        case .codeSignature:
            try requireSize(command, atLeast: 16)
            try requireUnique(command)
            codeSignature = LinkeditDataRange(offset: try u32(at + 8), size: try u32(at + 12))
        case .symtab:
            try requireSize(command, atLeast: 24)
            try requireUnique(command)
            symbolTable = SymbolTableLocation(
                symbolOffset: try u32(at + 8), symbolCount: try u32(at + 12),
                stringOffset: try u32(at + 16), stringSize: try u32(at + 20))
        case .dysymtab:
            try requireSize(command, atLeast: 80)
            try requireUnique(command)
            dynamicSymbolTable = DynamicSymbolTableRanges(
                localIndex: try u32(at + 8), localCount: try u32(at + 12),
                externalDefinedIndex: try u32(at + 16), externalDefinedCount: try u32(at + 20),
                undefinedIndex: try u32(at + 24), undefinedCount: try u32(at + 28))
        case .main:
            try requireSize(command, atLeast: 24)
            try requireUnique(command)
            entryPointOffset = try u64(at + 8)
        case .segment:
            try requireSize(command, atLeast: 56)
            segments.append(try segment32(command))
        case .segment64:
            try requireSize(command, atLeast: 72)
            segments.append(try segment64(command))
        default:
            break
        }
    }

    private func segment32(_ command: LoadCommand) throws(MachOError) -> MachOSegment {
        let at = command.offset
        let sectionCount = Int(try u32(at + 48))
        guard sectionCount <= (command.size - 56) / 68 else {
            throw MachOError(
                .loadCommand, "nsects is \(sectionCount), more than the \(command.size)-byte command holds")
        }
        var sections: [MachOSection] = []
        sections.reserveCapacity(sectionCount)
        for index in 0..<sectionCount {
            let s = at + 56 + index * 68
            sections.append(
                MachOSection(
                    segmentName: try fixedName(at: s + 16), name: try fixedName(at: s),
                    address: UInt64(try u32(s + 32)), size: UInt64(try u32(s + 36)), offset: try u32(s + 40),
                    alignment: try u32(s + 44), flags: try u32(s + 56)))
        }
        return MachOSegment(
            name: try fixedName(at: at + 8), vmAddress: UInt64(try u32(at + 24)), vmSize: UInt64(try u32(at + 28)),
            fileOffset: UInt64(try u32(at + 32)), fileSize: UInt64(try u32(at + 36)),
            maximumProtection: Int32(bitPattern: try u32(at + 40)),
            initialProtection: Int32(bitPattern: try u32(at + 44)),
            flags: try u32(at + 52), sections: sections)
    }

    private func segment64(_ command: LoadCommand) throws(MachOError) -> MachOSegment {
        let at = command.offset
        let sectionCount = Int(try u32(at + 64))
        guard sectionCount <= (command.size - 72) / 80 else {
            throw MachOError(
                .loadCommand, "nsects is \(sectionCount), more than the \(command.size)-byte command holds")
        }
        var sections: [MachOSection] = []
        sections.reserveCapacity(sectionCount)
        for index in 0..<sectionCount {
            let s = at + 72 + index * 80
            sections.append(
                MachOSection(
                    segmentName: try fixedName(at: s + 16), name: try fixedName(at: s),
                    address: try u64(s + 32), size: try u64(s + 40), offset: try u32(s + 48),
                    alignment: try u32(s + 52), flags: try u32(s + 64)))
        }
        return MachOSegment(
            name: try fixedName(at: at + 8), vmAddress: try u64(at + 24), vmSize: try u64(at + 32),
            fileOffset: try u64(at + 40), fileSize: try u64(at + 48),
            maximumProtection: Int32(bitPattern: try u32(at + 56)),
            initialProtection: Int32(bitPattern: try u32(at + 60)),
            flags: try u32(at + 68), sections: sections)
    }
}
