import FormatSupport

/// Where a new embedded signature goes in one slice, decided from its load commands before the
/// signature's size is known.
///
/// The signature always starts at `codeLimit`, the end of the slice's content rounded up to 16
/// bytes as codesign and ld64 write it: the existing `LC_CODE_SIGNATURE`'s `dataoff`, or the end
/// of `__LINKEDIT` when the slice has none. So a signer can count the code pages it will hash,
/// and size its CodeDirectory, before it chooses how many bytes to reserve (`SigningLayout`).
public struct SignaturePlacement: Sendable, Equatable {
    public let architecture: MachOArchitecture
    /// The new `dataoff`: the signature's offset in the slice, and the end of the bytes its
    /// CodeDirectory hashes (`[0, codeLimit)` of the edited slice).
    public let codeLimit: UInt64
    /// `datasize` of the existing `LC_CODE_SIGNATURE` when a signature of at most this size can
    /// go in its place unchanged (its `dataoff` is 16-byte aligned); nil otherwise.
    public let reusableSpace: UInt32?
    /// The slice has no `LC_CODE_SIGNATURE`: the edit adds one after the other load commands.
    public let addsCommand: Bool
    /// The page size `__LINKEDIT`'s `vmsize` is rounded up to when it grows.
    public let segmentPageSize: UInt64

    /// The end of the original bytes kept: the old `dataoff`, or the end of `__LINKEDIT`.
    let contentEnd: UInt64
    let linkedit: Linkedit
    /// Offset of the existing `LC_CODE_SIGNATURE` command in the slice.
    let signatureCommandOffset: Int?

    /// The `__LINKEDIT` segment command and the values an edit changes.
    struct Linkedit: Sendable, Equatable {
        /// Offset of the `LC_SEGMENT(_64)` command in the slice.
        let commandOffset: Int
        /// Whether the command is `LC_SEGMENT_64` (64-bit fields) rather than `LC_SEGMENT`.
        let isSegment64: Bool
        let fileOffset: UInt64
        let vmAddress: UInt64
        let vmSize: UInt64
    }

    /// The `vmsize` granularity cctools' `codesign_allocate` uses (`get_segalign_from_flag`):
    /// 16 KiB for ARM and ARM64, which is also what Xcode's ld64 gives armv7 slices; 4 KiB
    /// for Intel and PowerPC; 8 KiB for anything else.
    public static func segmentPageSize(for architecture: MachOArchitecture) -> UInt64 {
        switch architecture.cpuType {
        case MachOArchitecture.arm, MachOArchitecture.arm64, MachOArchitecture.arm64_32: 0x4000
        case MachOArchitecture.x86, MachOArchitecture.x86_64, MachOArchitecture.powerPC,
            MachOArchitecture.powerPC64:
            0x1000
        default: 0x2000
        }
    }

    /// Signatures start on 16-byte boundaries and reservations are multiples of 16.
    static let alignment: UInt64 = 16
    /// `sizeof(struct linkedit_data_command)`.
    static let commandSize = 16
}

