import CodeSignature
import FormatSupport
import TestSupport
import Testing

/// Malformed Mach-O files, each named for the error code reading it must give. The same list
/// writes `Tests/Fixtures/macho/hostile/CODE--name.macho` (see `HostileTests.writeFixtures`).
struct HostileCase: CustomTestStringConvertible, Sendable {
    let code: String
    let name: String
    let bytes: @Sendable () -> [UInt8]

    var fileName: String { "\(code)--\(name).macho" }
    var testDescription: String { fileName }
}

enum HostileCases {
    /// A small signed executable with symbols and C strings, laid out tightly.
    static func base() -> MachOBuilder {
        var builder = MachOBuilder()
        builder.segmentAlignment = 16
        builder.code = Array(repeating: 0x1F, count: 8)
        builder.rpaths = ["@executable_path/Frameworks"]
        builder.cStrings = ["OpenSSL 1.0.2k"]
        builder.symbols = [.defined("_helper", external: false), .defined("_main"), .imported("_printf", ordinal: 1)]
        var signature = MachOBuilder.CodeSignature(identifier: "com.example.hostile", teamIdentifier: "ABCDE12345")
        signature.entitlementsXML = MachOBuilder.xmlEntitlements([("get-task-allow", .bool(true))])
        signature.cms = .empty
        builder.codeSignature = signature
        return builder
    }

    /// `base()` built, then changed by `patch` at offsets from its layout.
    static func patched(_ builder: MachOBuilder = base(), _ patch: (inout [UInt8], MachOBuilder.Layout) -> Void)
        -> [UInt8]
    {
        var (bytes, layout) = builder.buildWithLayout()
        patch(&bytes, layout)
        return bytes
    }

    static func with(_ change: (inout MachOBuilder) -> Void) -> [UInt8] {
        var builder = base()
        change(&builder)
        return builder.build()
    }

    /// Offset of the first CodeDirectory inside the file.
    static func codeDirectoryOffset(_ bytes: [UInt8], _ layout: MachOBuilder.Layout) -> Int {
        let blobOffset = (0..<4).reduce(0) { $0 << 8 | Int(bytes[layout.codeSignatureOffset + 16 + $1]) }
        return layout.codeSignatureOffset + blobOffset
    }

    /// Offset of the requirement set inside the file.
    static func requirementsOffset(_ bytes: [UInt8], _ layout: MachOBuilder.Layout) -> Int {
        let blobOffset = (0..<4).reduce(0) { $0 << 8 | Int(bytes[layout.codeSignatureOffset + 24 + $1]) }
        return layout.codeSignatureOffset + blobOffset
    }

    /// A requirement set holding one designated requirement of `words` (big-endian opcodes).
    static func requirementSet(_ words: [UInt32], entryOffset: UInt32 = 20) -> [UInt8] {
        var requirement: [UInt8] = [0xFA, 0xDE, 0x0C, 0x00, 0, 0, 0, 0]
        for word in [1] + words { requirement += withUnsafeBytes(of: word.bigEndian, Array.init) }
        MachOBuilder.patch(&requirement, uint32: UInt32(requirement.count), at: 4, .big)
        var set: [UInt8] = [0xFA, 0xDE, 0x0C, 0x01, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0] + requirement
        MachOBuilder.patch(&set, uint32: UInt32(set.count), at: 4, .big)
        MachOBuilder.patch(&set, uint32: entryOffset, at: 16, .big)
        return set
    }

    /// `base()` with its signature replaced by one whose only CodeDirectory is consistent (one
    /// 64 KiB page hash for a 64 KiB code limit) but covers more than the slice.
    static func codeLimitPastSlice() -> [UInt8] {
        var (bytes, layout) = base().buildWithLayout()
        var directory = CodeDirectory.Builder(identifier: "com.example.hostile", teamIdentifier: nil, hashType: .sha256)
        directory.pageSizeLog2 = 16
        directory.codeLimit = 1 << 16
        directory.codeHashes = HashArray(hashSize: 32, storage: [UInt8](repeating: 0xAB, count: 32))
        guard let built = try? directory.build(),
            let signature = try? EmbeddedSignature(
                codeDirectories: [built], requirements: nil, entitlements: nil, derEntitlements: nil, cmsSignature: []
            ).serialized(),
            signature.count <= layout.codeSignatureSize
        else { return bytes }
        bytes.replaceSubrange(layout.codeSignatureOffset..<(layout.codeSignatureOffset + signature.count), with: signature)
        return bytes
    }

