import FormatSupport

/// Writes Mach-O files for tests and for the sample-app generator: thin 32- or 64-bit images in
/// either byte order with a realistic layout (`__PAGEZERO`, `__TEXT` with `__text` and
/// `__cstring`, optionally `__DATA` with `__data`, `__LINKEDIT` holding the symbol table, string
/// table and code signature), and fat files combining them.
///
/// The output is what ld64 and codesign lay out, so independent tools (`llvm-objdump --macho`,
/// `llvm-nm`) accept it; hostile variants are made by the override fields or by patching the bytes
/// at the offsets `Layout` reports. Page hashes are zeros unless `CodeSignature.hasher` is set
/// (this target has no crypto dependency).
///
/// This file deliberately does not use the MachO target, so the reader is tested against an
/// independent writer.
public struct MachOBuilder: Sendable {
    // MARK: Header

    public var cpuType: Int32 = 0x0100_000C  // arm64
    public var cpuSubtype: Int32 = 0
    public var is64Bit = true
    public var byteOrder: Endianness = .little
    /// `MH_EXECUTE` (2), `MH_DYLIB` (6), `MH_BUNDLE` (8)…
    public var fileType: UInt32 = 2
    /// NOUNDEFS | DYLDLINK | TWOLEVEL | PIE.
    public var flags: UInt32 = 0x0020_0085
    /// Alignment of segment file offsets: 0x4000 like ld64 for arm64; small values keep files tiny.
    public var segmentAlignment = 0x4000

    // MARK: Load commands

    public enum VersionCommand: Sendable {
        /// `LC_BUILD_VERSION` (platform 2 = iOS) with `{tool, version}` pairs (tool 3 = ld).
        case buildVersion(platform: UInt32, minOS: String, sdk: String, tools: [(tool: UInt32, version: String)])
        /// `LC_VERSION_MIN_IPHONEOS` (0x25) or another `LC_VERSION_MIN_*` command.
        case versionMin(command: UInt32, minOS: String, sdk: String)

        public static func iOS(_ minOS: String, sdk: String) -> VersionCommand {
            .buildVersion(platform: 2, minOS: minOS, sdk: sdk, tools: [(3, "820.1")])
        }
    }

    public struct Dylib: Sendable {
        public enum Kind: UInt32, Sendable, CaseIterable {
            case load = 0xC
            case weak = 0x8000_0018
            case reexport = 0x8000_001F
            case lazy = 0x20
            case upward = 0x8000_0023
        }

        public var kind: Kind
        public var path: String
        public var currentVersion: String
        public var compatibilityVersion: String

        /// Written as Xcode 16's linker writes a `dylib_use_command`: `DYLIB_USE_MARKER` in the
        /// timestamp, these `DYLIB_USE_*` flags after the versions, the name at 28.
        public var useFlags: UInt32?

        public init(
            _ path: String, kind: Kind = .load, currentVersion: String = "1.0.0", compatibilityVersion: String = "1.0.0",
            useFlags: UInt32? = nil
        ) {
            self.kind = kind
            self.path = path
            self.currentVersion = currentVersion
            self.compatibilityVersion = compatibilityVersion
            self.useFlags = useFlags
        }
    }

    public var version: VersionCommand? = .iOS("14.0", sdk: "16.4")
    /// `LC_ID_DYLIB` install name and versions, for `fileType` 6.
    public var installName: Dylib?
    /// `LC_LOAD_DYLIB`-family commands in order; symbol library ordinal N refers to element N−1.
    public var dylibs: [Dylib] = [Dylib("/usr/lib/libSystem.B.dylib", currentVersion: "1319.0.0")]
    public var rpaths: [String] = []
    public var uuid: [UInt8]? = [
        0xC4, 0xEB, 0x91, 0xAD, 0x54, 0x9B, 0x3F, 0x1E, 0xA4, 0x23, 0x90, 0xB0, 0xB5, 0x96, 0x09, 0x43,
    ]
    /// `LC_LOAD_DYLINKER`; nil for dylibs and bundles.
    public var dylinker: String? = "/usr/lib/dyld"
    /// Whether to write `LC_MAIN` (executables).
    public var includeMain = true
    /// `LC_ENCRYPTION_INFO(_64)`; by default it covers `__text` and `__cstring`.
    public var encryption: Encryption?
    /// Commands written verbatim after the others and before `LC_CODE_SIGNATURE`: `cmd`, then
    /// `payload` after the 8-byte prefix, padded to the command alignment unless `cmdsize` is given.
    public var extraCommands: [RawCommand] = []

    public struct Encryption: Sendable {
        public var cryptID: UInt32
        /// Explicit range; nil covers the `__TEXT` contents after the load commands.
        public var offset: UInt32?
        public var size: UInt32?

        public init(cryptID: UInt32, offset: UInt32? = nil, size: UInt32? = nil) {
            self.cryptID = cryptID
            self.offset = offset
            self.size = size
        }
    }

    public struct RawCommand: Sendable {
        public var command: UInt32
        public var payload: [UInt8]
        public var cmdsize: UInt32?

        public init(command: UInt32, payload: [UInt8], cmdsize: UInt32? = nil) {
            self.command = command
            self.payload = payload
            self.cmdsize = cmdsize
        }
    }