extension MachOSlice {
    /// Where a new signature goes in this slice, or why it cannot be signed: a FairPlay-encrypted
    /// slice (`MACHO_ENCRYPTED`); a `__LINKEDIT` that is missing, not the last segment, not the
    /// end of the slice, or an `LC_CODE_SIGNATURE` outside it or not at its end
    /// (`MACHO_LINKEDIT`); no `LC_CODE_SIGNATURE` and no room to add one
    /// (`MACHO_NO_ROOM_FOR_SIGNATURE`), or load commands that do not fill `sizeofcmds`, so one
    /// cannot be added after them (`MACHO_LOAD_COMMANDS`); a signature offset past 32 bits
    /// (`MACHO_TOO_LARGE`).
    /// Every error names the slice.
    public func signaturePlacement() throws(MachOError) -> SignaturePlacement {
        let name = architecture.name
        func refuse(_ reason: MachOError.Reason, _ message: String) -> MachOError {
            MachOError(reason, message, slice: name)
        }
        if let encryption, encryption.isEncrypted {
            throw refuse(
                .encrypted,
                "the slice is FairPlay-encrypted (cryptid \(encryption.cryptID)), so its code cannot be signed again")
        }

        // __LINKEDIT: exactly one, last in the file and in memory, ending the slice.
        let segmentCommands = loadCommands.filter { $0.type == .segment || $0.type == .segment64 }
        let named = zip(segments, segmentCommands).filter { $0.0.name == "__LINKEDIT" }
        guard named.count == 1, let (segment, command) = named.first else {
            throw refuse(
                .linkedit,
                named.isEmpty
                    ? "the slice has no __LINKEDIT segment to hold a signature"
                    : "the slice has \(named.count) __LINKEDIT segments")
        }
        let (linkeditEnd, endOverflow) = segment.fileOffset.addingReportingOverflow(segment.fileSize)
        let vmOverflow = segment.vmAddress.addingReportingOverflow(segment.vmSize).overflow
        guard !endOverflow, !vmOverflow else {
            throw refuse(.linkedit, "__LINKEDIT's file or memory range overflows 64 bits")
        }
        for other in segments where other.name != "__LINKEDIT" {
            let fileEnd = other.fileOffset.addingReportingOverflow(other.fileSize)
            let vmEnd = other.vmAddress.addingReportingOverflow(other.vmSize)
            let afterInFile = other.fileSize > 0 && (fileEnd.overflow || fileEnd.partialValue > segment.fileOffset)
            let afterInMemory = other.vmSize > 0 && (vmEnd.overflow || vmEnd.partialValue > segment.vmAddress)
            if afterInFile || afterInMemory {
                throw refuse(
                    .linkedit,
                    "__LINKEDIT is not the last segment: \(other.name) (file offset \(other.fileOffset), "
                        + "address 0x\(hex(other.vmAddress))) ends after __LINKEDIT starts, so __LINKEDIT cannot grow")
            }
        }
        guard linkeditEnd == size else {
            throw refuse(
                .linkedit,
                linkeditEnd > size
                    ? "__LINKEDIT (offset \(segment.fileOffset), size \(segment.fileSize)) ends past the \(size)-byte slice"
                    : "\(size - linkeditEnd) bytes follow the end of __LINKEDIT at \(linkeditEnd); the signature must end the slice"
            )
        }

        // The signature's current place, or room for the command that will say where it is.
        let signatureCommand = loadCommands.first { $0.type == .codeSignature }
        let commandsEnd = UInt64(header.size) + UInt64(header.commandsSize)
        let editedCommandsEnd = commandsEnd + (signatureCommand == nil ? UInt64(SignaturePlacement.commandSize) : 0)
        guard segment.fileOffset >= editedCommandsEnd else {
            throw refuse(
                .linkedit,
                "__LINKEDIT starts at \(segment.fileOffset), inside the load commands (which end at \(editedCommandsEnd))")
        }
        let contentEnd: UInt64
        var reusableSpace: UInt32?
        if let range = codeSignatureRange {
            let start = UInt64(range.offset)
            let end = start + UInt64(range.size)
            guard start >= segment.fileOffset, end <= linkeditEnd else {
                throw refuse(
                    .linkedit,
                    "LC_CODE_SIGNATURE (offset \(start), size \(range.size)) lies outside __LINKEDIT "
                        + "(\(segment.fileOffset)..<\(linkeditEnd))")
            }
            guard end == linkeditEnd else {
                throw refuse(
                    .linkedit,
                    "LC_CODE_SIGNATURE ends at \(end) but __LINKEDIT goes on to \(linkeditEnd): "
                        + "a larger signature would overwrite what follows it")
            }
            contentEnd = start
            if start % SignaturePlacement.alignment == 0 { reusableSpace = range.size }
        } else {
            // The command goes right after the others, where sizeofcmds ends: they must fill it.
            let used = loadCommands.reduce(0) { $0 + $1.size }
            guard used == Int(header.commandsSize) else {
                throw refuse(
                    .loadCommands,
                    "the \(loadCommands.count) load commands take \(used) bytes but sizeofcmds is \(header.commandsSize), "
                        + "so LC_CODE_SIGNATURE cannot be added after them")
            }
            let firstContent = firstContentOffset()
            guard editedCommandsEnd <= firstContent else {
                let room = firstContent > commandsEnd ? firstContent - commandsEnd : 0
                throw refuse(
                    .noRoomForSignature,
                    "the slice has no LC_CODE_SIGNATURE and only \(room) bytes between its load commands "
                        + "(ending at \(commandsEnd)) and its first content at \(firstContent), "
                        + "less than the \(SignaturePlacement.commandSize) bytes one needs; relink it with a larger -headerpad")
            }
            contentEnd = linkeditEnd
        }
        guard let codeLimit = contentEnd.roundedUp(toMultipleOf: SignaturePlacement.alignment),
            codeLimit <= UInt64(UInt32.max)
        else {
            throw refuse(
                .tooLarge,
                "the signature would start at \(contentEnd) rounded up to 16 bytes, past what LC_CODE_SIGNATURE's "
                    + "32-bit dataoff can hold")
        }
        return SignaturePlacement(
            architecture: architecture, codeLimit: codeLimit, reusableSpace: reusableSpace,
            addsCommand: signatureCommand == nil,
            segmentPageSize: SignaturePlacement.segmentPageSize(for: architecture), contentEnd: contentEnd,
            linkedit: SignaturePlacement.Linkedit(
                commandOffset: command.offset, isSegment64: command.type == .segment64,
                fileOffset: segment.fileOffset, vmAddress: segment.vmAddress, vmSize: segment.vmSize),
            signatureCommandOffset: signatureCommand?.offset)
    }

    /// Where the slice's content starts after the load commands, as `codesign_allocate` finds it:
    /// the lowest offset of a section with bytes in the file, or of a segment without sections
    /// that has bytes; the slice's size when there is none.
    private func firstContentOffset() -> UInt64 {
        var lowest = size
        for segment in segments {
            if segment.sections.isEmpty {
                if segment.fileSize > 0 { lowest = min(lowest, segment.fileOffset) }
            } else {
                for section in segment.sections where section.size > 0 && !section.isZeroFill {
                    lowest = min(lowest, UInt64(section.offset))
                }
            }
        }
        return lowest
    }
}

extension MachOFile {
    /// `signaturePlacement()` of every slice, in order.
    public func signaturePlacements() throws(MachOError) -> [SignaturePlacement] {
        var placements: [SignaturePlacement] = []
        placements.reserveCapacity(slices.count)
        for slice in slices { placements.append(try slice.signaturePlacement()) }
        return placements
    }
}

extension UInt64 {
    /// The next multiple of `alignment` (a power of two) at or above the value, or nil when
    /// that overflows.
    func roundedUp(toMultipleOf alignment: UInt64) -> UInt64? {
        guard alignment > 1 else { return self }
        let (sum, overflow) = addingReportingOverflow(alignment - 1)
        return overflow ? nil : sum & ~(alignment - 1)
    }
}