    static func slice(_ builder: MachOBuilder = base()) -> MachOBuilder.FatSlice {
        MachOBuilder.FatSlice(builder, alignment: 4)
    }

    static func armv7() -> MachOBuilder {
        var builder = base()
        builder.is64Bit = false
        builder.cpuType = 12
        builder.cpuSubtype = 9
        return builder
    }

    /// Offset of the `__LINKEDIT` segment command of `base()` (after `__PAGEZERO` and `__TEXT`).
    static func linkeditCommand(_ layout: MachOBuilder.Layout) -> Int {
        layout.commands.filter { $0.command == 0x19 || $0.command == 0x1 }[2].offset
    }

    /// A raw `LC_SEGMENT_64` payload (after `cmd` and `cmdsize`) without sections.
    static func segment64(
        _ name: String, vmAddress: UInt64, vmSize: UInt64, fileOffset: UInt64 = 0, fileSize: UInt64 = 0
    ) -> MachOBuilder.RawCommand {
        var payload = Array(name.utf8.prefix(16)) + Array(repeating: 0, count: 16 - min(16, name.utf8.count))
        for value in [vmAddress, vmSize, fileOffset, fileSize] {
            payload += (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
        }
        payload += [1, 0, 0, 0, 1, 0, 0, 0] + Array(repeating: 0, count: 8)  // protections, nsects, flags
        return MachOBuilder.RawCommand(command: 0x19, payload: payload)
    }

    /// What `SigningLayout` is asked to reserve per slice in the `unsignable` cases: enough to
    /// grow every one of them.
    static let unsignableSignatureSize = 64 << 10

    /// Files whose headers read cleanly but that cannot be given a new signature, each named for
    /// the code `SigningLayout` gives. The same list writes
    /// `Tests/Fixtures/macho/unsignable/CODE--name.macho`, which also seed `fuzz-macho`.
    static let unsignable: [HostileCase] = [
        HostileCase(code: "MACHO_ENCRYPTED", name: "cryptid-1") { with { $0.encryption = .init(cryptID: 1) } },
        HostileCase(code: "MACHO_NO_ROOM_FOR_SIGNATURE", name: "no-signature-no-headerpad") {
            with { $0.codeSignature = nil }
        },
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "no-signature-commands-short-of-sizeofcmds") {
            // ncmds one short: the last command's 16 bytes are left over inside sizeofcmds.
            var builder = base()
            builder.codeSignature = nil
            builder.headerPadding = 64
            builder.extraCommands = [.init(command: 0x1B, payload: Array(repeating: 0xAB, count: 16))]
            return patched(builder) { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: UInt32(layout.commands.count - 1), at: 16, .little)
            }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "no-linkedit-segment") {
            patched { bytes, layout in bytes[linkeditCommand(layout) + 8 + 9] = UInt8(ascii: "Z") }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "two-linkedit-segments") {
            patched { bytes, layout in
                let text = layout.commands[1].offset + 8
                bytes.replaceSubrange(text..<(text + 16), with: Array("__LINKEDIT".utf8) + Array(repeating: 0, count: 6))
            }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "segment-after-linkedit-in-memory") {
            with { $0.extraCommands = [segment64("__EXTRA", vmAddress: 0x2_0000_0000, vmSize: 0x4000)] }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "segment-inside-linkedit-in-file") {
            var builder = base()
            builder.extraCommands = [segment64("__EXTRA", vmAddress: 0, vmSize: 0)]
            return patched(builder) { bytes, layout in
                let extra = layout.commands.filter { $0.command == 0x19 }.last?.offset ?? 0
                MachOBuilder.patch(&bytes, uint64: UInt64(layout.linkeditOffset + 8), at: extra + 40, .little)
                MachOBuilder.patch(&bytes, uint64: 8, at: extra + 48, .little)
            }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "bytes-after-linkedit") { base().build() + Array(repeating: 0, count: 32) },
        HostileCase(code: "MACHO_LINKEDIT", name: "signature-before-linkedit") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: UInt32(layout.textOffset), at: (layout.offset(of: 0x1D) ?? 0) + 8, .little)
            }
        },
        HostileCase(code: "MACHO_LINKEDIT", name: "data-after-signature") {
            var builder = base()
            builder.codeSignature?.reservedSize = 4096
            return patched(builder) { bytes, layout in
                let size = UInt32(layout.codeSignatureSize - 16)
                MachOBuilder.patch(&bytes, uint32: size, at: (layout.offset(of: 0x1D) ?? 0) + 12, .little)
            }
        },
        HostileCase(code: "MACHO_TOO_LARGE", name: "armv7-linkedit-ending-at-4-gib") {
            patched(armv7()) { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFFFF_C000, at: linkeditCommand(layout) + 24, .little)
            }
        },
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-alignment-2-to-the-16") {
            MachOBuilder.fat([MachOBuilder.FatSlice(base(), alignment: 16)])
        },
    ]

    static let all: [HostileCase] = [
        // Not Mach-O at all, or cut short.
        HostileCase(code: "MACHO_BAD_MAGIC", name: "elf-header") {
            [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + Array(repeating: 0, count: 56)
        },
        HostileCase(code: "MACHO_TRUNCATED", name: "header-cut-short") { Array(base().build().prefix(20)) },
        HostileCase(code: "MACHO_TRUNCATED", name: "sizeofcmds-past-file") {
            with { $0.commandsSizeOverride = 0x10_0000 }
        },

        // The load-command area.
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "ncmds-past-header") { with { $0.commandCountOverride = 1000 } },
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "sizeofcmds-over-limit") {
            with { $0.commandsSizeOverride = 0x0200_0000 }
        },
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "cmdsize-zero") {
            patched { bytes, layout in MachOBuilder.patch(&bytes, uint32: 0, at: layout.commands[1].offset + 4, .little)
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "cmdsize-misaligned") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 76, at: layout.commands[0].offset + 4, .little)
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMANDS", name: "cmdsize-past-area") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x1000, at: (layout.commands.last?.offset ?? 0) + 4, .little)
            }
        },

        // One load command.
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "dylib-name-offset-past-command") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 1000, at: (layout.offset(of: 0xC) ?? 0) + 8, .little)
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "dylib-name-not-terminated") {
            with {
                $0.extraCommands = [
                    .init(
                        command: 0xC,
                        payload: [24, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0] + Array("libxxxxx".utf8))
                ]
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "rpath-offset-into-fixed-fields") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 4, at: (layout.offset(of: 0x8000_001C) ?? 0) + 8, .little)
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "duplicate-code-signature") {
            with { $0.extraCommands = [.init(command: 0x1D, payload: [0, 0, 0, 0, 0, 0, 0, 0])] }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "build-version-ntools-huge") {
            with {
                $0.extraCommands = [.init(command: 0x32, payload: [2, 0, 0, 0, 0, 0, 14, 0, 0, 0, 16, 0, 0, 0, 0, 16])]
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "segment-nsects-huge") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x0FFF_FFFF, at: layout.commands[1].offset + 64, .little)
            }
        },
        HostileCase(code: "MACHO_LOAD_COMMAND", name: "uuid-command-too-small") {
            with { $0.extraCommands = [.init(command: 0x1B, payload: Array(repeating: 0xAB, count: 8))] }
        },

        // Symbol and string tables.
        HostileCase(code: "MACHO_SYMBOL_TABLE", name: "nsyms-2-to-the-31") {
            with { $0.symbolCountOverride = 0x8000_0000 }
        },
        HostileCase(code: "MACHO_SYMBOL_TABLE", name: "symoff-past-slice") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFFFF_FF00, at: (layout.offset(of: 0x2) ?? 0) + 8, .little)
            }
        },
        HostileCase(code: "MACHO_SYMBOL_TABLE", name: "stroff-past-slice") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: UInt32(bytes.count), at: (layout.offset(of: 0x2) ?? 0) + 16, .little)
            }
        },
        HostileCase(code: "MACHO_SYMBOL_TABLE", name: "string-offset-past-table") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x7FFF_FFFF, at: layout.symbolTableOffset + 16, .little)
            }
        },
        HostileCase(code: "MACHO_SYMBOL_TABLE", name: "name-not-terminated") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 5, at: (layout.offset(of: 0x2) ?? 0) + 20, .little)
            }
        },

        // The code signature.
        HostileCase(code: "MACHO_SIGNATURE", name: "dataoff-past-slice") {
            patched { bytes, layout in
                MachOBuilder.patch(
                    &bytes, uint32: UInt32(bytes.count - 8), at: (layout.offset(of: 0x1D) ?? 0) + 8, .little)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "superblob-bad-magic") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFADE_0C02, at: layout.codeSignatureOffset, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "superblob-count-past-blob") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 1000, at: layout.codeSignatureOffset + 8, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "superblob-length-past-data") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x7FFF_FFFF, at: layout.codeSignatureOffset + 4, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "blob-offset-past-superblob") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFFFF_FFF0, at: layout.codeSignatureOffset + 16, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "blob-length-past-superblob") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x0100_0000, at: codeDirectoryOffset(bytes, layout) + 4, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "duplicate-slot") {
            // Make the requirements entry (index 1) claim slot 0 again.
            patched { bytes, layout in MachOBuilder.patch(&bytes, uint32: 0, at: layout.codeSignatureOffset + 20, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "slot-magic-mismatch") {
            // Slot 2 now points at the CodeDirectory.
            patched { bytes, layout in
                let directory = UInt32(codeDirectoryOffset(bytes, layout) - layout.codeSignatureOffset)
                MachOBuilder.patch(&bytes, uint32: directory, at: layout.codeSignatureOffset + 24, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "code-directory-identifier-past-blob") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x00FF_FFFF, at: codeDirectoryOffset(bytes, layout) + 20, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "code-directory-hashes-past-blob") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0x4000_0000, at: codeDirectoryOffset(bytes, layout) + 28, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "code-directory-special-slots-into-header") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 1000, at: codeDirectoryOffset(bytes, layout) + 24, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "code-directory-2-to-the-32-pages") {
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFFFF_FFFF, at: codeDirectoryOffset(bytes, layout) + 28, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "code-limit-past-slice") { codeLimitPastSlice() },
        HostileCase(code: "MACHO_SIGNATURE", name: "blobs-overlap") {
            // The CodeDirectory's length now takes in the first bytes of the requirement set.
            patched { bytes, layout in
                let directory = codeDirectoryOffset(bytes, layout)
                let length = (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[directory + 4 + $1]) }
                MachOBuilder.patch(&bytes, uint32: length + 8, at: directory + 4, .big)
            }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "requirement-nesting-too-deep") {
            with { $0.codeSignature?.requirements = requirementSet(Array(repeating: 9, count: 10_000) + [1]) }
        },
        HostileCase(code: "MACHO_SIGNATURE", name: "requirement-points-at-its-set") {
            with { $0.codeSignature?.requirements = requirementSet([1], entryOffset: 0) }
        },

        // Sections.
        HostileCase(code: "MACHO_SECTION", name: "cstring-offset-past-slice") {
            // __TEXT is command 1; its second section (__cstring) starts at 72 + 80, offset field +48.
            patched { bytes, layout in
                MachOBuilder.patch(&bytes, uint32: 0xFFFF_0000, at: layout.commands[1].offset + 72 + 80 + 48, .little)
            }
        },

        // Fat headers.
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-no-architectures") {
            [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0] + Array(repeating: 0, count: 24)
        },
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-too-many-architectures") {
            [0xCA, 0xFE, 0xBA, 0xBF, 0, 0, 0, 33] + Array(repeating: 0, count: 33 * 32)
        },
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-duplicate-architecture") {
            MachOBuilder.fat([slice(), slice()])
        },
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-header-names-other-cpu") {
            var entry = slice()
            entry.cpuType = 12
            entry.cpuSubtype = 9
            return MachOBuilder.fat([entry])
        },
        HostileCase(code: "MACHO_FAT_HEADER", name: "fat-nested") {
            let inner = MachOBuilder.fat([slice()])
            return MachOBuilder.fat([
                MachOBuilder.FatSlice(bytes: inner, cpuType: 0x0100_000C, cpuSubtype: 0, alignment: 4)
            ])
        },
        HostileCase(code: "MACHO_FAT_OVERLAP", name: "fat-slices-overlap") {
            var second = slice()
            second.offsetOverride = 64
            return MachOBuilder.fat([slice(armv7()), second])
        },
        HostileCase(code: "MACHO_FAT_OVERLAP", name: "fat-slice-over-header") {
            var entry = slice()
            entry.offsetOverride = 8
            return MachOBuilder.fat([entry], fat64: true)
        },
        HostileCase(code: "MACHO_TRUNCATED", name: "fat-slice-past-file") {
            var entry = slice()
            entry.sizeOverride = 0xFFFF_0000
            return MachOBuilder.fat([entry])
        },
        HostileCase(code: "MACHO_TRUNCATED", name: "fat64-offset-2-to-the-63") {
            var entry = slice()
            entry.offsetOverride = 1 << 63
            return MachOBuilder.fat([entry], fat64: true)
        },
        HostileCase(code: "MACHO_TRUNCATED", name: "fat-table-cut-short") {
            Array(MachOBuilder.fat([slice(), slice(armv7())]).prefix(30))
        },
    ]
}