    // MARK: Contents

    /// The `__TEXT,__text` bytes.
    public var code: [UInt8] = Array(repeating: 0x1F, count: 32)
    /// `__TEXT,__cstring` strings; the section is omitted when empty.
    public var cStrings: [String] = []
    /// `__TEXT,__info_plist` bytes after `__cstring`, as ld64 writes `-sectcreate __TEXT
    /// __info_plist` (the Swift runtime's dylibs carry one); omitted when nil.
    public var infoPlist: [UInt8]?
    /// `__DATA,__data` bytes, in a `__DATA` segment between `__TEXT` and `__LINKEDIT`; the segment
    /// is omitted when nil.
    public var data: [UInt8]?
    /// Zero bytes between the end of the load commands and `__text` beyond the 16-byte alignment,
    /// as ld64's `-headerpad` leaves: room to add load commands later. With 0 there is less than
    /// one 16-byte command of room.
    public var headerPadding = 0
    /// Symbols; written locals first, then external definitions, then undefined ones, each group
    /// in the given order, as `LC_DYSYMTAB` requires. `LC_SYMTAB` is omitted when empty.
    public var symbols: [Symbol] = []
    public var codeSignature: CodeSignature?

    public struct Symbol: Sendable {
        public enum Kind: Sendable {
            /// Defined in `__text` (section 1); `external` sets `N_EXT`.
            case defined(external: Bool)
            /// Undefined (`N_UNDF | N_EXT`) bound to library `ordinal` (1-based; 0 self,
            /// 0xFE dynamic lookup, 0xFF main executable).
            case imported(ordinal: UInt8, weak: Bool)
            /// A debugger (stab) entry such as `N_FUN` (0x24).
            case debug(type: UInt8)
        }

        public var name: String
        public var kind: Kind

        public init(_ name: String, _ kind: Kind) {
            self.name = name
            self.kind = kind
        }

        public static func defined(_ name: String, external: Bool = true) -> Symbol {
            Symbol(name, .defined(external: external))
        }

        public static func imported(_ name: String, ordinal: UInt8, weak: Bool = false) -> Symbol {
            Symbol(name, .imported(ordinal: ordinal, weak: weak))
        }

        /// `_OBJC_CLASS_$_<name>`, defined here when `ordinal` is nil, else imported from it.
        public static func objcClass(_ name: String, importedFrom ordinal: UInt8? = nil) -> Symbol {
            if let ordinal { return .imported("_OBJC_CLASS_$_" + name, ordinal: ordinal) }
            return .defined("_OBJC_CLASS_$_" + name)
        }
    }

    public struct CodeSignature: Sendable {
        public enum CMS: Sendable {
            /// No slot 0x10000 (some old ad-hoc signers).
            case absent
            /// An empty BlobWrapper, as codesign writes for ad-hoc signatures.
            case empty
            /// A BlobWrapper holding these bytes (a real signature holds DER CMS `SignedData`).
            case bytes([UInt8])
        }

        public var identifier: String
        public var teamIdentifier: String?
        /// 0x20400 (execSeg fields) by default, as current codesign writes.
        public var version: UInt32 = 0x20400
        /// `CS_*` flags; 0x2 is `CS_ADHOC`.
        public var flags: UInt32 = 0
        /// Hash type of the slot-0 CodeDirectory: 1 SHA-1 (20 bytes), 2 SHA-256 (32 bytes).
        public var hashType: UInt8 = 2
        /// Hash types of alternate CodeDirectories in slots 0x1000…; codesign writes SHA-1 in
        /// slot 0 and SHA-256 in 0x1000.
        public var alternateHashTypes: [UInt8] = []
        public var pageSizeLog2: UInt8 = 12
        public var entitlementsXML: [UInt8]?
        public var entitlementsDER: [UInt8]?
        /// Writes an empty requirement set (`0xFADE0C01`, count 0) in slot 2.
        public var includeRequirements = true
        /// The whole slot-2 blob to write instead of the empty set (with `includeRequirements`).
        public var requirements: [UInt8]?
        public var cms: CMS = .empty
        /// Hashes for special slots by number (1 Info.plist, 3 CodeResources…); slots 2, 5 and 7
        /// are hashed from their blobs when `hasher` is set.
        public var specialSlotHashes: [Int: [UInt8]] = [:]
        /// What special slots seal by number (1 the Info.plist's bytes, 3 CodeResources'),
        /// hashed with each CodeDirectory's own hash type by `hasher`, as a real signer does.
        public var specialSlotContents: [Int: [UInt8]] = [:]
        /// Computes a digest of the given hash type; nil leaves every hash zero.
        public var hasher: (@Sendable (_ hashType: UInt8, _ bytes: [UInt8]) -> [UInt8])?
        /// `LC_CODE_SIGNATURE`'s `datasize` when larger than the signature (rounded up to 16),
        /// zero-filled after it, as codesign over-reserves.
        public var reservedSize: Int?

        public init(identifier: String, teamIdentifier: String? = nil) {
            self.identifier = identifier
            self.teamIdentifier = teamIdentifier
        }
    }

    // MARK: Hostile overrides

    /// Written as `ncmds` instead of the real count.
    public var commandCountOverride: UInt32?
    /// Written as `sizeofcmds` instead of the real size.
    public var commandsSizeOverride: UInt32?
    /// Written as `nsyms` instead of the real count.
    public var symbolCountOverride: UInt32?

