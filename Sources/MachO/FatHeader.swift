import FormatSupport

/// The table at the start of a universal ("fat") file listing its architecture slices.
///
/// Always big-endian. `0xCAFEBABE` has 20-byte `fat_arch` entries with 32-bit offsets;
/// `0xCAFEBABF` has 32-byte `fat_arch_64` entries with 64-bit offsets and sizes.
public struct FatHeader: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `FAT_MAGIC`, 32-bit offsets and sizes.
        case fat32
        /// `FAT_MAGIC_64`, 64-bit offsets and sizes.
        case fat64

        var entrySize: Int { self == .fat32 ? 20 : 32 }
    }

    /// One slice of the file.
    public struct Entry: Sendable, Equatable {
        public let architecture: MachOArchitecture
        /// Start of the slice from the start of the file.
        public let offset: UInt64
        public let size: UInt64
        /// log2 of the slice alignment, usually 14 (16 KiB).
        public let alignment: UInt32

        public var end: UInt64 { offset + size }
    }

    public static let magic32: UInt32 = 0xCAFE_BABE
    public static let magic64: UInt32 = 0xCAFE_BABF

    /// Real files carry a handful of slices; Java class files share `0xCAFEBABE` and put their
    /// version (45 or more) where `nfat_arch` would be, so a small bound also tells them apart.
    public static let maximumArchitectureCount = 32

    public let kind: Kind
    /// Slices in header order.
    public let entries: [Entry]

    /// Bytes taken by the header and its table.
    public var size: Int { 8 + entries.count * kind.entrySize }

    /// Whether `bytes` start with `0xCAFEBABE` or `0xCAFEBABF`.
    public static func hasFatMagic(_ bytes: some Collection<UInt8>) -> Bool {
        let magic = Array(bytes.prefix(4))
        return magic == [0xCA, 0xFE, 0xBA, 0xBE] || magic == [0xCA, 0xFE, 0xBA, 0xBF]
    }

    /// The number of bytes the header and its table occupy, from the first 8 bytes of a file, or
    /// nil when they are not a fat header.
    public static func tableSize(prefix: [UInt8]) throws(MachOError) -> Int? {
        let reader = ByteReader(prefix)
        guard let magic = try? reader.uint32(at: 0, .big) else { return nil }
        let kind: Kind
        switch magic {
        case magic32: kind = .fat32
        case magic64: kind = .fat64
        default: return nil
        }
        guard let count = try? reader.uint32(at: 4, .big) else {
            throw MachOError(.truncated, "the fat header is cut off after \(prefix.count) bytes")
        }
        guard count >= 1, count <= maximumArchitectureCount else {
            throw MachOError(
                .fatHeader,
                "the fat header lists \(count) architectures; between 1 and \(maximumArchitectureCount) are allowed")
        }
        return 8 + Int(count) * kind.entrySize
    }

    /// Parses the fat header at the start of `bytes` and checks every slice against a file of
    /// `fileSize` bytes: inside the file, after the header, and not overlapping another slice.
    public init(bytes: [UInt8], fileSize: UInt64) throws(MachOError) {
        guard let tableSize = try Self.tableSize(prefix: bytes) else {
            throw MachOError(.badMagic, "the file does not start with a fat Mach-O magic number")
        }
        let reader = ByteReader(bytes)
        kind = bytes.count >= 4 && bytes[3] == 0xBF ? .fat64 : .fat32
        guard tableSize <= bytes.count, UInt64(tableSize) <= fileSize else {
            throw MachOError(
                .truncated,
                "the fat header's table needs \(tableSize) bytes but the file has \(min(UInt64(bytes.count), fileSize))"
            )
        }
        let count = (tableSize - 8) / kind.entrySize
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        do {
            for index in 0..<count {
                let at = 8 + index * kind.entrySize
                let architecture = MachOArchitecture(
                    cpuType: Int32(bitPattern: try reader.uint32(at: at, .big)),
                    cpuSubtype: Int32(bitPattern: try reader.uint32(at: at + 4, .big)))
                let offset: UInt64
                let size: UInt64
                let alignment: UInt32
                switch kind {
                case .fat32:
                    offset = UInt64(try reader.uint32(at: at + 8, .big))
                    size = UInt64(try reader.uint32(at: at + 12, .big))
                    alignment = try reader.uint32(at: at + 16, .big)
                case .fat64:
                    offset = try reader.uint64(at: at + 8, .big)
                    size = try reader.uint64(at: at + 16, .big)
                    alignment = try reader.uint32(at: at + 24, .big)
                }
                entries.append(Entry(architecture: architecture, offset: offset, size: size, alignment: alignment))
            }
        } catch {
            throw MachOError(.truncated, "the fat header's table is cut off")
        }
        self.entries = entries
        try validate(fileSize: fileSize)
    }

    private func validate(fileSize: UInt64) throws(MachOError) {
        var seen = Set<MachOArchitecture>()
        for entry in entries {
            let name = entry.architecture.name
            guard entry.offset <= fileSize, entry.size <= fileSize - entry.offset else {
                throw MachOError(
                    .truncated,
                    "the \(name) slice at offset \(entry.offset), size \(entry.size), ends past the end of the \(fileSize)-byte file"
                )
            }
            guard entry.offset >= UInt64(size) else {
                throw MachOError(
                    .fatOverlap, "the \(name) slice at offset \(entry.offset) overlaps the \(size)-byte fat header")
            }
            let key = MachOArchitecture(
                cpuType: entry.architecture.cpuType, cpuSubtype: entry.architecture.maskedSubtype)
            guard seen.insert(key).inserted else {
                throw MachOError(.fatHeader, "the fat header lists the \(name) architecture twice")
            }
        }
        let sorted = entries.sorted { $0.offset < $1.offset }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.end > next.offset {
            throw MachOError(
                .fatOverlap,
                "the \(previous.architecture.name) slice (\(previous.offset)..<\(previous.end)) overlaps the \(next.architecture.name) slice starting at \(next.offset)"
            )
        }
    }
}
