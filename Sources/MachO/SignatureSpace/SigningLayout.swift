import FormatSupport

/// The layout of a thin or fat Mach-O file once every slice has room for a new embedded
/// signature of a requested size, as codesign (through `codesign_allocate`) lays it out.
///
/// Per slice: when the existing `LC_CODE_SIGNATURE` range holds the reservation, nothing changes
/// and the new signature replaces the old one (zero-filled to the end of the range); otherwise
/// the signature goes at the end of `__LINKEDIT`, 16-byte aligned, and `LC_CODE_SIGNATURE`'s
/// `dataoff`/`datasize` and `__LINKEDIT`'s `filesize` and `vmsize` (rounded up to the
/// segment page size, never shrunk) are updated, adding the command when the slice had none.
/// Fat slices are then placed one after another at their own alignment, in fat-table order.
///
/// Planning reads nothing: it works from the parsed `MachOFile`. The bytes are produced by
/// `write(from:pageSize:hashing:signature:to:)`, which streams the input through the same
/// `ByteSource` a page at a time; `Slice.forEachPage` gives the pages a CodeDirectory hashes.
public struct SigningLayout: Sendable, Equatable {
    /// One slice of the output.
    public struct Slice: Sendable, Equatable {
        public enum Change: Sendable, Equatable {
            /// The existing `LC_CODE_SIGNATURE` range holds the new signature; the header and load
            /// commands are unchanged.
            case reused
            /// `LC_CODE_SIGNATURE` was given a new size (and aligned `dataoff`) at the end of
            /// `__LINKEDIT`, which was resized to end with it.
            case resized
            /// An `LC_CODE_SIGNATURE` command was added after the load commands, for a signature
            /// at the end of `__LINKEDIT`.
            case added
        }

        public let architecture: MachOArchitecture
        public let change: Change
        /// Where the slice is in the input file.
        public let inputOffset: UInt64
        public let inputSize: UInt64
        /// Where the slice is in the output file (0 for a thin file).
        public let offset: UInt64
        /// The slice's size in the output: `codeLimit + signatureSpace`.
        public let size: UInt64
        /// The edited header and load commands: bytes `[0, headerBytes.count)` of the output
        /// slice. Longer than the input's by the 16-byte command when one was added.
        public let headerBytes: [UInt8]
        /// `dataoff`: where the signature starts, and the end of the bytes its CodeDirectory
        /// hashes (`[0, codeLimit)` of the output slice, header included).
        public let codeLimit: UInt64
        /// `datasize`: the bytes the signature may take; what it leaves is zero-filled.
        public let signatureSpace: UInt32
        /// The end of the input bytes copied after the header; zeros follow up to `codeLimit`.
        let contentEnd: UInt64

        public var signatureOffset: UInt64 { codeLimit }
    }

    public let slices: [Slice]
    /// The fat header and table of the output, empty for a thin file.
    public let fatHeaderBytes: [UInt8]
    /// Size of the output file.
    public let size: UInt64

    /// The largest signature reserved, as large as the largest one read.
    public static let maximumSignatureSize = MachOSlice.maximumCodeSignatureSize
    /// Largest fat slice alignment, 2^15, as lipo allows.
    public static let maximumFatAlignment: UInt32 = 15

    /// The bytes to reserve for a signature the caller estimates at `estimate` bytes: the
    /// estimate rounded up to 16, as `codesign_allocate` requires. A signer must know this before
    /// hashing, since page 0 holds the header that records it; it then writes a signature of at
    /// most this size (codesign over-reserves the CMS part to be sure).
    public static func reservation(forEstimate estimate: Int) throws(MachOError) -> UInt32 {
        guard estimate > 0, estimate <= maximumSignatureSize else {
            throw MachOError(
                .signatureSpace,
                "a signature of \(estimate) bytes cannot be reserved; between 1 and \(maximumSignatureSize) bytes can")
        }
        return UInt32(estimate + 15) & ~15
    }