    public init() {}

    /// A realistic 64-bit iOS dynamic library with `installName`.
    public static func dylib(installName: String) -> MachOBuilder {
        var builder = MachOBuilder()
        builder.fileType = 6
        builder.flags = 0x0010_0085  // NOUNDEFS | DYLDLINK | TWOLEVEL | NO_REEXPORTED_DYLIBS
        builder.installName = Dylib(installName)
        builder.dylinker = nil
        builder.includeMain = false
        return builder
    }

    // MARK: Output

    /// Where things ended up, for tests that patch the bytes.
    public struct Layout: Sendable {
        public var headerSize = 0
        /// `(cmd, offset)` of every load command in order.
        public var commands: [(command: UInt32, offset: Int)] = []
        public var commandsEnd = 0
        public var textOffset = 0
        public var cStringOffset = 0
        /// Where `__DATA` starts (its `__data` section), when there is one.
        public var dataOffset = 0
        /// Where `__LINKEDIT` starts and how long it is.
        public var linkeditOffset = 0
        public var linkeditSize = 0
        public var cStringSize = 0
        public var symbolTableOffset = 0
        public var stringTableOffset = 0
        public var stringTableSize = 0
        public var codeSignatureOffset = 0
        public var codeSignatureSize = 0

        /// Offset of the first load command of type `command`.
        public func offset(of command: UInt32) -> Int? {
            commands.first { $0.command == command }?.offset
        }
    }

    public func build() -> [UInt8] {
        buildWithLayout().bytes
    }

    public func buildWithLayout() -> (bytes: [UInt8], layout: Layout) {
        var layout = Layout()
        let order = byteOrder
        let wordAlign = is64Bit ? 8 : 4
        let headerSize = is64Bit ? 32 : 28
        layout.headerSize = headerSize

        // Symbols in dysymtab order, and the string table (ld64 starts it with " \0").
        let locals = symbols.filter {
            switch $0.kind {
            case .defined(let external): !external
            case .debug: true
            case .imported: false
            }
        }
        let externals = symbols.filter { if case .defined(true) = $0.kind { true } else { false } }
        let undefined = symbols.filter { if case .imported = $0.kind { true } else { false } }
        let orderedSymbols = locals + externals + undefined
        var strings: [UInt8] = [0x20, 0]
        var stringIndex: [Int] = []
        for symbol in orderedSymbols {
            stringIndex.append(strings.count)
            strings += Array(symbol.name.utf8) + [0]
        }
        while strings.count % wordAlign != 0 { strings.append(0) }

        var cStringBytes: [UInt8] = []
        for string in cStrings { cStringBytes += Array(string.utf8) + [0] }

        // Load command sizes are known up front; build them once with placeholder values to
        // measure, then again with the final offsets.
        var plan = Plan()
        for pass in 0..<2 {
            var writer = Writer(order: order)
            var commands: [(UInt32, Int)] = []
            func command(_ cmd: UInt32, _ body: (inout Writer) -> Void, cmdsize: UInt32? = nil) {
                let start = writer.count
                commands.append((cmd, headerSize + start))
                writer.u32(cmd)
                let sizeAt = writer.count
                writer.u32(0)
                body(&writer)
                writer.align(wordAlign)
                writer.patch32(at: sizeAt, cmdsize ?? UInt32(writer.count - start))
            }
            func string(_ text: String) -> (inout Writer) -> Void {
                { $0.bytes(Array(text.utf8) + [0]) }
            }

            let textVM: UInt64 = fileType == 2 ? (is64Bit ? 0x1_0000_0000 : 0x4000) : 0
            if fileType == 2 {
                segment(
                    command: command, name: "__PAGEZERO", vmAddress: 0, vmSize: textVM, fileOffset: 0, fileSize: 0,
                    protection: (0, 0), sections: [])
            }
            var textSections: [SectionSpec] = [
                SectionSpec(
                    name: "__text", address: textVM + UInt64(plan.textOffset), size: UInt64(code.count),
                    offset: plan.textOffset, alignLog2: 2, flags: 0x8000_0400)
            ]
            if !cStringBytes.isEmpty {
                textSections.append(
                    SectionSpec(
                        name: "__cstring", address: textVM + UInt64(plan.cStringOffset),
                        size: UInt64(cStringBytes.count), offset: plan.cStringOffset, alignLog2: 0, flags: 0x2))
            }
            if let infoPlist {
                let offset = plan.cStringOffset + cStringBytes.count
                textSections.append(
                    SectionSpec(
                        name: "__info_plist", address: textVM + UInt64(offset), size: UInt64(infoPlist.count),
                        offset: offset, alignLog2: 0, flags: 0))
            }
            segment(
                command: command, name: "__TEXT", vmAddress: textVM,
                vmSize: UInt64(Self.alignUp(plan.textSegmentEnd, 0x4000)), fileOffset: 0,
                fileSize: UInt64(plan.textSegmentEnd), protection: (5, 5), sections: textSections)
            var nextVM = textVM + UInt64(Self.alignUp(plan.textSegmentEnd, 0x4000))
            if let data {
                let dataSize = plan.linkeditOffset - plan.textSegmentEnd
                segment(
                    command: command, name: "__DATA", vmAddress: nextVM, vmSize: UInt64(Self.alignUp(dataSize, 0x4000)),
                    fileOffset: UInt64(plan.textSegmentEnd), fileSize: UInt64(dataSize), protection: (3, 3),
                    sections: [
                        SectionSpec(
                            name: "__data", address: nextVM, size: UInt64(data.count), offset: plan.textSegmentEnd,
                            alignLog2: 3, flags: 0)
                    ])
                nextVM += UInt64(Self.alignUp(dataSize, 0x4000))
            }
            let linkeditSize = plan.fileEnd - plan.linkeditOffset
            segment(
                command: command, name: "__LINKEDIT", vmAddress: nextVM,
                vmSize: UInt64(Self.alignUp(linkeditSize, 0x4000)), fileOffset: UInt64(plan.linkeditOffset),
                fileSize: UInt64(linkeditSize), protection: (1, 1), sections: [])

            if let installName {
                command(0xD, dylibBody(installName))
            }
            if let dylinker {
                command(
                    0xE,
                    { writer in
                        writer.u32(12)
                        writer.bytes(Array(dylinker.utf8) + [0])
                    })
            }
            if let uuid {
                command(0x1B, { $0.bytes(uuid) })
            }
            switch version {
            case .buildVersion(let platform, let minOS, let sdk, let tools):
                command(
                    0x32,
                    { writer in
                        writer.u32(platform)
                        writer.u32(Self.version(minOS))
                        writer.u32(Self.version(sdk))
                        writer.u32(UInt32(tools.count))
                        for tool in tools {
                            writer.u32(tool.tool)
                            writer.u32(Self.version(tool.version))
                        }
                    })
            case .versionMin(let cmd, let minOS, let sdk):
                command(
                    cmd,
                    { writer in
                        writer.u32(Self.version(minOS))
                        writer.u32(Self.version(sdk))
                    })
            case nil:
                break
            }
            if fileType == 2 && includeMain {
                command(
                    0x8000_0028,
                    { writer in
                        writer.u64(UInt64(plan.textOffset))
                        writer.u64(0)
                    })
            }
            if let encryption {
                let offset = encryption.offset ?? UInt32(plan.textOffset)
                let size = encryption.size ?? UInt32(plan.textSegmentEnd - plan.textOffset)
                command(
                    is64Bit ? 0x2C : 0x21,
                    { writer in
                        writer.u32(offset)
                        writer.u32(size)
                        writer.u32(encryption.cryptID)
                        if is64Bit { writer.u32(0) }
                    })
            }
            for dylib in dylibs {
                command(dylib.kind.rawValue, dylibBody(dylib))
            }
            for rpath in rpaths {
                command(
                    0x8000_001C,
                    { writer in
                        writer.u32(12)
                        writer.bytes(Array(rpath.utf8) + [0])
                    })
            }
            if !orderedSymbols.isEmpty {
                command(
                    0x2,
                    { writer in
                        writer.u32(UInt32(plan.symbolTableOffset))
                        writer.u32(symbolCountOverride ?? UInt32(orderedSymbols.count))
                        writer.u32(UInt32(plan.stringTableOffset))
                        writer.u32(UInt32(strings.count))
                    })
                command(
                    0xB,
                    { writer in
                        writer.u32(0)
                        writer.u32(UInt32(locals.count))
                        writer.u32(UInt32(locals.count))
                        writer.u32(UInt32(externals.count))
                        writer.u32(UInt32(locals.count + externals.count))
                        writer.u32(UInt32(undefined.count))
                        for _ in 0..<12 { writer.u32(0) }
                    })
            }
            for raw in extraCommands {
                command(raw.command, { $0.bytes(raw.payload) }, cmdsize: raw.cmdsize)
            }
            if codeSignature != nil {
                command(
                    0x1D,
                    { writer in
                        writer.u32(UInt32(plan.codeSignatureOffset))
                        writer.u32(UInt32(plan.codeSignatureSize))
                    })
            }

            let commandBytes = writer.data
            if pass == 0 {
                // Lay out the file now that the command area's size is known.
                layout.commands = commands
                layout.commandsEnd = headerSize + commandBytes.count
                plan.textOffset = Self.alignUp(layout.commandsEnd + headerPadding, 16)
                plan.cStringOffset = plan.textOffset + code.count
                let textContentEnd = plan.cStringOffset + cStringBytes.count + (infoPlist?.count ?? 0)
                plan.textSegmentEnd = Self.alignUp(textContentEnd, segmentAlignment)
                plan.linkeditOffset =
                    data.map { Self.alignUp(plan.textSegmentEnd + $0.count, segmentAlignment) } ?? plan.textSegmentEnd
                plan.symbolTableOffset = plan.linkeditOffset
                let entrySize = is64Bit ? 16 : 12
                plan.stringTableOffset = plan.symbolTableOffset + orderedSymbols.count * entrySize
                var end = plan.stringTableOffset + (orderedSymbols.isEmpty ? 0 : strings.count)
                if let codeSignature {
                    plan.codeSignatureOffset = Self.alignUp(end, 16)
                    plan.codeSignatureSize = Self.alignUp(
                        max(signatureSize(codeSignature, codeLimit: plan.codeSignatureOffset), codeSignature.reservedSize ?? 0),
                        16)
                    end = plan.codeSignatureOffset + plan.codeSignatureSize
                }
                plan.fileEnd = end
                continue
            }

            // Second pass: assemble the file.
            var file = Writer(order: order)
            file.u32(is64Bit ? 0xFEED_FACF : 0xFEED_FACE)
            file.u32(UInt32(bitPattern: cpuType))
            file.u32(UInt32(bitPattern: cpuSubtype))
            file.u32(fileType)
            file.u32(commandCountOverride ?? UInt32(commands.count))
            file.u32(commandsSizeOverride ?? UInt32(commandBytes.count))
            file.u32(flags)
            if is64Bit { file.u32(0) }
            file.bytes(commandBytes)
            file.pad(to: plan.textOffset)
            file.bytes(code)
            file.bytes(cStringBytes)
            file.bytes(infoPlist ?? [])
            file.pad(to: plan.textSegmentEnd)
            if let data {
                file.bytes(data)
                file.pad(to: plan.linkeditOffset)
            }
            if !orderedSymbols.isEmpty {
                let textAddress = textVM + UInt64(plan.textOffset)
                for (index, symbol) in orderedSymbols.enumerated() {
                    file.u32(UInt32(stringIndex[index]))
                    switch symbol.kind {
                    case .defined(let external):
                        file.u8(external ? 0x0F : 0x0E)
                        file.u8(1)
                        file.u16(0)
                        is64Bit ? file.u64(textAddress) : file.u32(UInt32(truncatingIfNeeded: textAddress))
                    case .imported(let ordinal, let weak):
                        file.u8(0x01)
                        file.u8(0)
                        file.u16(UInt16(ordinal) << 8 | (weak ? 0x40 : 0))
                        is64Bit ? file.u64(0) : file.u32(0)
                    case .debug(let type):
                        file.u8(type)
                        file.u8(0)
                        file.u16(0)
                        is64Bit ? file.u64(0) : file.u32(0)
                    }
                }
                file.bytes(strings)
            }
            layout.textOffset = plan.textOffset
            layout.cStringOffset = plan.cStringOffset
            layout.dataOffset = data == nil ? 0 : plan.textSegmentEnd
            layout.linkeditOffset = plan.linkeditOffset
            layout.linkeditSize = plan.fileEnd - plan.linkeditOffset
            layout.cStringSize = cStringBytes.count
            layout.symbolTableOffset = plan.symbolTableOffset
            layout.stringTableOffset = plan.stringTableOffset
            layout.stringTableSize = orderedSymbols.isEmpty ? 0 : strings.count
            if let codeSignature {
                file.pad(to: plan.codeSignatureOffset)
                let textEnd = plan.textSegmentEnd
                let blob = signatureBlob(
                    codeSignature, code: file.data, executableSegment: (0, UInt64(textEnd)))
                file.bytes(blob)
                file.pad(to: plan.codeSignatureOffset + plan.codeSignatureSize)
                layout.codeSignatureOffset = plan.codeSignatureOffset
                layout.codeSignatureSize = plan.codeSignatureSize
            }
            return (file.data, layout)
        }
        return ([], layout)
    }