    /// Plans room for a signature of `signatureSizes[i]` bytes (an estimate, rounded up by
    /// `reservation(forEstimate:)`) in slice `i` of `file`, or throws why a slice cannot be signed
    /// (see `MachOSlice.signaturePlacement()`), or `MACHO_TOO_LARGE` when the grown file needs
    /// offsets its fields cannot hold.
    public init(file: MachOFile, signatureSizes: [Int]) throws(MachOError) {
        guard signatureSizes.count == file.slices.count else {
            throw MachOError(
                .signatureSpace,
                "\(signatureSizes.count) signature sizes were given for the file's \(file.slices.count) slices")
        }
        var edits: [Edit] = []
        edits.reserveCapacity(file.slices.count)
        for (slice, estimate) in zip(file.slices, signatureSizes) {
            let placement = try slice.signaturePlacement()
            let reserved: UInt32
            do {
                reserved = try Self.reservation(forEstimate: estimate)
            } catch {
                throw error.inSlice(slice.architecture.name)
            }
            edits.append(try Edit(slice: slice, placement: placement, reserved: reserved))
        }

        guard let fat = file.fatHeader else {
            // A thin file is one slice.
            guard let edit = edits.first else {
                throw MachOError(.truncated, "the file has no slice")
            }
            slices = [edit.slice(offset: 0)]
            fatHeaderBytes = []
            size = edit.size
            return
        }
        var laidOut: [Slice] = []
        var next = UInt64(fat.size)
        var table = BigEndianBytes()
        table.append32(fat.kind == .fat32 ? FatHeader.magic32 : FatHeader.magic64)
        table.append32(UInt32(fat.entries.count))
        for (entry, edit) in zip(fat.entries, edits) {
            let name = entry.architecture.name
            guard entry.alignment <= Self.maximumFatAlignment else {
                throw MachOError(
                    .fatHeader,
                    "the fat header aligns the slice to 2^\(entry.alignment) bytes, more than the 2^\(Self.maximumFatAlignment) lipo allows",
                    slice: name)
            }
            guard let offset = next.roundedUp(toMultipleOf: 1 << UInt64(entry.alignment)),
                case (let end, false) = offset.addingReportingOverflow(edit.size)
            else {
                throw MachOError(.tooLarge, "the slice's new offset overflows 64 bits", slice: name)
            }
            table.append32(UInt32(bitPattern: entry.architecture.cpuType))
            table.append32(UInt32(bitPattern: entry.architecture.cpuSubtype))
            switch fat.kind {
            case .fat32:
                guard let offset32 = UInt32(exactly: offset), let size32 = UInt32(exactly: edit.size) else {
                    throw MachOError(
                        .tooLarge,
                        "the slice would be at offset \(offset), \(edit.size) bytes long, past the 32-bit offsets and sizes of a 0xCAFEBABE fat header",
                        slice: name)
                }
                table.append32(offset32)
                table.append32(size32)
                table.append32(entry.alignment)
            case .fat64:
                table.append64(offset)
                table.append64(edit.size)
                table.append32(entry.alignment)
                table.append32(0)  // reserved
            }
            laidOut.append(edit.slice(offset: offset))
            next = end
        }
        slices = laidOut
        fatHeaderBytes = table.bytes
        size = next
    }
}

/// One slice's new header, signature range and size, before it is placed in the file.
private struct Edit {
    let change: SigningLayout.Slice.Change
    let architecture: MachOArchitecture
    let inputOffset: UInt64
    let inputSize: UInt64
    let headerBytes: [UInt8]
    let codeLimit: UInt64
    let signatureSpace: UInt32
    let contentEnd: UInt64

    var size: UInt64 { codeLimit + UInt64(signatureSpace) }

    func slice(offset: UInt64) -> SigningLayout.Slice {
        SigningLayout.Slice(
            architecture: architecture, change: change, inputOffset: inputOffset, inputSize: inputSize, offset: offset,
            size: size, headerBytes: headerBytes, codeLimit: codeLimit, signatureSpace: signatureSpace,
            contentEnd: contentEnd)
    }