    /// Offsets decided after measuring the load commands.
    private struct Plan {
        var textOffset = 0
        var cStringOffset = 0
        var textSegmentEnd = 0
        var linkeditOffset = 0
        var symbolTableOffset = 0
        var stringTableOffset = 0
        var codeSignatureOffset = 0
        var codeSignatureSize = 0
        var fileEnd = 0
    }

    private struct SectionSpec {
        var name: String
        var address: UInt64
        var size: UInt64
        var offset: Int
        var alignLog2: UInt32
        var flags: UInt32
    }

    private func segment(
        command: (UInt32, (inout Writer) -> Void, UInt32?) -> Void,
        name: String, vmAddress: UInt64, vmSize: UInt64, fileOffset: UInt64, fileSize: UInt64,
        protection: (Int32, Int32), sections: [SectionSpec]
    ) {
        let is64Bit = self.is64Bit
        command(
            is64Bit ? 0x19 : 0x1,
            { writer in
                writer.fixedName(name)
                if is64Bit {
                    writer.u64(vmAddress)
                    writer.u64(vmSize)
                    writer.u64(fileOffset)
                    writer.u64(fileSize)
                } else {
                    writer.u32(UInt32(truncatingIfNeeded: vmAddress))
                    writer.u32(UInt32(truncatingIfNeeded: vmSize))
                    writer.u32(UInt32(truncatingIfNeeded: fileOffset))
                    writer.u32(UInt32(truncatingIfNeeded: fileSize))
                }
                writer.u32(UInt32(bitPattern: protection.0))
                writer.u32(UInt32(bitPattern: protection.1))
                writer.u32(UInt32(sections.count))
                writer.u32(0)
                for section in sections {
                    writer.fixedName(section.name)
                    writer.fixedName(name)
                    if is64Bit {
                        writer.u64(section.address)
                        writer.u64(section.size)
                    } else {
                        writer.u32(UInt32(truncatingIfNeeded: section.address))
                        writer.u32(UInt32(truncatingIfNeeded: section.size))
                    }
                    writer.u32(UInt32(section.offset))
                    writer.u32(section.alignLog2)
                    writer.u32(0)  // reloff
                    writer.u32(0)  // nreloc
                    writer.u32(section.flags)
                    writer.u32(0)
                    writer.u32(0)
                    if is64Bit { writer.u32(0) }
                }
            }, nil)
    }

    private func dylibBody(_ dylib: Dylib) -> (inout Writer) -> Void {
        { writer in
            writer.u32(dylib.useFlags == nil ? 24 : 28)
            writer.u32(dylib.useFlags == nil ? 2 : 0x1A74_1800)
            writer.u32(Self.version(dylib.currentVersion))
            writer.u32(Self.version(dylib.compatibilityVersion))
            if let flags = dylib.useFlags { writer.u32(flags) }
            writer.bytes(Array(dylib.path.utf8) + [0])
        }
    }

    // MARK: Code signature

    private static func hashSize(_ type: UInt8) -> Int {
        switch type {
        case 1: 20
        case 3: 20
        case 4: 48
        default: 32
        }
    }

    private func codeDirectoryHeaderSize(_ version: UInt32) -> Int {
        switch version {
        case ..<0x20100: 44
        case ..<0x20200: 48
        case ..<0x20300: 52
        case ..<0x20400: 64
        case ..<0x20500: 88
        case ..<0x20600: 96
        default: 108
        }
    }

    private func specialSlotCount(_ signature: CodeSignature) -> Int {
        var count = max(signature.specialSlotHashes.keys.max() ?? 0, signature.specialSlotContents.keys.max() ?? 0)
        if signature.includeRequirements { count = max(count, 2) }
        if signature.entitlementsXML != nil { count = max(count, 5) }
        if signature.entitlementsDER != nil { count = max(count, 7) }
        return count
    }

    private func codeDirectorySize(_ signature: CodeSignature, hashType: UInt8, codeLimit: Int) -> Int {
        let page = 1 << Int(signature.pageSizeLog2)
        let codeSlots = (codeLimit + page - 1) / page
        var size = codeDirectoryHeaderSize(signature.version) + signature.identifier.utf8.count + 1
        if signature.version >= 0x20200, let team = signature.teamIdentifier { size += team.utf8.count + 1 }
        return size + (specialSlotCount(signature) + codeSlots) * Self.hashSize(hashType)
    }

    private func otherBlobs(_ signature: CodeSignature) -> [(slot: UInt32, blob: [UInt8])] {
        var blobs: [(UInt32, [UInt8])] = []
        if signature.includeRequirements {
            blobs.append((2, signature.requirements ?? bigEndianBlob(0xFADE_0C01, [0, 0, 0, 0])))
        }
        if let xml = signature.entitlementsXML { blobs.append((5, bigEndianBlob(0xFADE_7171, xml))) }
        if let der = signature.entitlementsDER { blobs.append((7, bigEndianBlob(0xFADE_7172, der))) }
        return blobs
    }

    private func cmsBlob(_ signature: CodeSignature) -> [UInt8]? {
        switch signature.cms {
        case .absent: nil
        case .empty: bigEndianBlob(0xFADE_0B01, [])
        case .bytes(let bytes): bigEndianBlob(0xFADE_0B01, bytes)
        }
    }

    private func signatureSize(_ signature: CodeSignature, codeLimit: Int) -> Int {
        let hashTypes = [signature.hashType] + signature.alternateHashTypes
        var size = 12
        for type in hashTypes { size += 8 + codeDirectorySize(signature, hashType: type, codeLimit: codeLimit) }
        for blob in otherBlobs(signature) { size += 8 + blob.blob.count }
        if let cms = cmsBlob(signature) { size += 8 + cms.count }
        return size
    }

    private func signatureBlob(_ signature: CodeSignature, code: [UInt8], executableSegment: (UInt64, UInt64))
        -> [UInt8]
    {
        let others = otherBlobs(signature)
        var slotHashes = signature.specialSlotHashes
        var entries: [(slot: UInt32, blob: [UInt8])] = []
        let hashTypes = [signature.hashType] + signature.alternateHashTypes
        for (index, type) in hashTypes.enumerated() {
            for (slot, blob) in others {
                slotHashes[Int(slot)] = signature.hasher?(type, blob)
            }
            for (slot, contents) in signature.specialSlotContents {
                slotHashes[slot] = signature.hasher?(type, contents)
            }
            let directory = codeDirectory(
                signature, hashType: type, code: code, specialHashes: slotHashes,
                executableSegment: executableSegment)
            entries.append((index == 0 ? 0 : UInt32(0x1000 + index - 1), directory))
        }
        entries += others
        if let cms = cmsBlob(signature) { entries.append((0x10000, cms)) }
        entries.sort { $0.slot < $1.slot }

        var writer = Writer(order: .big)
        let total = 12 + entries.reduce(0) { $0 + 8 + $1.blob.count }
        writer.u32(0xFADE_0CC0)
        writer.u32(UInt32(total))
        writer.u32(UInt32(entries.count))
        var offset = 12 + entries.count * 8
        for entry in entries {
            writer.u32(entry.slot)
            writer.u32(UInt32(offset))
            offset += entry.blob.count
        }
        for entry in entries { writer.bytes(entry.blob) }
        return writer.data
    }