    init(slice: MachOSlice, placement: SignaturePlacement, reserved: UInt32) throws(MachOError) {
        architecture = slice.architecture
        inputOffset = slice.offset
        inputSize = slice.size
        codeLimit = placement.codeLimit
        contentEnd = placement.contentEnd
        if let space = placement.reusableSpace, reserved <= space {
            change = .reused
            headerBytes = slice.headerAndCommandBytes
            signatureSpace = space
            return
        }
        let name = slice.architecture.name
        let linkedit = placement.linkedit
        // codeLimit < 2^32 and reserved ≤ 128 MiB: no overflow; the placement checked
        // linkedit.fileOffset ≤ contentEnd ≤ codeLimit.
        let end = placement.codeLimit + UInt64(reserved)
        let fileSize = end - linkedit.fileOffset
        guard let pages = fileSize.roundedUp(toMultipleOf: placement.segmentPageSize),
            case (let vmEnd, false) = linkedit.vmAddress.addingReportingOverflow(max(linkedit.vmSize, pages))
        else {
            throw MachOError(.tooLarge, "__LINKEDIT's grown memory range overflows 64 bits", slice: name)
        }
        let vmSize = max(linkedit.vmSize, pages)
        if !linkedit.isSegment64 {
            guard end <= UInt64(UInt32.max), vmSize <= UInt64(UInt32.max), vmEnd <= 1 << 32 else {
                throw MachOError(
                    .tooLarge,
                    "__LINKEDIT would end at file offset \(end) and address 0x\(hex(vmEnd)), past what the 32-bit "
                        + "LC_SEGMENT fields can hold",
                    slice: name)
            }
        }

        var bytes = slice.headerAndCommandBytes
        let order = slice.byteOrder
        let signatureCommand: Int
        if let existing = placement.signatureCommandOffset {
            change = .resized
            signatureCommand = existing
        } else {
            change = .added
            signatureCommand = bytes.count
            bytes += [UInt8](repeating: 0, count: SignaturePlacement.commandSize)
            try bytes.put32(LoadCommandType.codeSignature.rawValue, at: signatureCommand, order)
            try bytes.put32(UInt32(SignaturePlacement.commandSize), at: signatureCommand + 4, order)
            try bytes.put32(slice.header.commandCount + 1, at: 16, order)
            try bytes.put32(slice.header.commandsSize + UInt32(SignaturePlacement.commandSize), at: 20, order)
        }
        try bytes.put32(UInt32(placement.codeLimit), at: signatureCommand + 8, order)
        try bytes.put32(reserved, at: signatureCommand + 12, order)
        if linkedit.isSegment64 {
            try bytes.put64(vmSize, at: linkedit.commandOffset + 32, order)
            try bytes.put64(fileSize, at: linkedit.commandOffset + 48, order)
        } else {
            try bytes.put32(UInt32(vmSize), at: linkedit.commandOffset + 28, order)
            try bytes.put32(UInt32(fileSize), at: linkedit.commandOffset + 36, order)
        }
        headerBytes = bytes
        signatureSpace = reserved
    }
}

extension [UInt8] {
    /// Overwrites 4 bytes at `offset` with `value` in `order`; the offsets come from commands the
    /// parser checked, so a miss is reported rather than assumed impossible.
    mutating func put32(_ value: UInt32, at offset: Int, _ order: Endianness) throws(MachOError) {
        try put(UInt64(value), size: 4, at: offset, order)
    }

    mutating func put64(_ value: UInt64, at offset: Int, _ order: Endianness) throws(MachOError) {
        try put(value, size: 8, at: offset, order)
    }

    private mutating func put(_ value: UInt64, size: Int, at offset: Int, _ order: Endianness) throws(MachOError) {
        guard offset >= 0, offset <= count - size else {
            throw MachOError(.loadCommand, "a field to update at offset \(offset) lies outside the load commands")
        }
        for index in 0..<size {
            let shift = order == .big ? (size - 1 - index) * 8 : index * 8
            self[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }
}

/// Appends big-endian integers: the fat header's byte order.
private struct BigEndianBytes {
    private(set) var bytes: [UInt8] = []

    mutating func append32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func append64(_ value: UInt64) {
        append32(UInt32(truncatingIfNeeded: value >> 32))
        append32(UInt32(truncatingIfNeeded: value))
    }
}