    private func codeDirectory(
        _ signature: CodeSignature, hashType: UInt8, code: [UInt8], specialHashes: [Int: [UInt8]],
        executableSegment: (UInt64, UInt64)
    ) -> [UInt8] {
        let hashSize = Self.hashSize(hashType)
        let page = 1 << Int(signature.pageSizeLog2)
        let codeLimit = code.count
        let codeSlots = (codeLimit + page - 1) / page
        let specialSlots = specialSlotCount(signature)
        let headerSize = codeDirectoryHeaderSize(signature.version)
        let identOffset = headerSize
        var teamOffset = 0
        var tail = Array(signature.identifier.utf8) + [0]
        if signature.version >= 0x20200, let team = signature.teamIdentifier {
            teamOffset = headerSize + tail.count
            tail += Array(team.utf8) + [0]
        }
        let hashOffset = headerSize + tail.count + specialSlots * hashSize
        let length = hashOffset + codeSlots * hashSize

        var writer = Writer(order: .big)
        writer.u32(0xFADE_0C02)
        writer.u32(UInt32(length))
        writer.u32(signature.version)
        writer.u32(signature.flags)
        writer.u32(UInt32(hashOffset))
        writer.u32(UInt32(identOffset))
        writer.u32(UInt32(specialSlots))
        writer.u32(UInt32(codeSlots))
        writer.u32(UInt32(codeLimit))
        writer.u8(UInt8(hashSize))
        writer.u8(hashType)
        writer.u8(0)  // platform
        writer.u8(signature.pageSizeLog2)
        writer.u32(0)  // spare2
        if signature.version >= 0x20100 { writer.u32(0) }  // scatterOffset
        if signature.version >= 0x20200 { writer.u32(UInt32(teamOffset)) }
        if signature.version >= 0x20300 {
            writer.u32(0)  // spare3
            writer.u64(0)  // codeLimit64
        }
        if signature.version >= 0x20400 {
            writer.u64(executableSegment.0)
            writer.u64(executableSegment.1)
            writer.u64(fileType == 2 ? 1 : 0)  // CS_EXECSEG_MAIN_BINARY
        }
        if signature.version >= 0x20500 {
            writer.u32(0)  // runtime
            writer.u32(0)  // preEncryptOffset
        }
        if signature.version >= 0x20600 {
            writer.bytes([0, 0, 0, 0])
            writer.u32(0)
            writer.u32(0)
        }
        writer.bytes(tail)
        for slot in stride(from: specialSlots, through: 1, by: -1) {
            let hash = specialHashes[slot] ?? []
            writer.bytes(Array((hash + Array(repeating: 0, count: hashSize)).prefix(hashSize)))
        }
        for pageIndex in 0..<codeSlots {
            let start = pageIndex * page
            let pageBytes = Array(code[start..<min(start + page, codeLimit)])
            let hash = signature.hasher?(hashType, pageBytes) ?? []
            writer.bytes(Array((hash + Array(repeating: 0, count: hashSize)).prefix(hashSize)))
        }
        return writer.data
    }

    private func bigEndianBlob(_ magic: UInt32, _ payload: [UInt8]) -> [UInt8] {
        var writer = Writer(order: .big)
        writer.u32(magic)
        writer.u32(UInt32(8 + payload.count))
        writer.bytes(payload)
        return writer.data
    }

    // MARK: Helpers

    /// Packs `"16.4.1"` as `xxxx.yy.zz` nibbles.
    public static func version(_ text: String) -> UInt32 {
        let parts = text.split(separator: ".").map { UInt32($0) ?? 0 }
        let major = parts.count > 0 ? parts[0] : 0
        let minor = parts.count > 1 ? parts[1] : 0
        let patch = parts.count > 2 ? parts[2] : 0
        return major << 16 | (minor & 0xFF) << 8 | (patch & 0xFF)
    }

    /// DER entitlements as Apple encodes them: `[APPLICATION 16] { INTEGER 1, [16] IMPLICIT SET OF
    /// SEQUENCE { UTF8String key, value } }`, with keys sorted. Values are Bool or String.
    public static func derEntitlements(_ entries: [(key: String, value: EntitlementValue)]) -> [UInt8] {
        var pairs: [UInt8] = []
        for entry in entries.sorted(by: { $0.key < $1.key }) {
            var pair = der(0x0C, Array(entry.key.utf8))
            switch entry.value {
            case .bool(let value): pair += der(0x01, [value ? 0xFF : 0x00])
            case .string(let value): pair += der(0x0C, Array(value.utf8))
            }
            pairs += der(0x30, pair)
        }
        let dictionary = der(0xB0, pairs)
        return der(0x70, der(0x02, [1]) + dictionary)
    }

    public enum EntitlementValue: Sendable {
        case bool(Bool)
        case string(String)
    }

    private static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length: [UInt8]
        if content.count < 0x80 {
            length = [UInt8(content.count)]
        } else {
            var value = content.count
            length = []
            while value > 0 {
                length.insert(UInt8(value & 0xFF), at: 0)
                value >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }

    /// An XML entitlements plist with string or Bool values.
    public static func xmlEntitlements(_ entries: [(key: String, value: EntitlementValue)]) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for entry in entries {
            text += "\t<key>\(entry.key)</key>\n"
            switch entry.value {
            case .bool(let value): text += value ? "\t<true/>\n" : "\t<false/>\n"
            case .string(let value): text += "\t<string>\(value)</string>\n"
            }
        }
        text += "</dict>\n</plist>\n"
        return Array(text.utf8)
    }
}

// MARK: - Fat files

extension MachOBuilder {
    /// One slice of a fat file, with optional header values that disagree with the layout.
    public struct FatSlice: Sendable {
        public var bytes: [UInt8]
        public var cpuType: Int32
        public var cpuSubtype: Int32
        /// log2 of the alignment of the slice's offset (14 = 16 KiB, as lipo writes for arm).
        public var alignment: UInt32
        /// Written in the fat table instead of the real offset or size.
        public var offsetOverride: UInt64?
        public var sizeOverride: UInt64?

        public init(_ builder: MachOBuilder, alignment: UInt32 = 14) {
            self.bytes = builder.build()
            self.cpuType = builder.cpuType
            self.cpuSubtype = builder.cpuSubtype
            self.alignment = alignment
        }

        public init(bytes: [UInt8], cpuType: Int32, cpuSubtype: Int32, alignment: UInt32 = 14) {
            self.bytes = bytes
            self.cpuType = cpuType
            self.cpuSubtype = cpuSubtype
            self.alignment = alignment
        }
    }

    /// A universal file: `0xCAFEBABE` with 20-byte entries, or `0xCAFEBABF` (`fat64`) with
    /// 32-byte entries, each slice at the next offset aligned to its `alignment`.
    public static func fat(_ slices: [FatSlice], fat64: Bool = false) -> [UInt8] {
        var writer = Writer(order: .big)
        let entrySize = fat64 ? 32 : 20
        var offsets: [Int] = []
        var next = 8 + slices.count * entrySize
        for slice in slices {
            let offset = Self.alignUp(next, 1 << Int(slice.alignment))
            offsets.append(offset)
            next = offset + slice.bytes.count
        }
        writer.u32(fat64 ? 0xCAFE_BABF : 0xCAFE_BABE)
        writer.u32(UInt32(slices.count))
        for (slice, offset) in zip(slices, offsets) {
            writer.u32(UInt32(bitPattern: slice.cpuType))
            writer.u32(UInt32(bitPattern: slice.cpuSubtype))
            let offset = slice.offsetOverride ?? UInt64(offset)
            let size = slice.sizeOverride ?? UInt64(slice.bytes.count)
            if fat64 {
                writer.u64(offset)
                writer.u64(size)
                writer.u32(slice.alignment)
                writer.u32(0)
            } else {
                writer.u32(UInt32(truncatingIfNeeded: offset))
                writer.u32(UInt32(truncatingIfNeeded: size))
                writer.u32(slice.alignment)
            }
        }
        for (slice, offset) in zip(slices, offsets) {
            writer.pad(to: offset)
            writer.bytes(slice.bytes)
        }
        return writer.data
    }
}

// MARK: - Byte patching for hostile variants

extension MachOBuilder {
    /// Overwrites the 4 bytes at `offset` of `bytes` with `value` in `order`.
    public static func patch(_ bytes: inout [UInt8], uint32 value: UInt32, at offset: Int, _ order: Endianness) {
        for index in 0..<4 {
            let shift = order == .big ? (3 - index) * 8 : index * 8
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }

    /// Overwrites the 8 bytes at `offset` of `bytes` with `value` in `order`.
    public static func patch(_ bytes: inout [UInt8], uint64 value: UInt64, at offset: Int, _ order: Endianness) {
        for index in 0..<8 {
            let shift = order == .big ? (7 - index) * 8 : index * 8
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }
}

extension MachOBuilder {
    /// Appends integers in one byte order.
    fileprivate struct Writer {
        let order: Endianness
        private(set) var data: [UInt8] = []

        init(order: Endianness) {
            self.order = order
        }

        var count: Int { data.count }

        mutating func u8(_ value: UInt8) { data.append(value) }

        mutating func u16(_ value: UInt16) { integer(UInt64(value), size: 2) }

        mutating func u32(_ value: UInt32) { integer(UInt64(value), size: 4) }

        mutating func u64(_ value: UInt64) { integer(value, size: 8) }

        mutating func bytes(_ values: [UInt8]) { data += values }

        mutating func fixedName(_ name: String) {
            let bytes = Array(name.utf8.prefix(16))
            data += bytes + Array(repeating: 0, count: 16 - bytes.count)
        }

        mutating func align(_ alignment: Int) {
            while data.count % alignment != 0 { data.append(0) }
        }

        mutating func pad(to offset: Int) {
            if data.count < offset { data += Array(repeating: 0, count: offset - data.count) }
        }

        mutating func patch32(at offset: Int, _ value: UInt32) {
            MachOBuilder.patch(&data, uint32: value, at: offset, order)
        }

        private mutating func integer(_ value: UInt64, size: Int) {
            for index in 0..<size {
                let shift = order == .big ? (size - 1 - index) * 8 : index * 8
                data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
    }

    fileprivate static func alignUp(_ value: Int, _ alignment: Int) -> Int {
        guard alignment > 1 else { return value }
        return (value + alignment - 1) / alignment * alignment
    }
}
