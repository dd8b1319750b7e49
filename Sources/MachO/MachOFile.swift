import FormatSupport

/// A thin or universal ("fat") Mach-O file: its fat header, if any, and one `MachOSlice` per
/// architecture.
///
/// Reading touches only the fat table and each slice's header and load commands; everything else
/// is read on request from the slices.
public struct MachOFile: Sendable {
    /// The fat header, or nil for a thin file.
    public let fatHeader: FatHeader?
    /// The architectures, in fat-table order (one for a thin file).
    public let slices: [MachOSlice]
    /// Size of the whole file in bytes.
    public let size: UInt64

    public var isFat: Bool { fatHeader != nil }

    /// Architecture names in order, e.g. `["armv7", "arm64"]`.
    public var architectureNames: [String] { slices.map(\.architecture.name) }

    /// The slice whose architecture is called `name` (`arm64`, `armv7`…).
    public func slice(named name: String) -> MachOSlice? {
        slices.first { $0.architecture.name == name }
    }

    /// Parses the fat header and every slice's header and load commands from `source`.
    ///
    /// Throws `MachOError` for malformed input, or the source's own error when reading fails.
    /// `clock` is the time limit of the work on the file, checked per load command.
    public init<Source: ByteSource>(reading source: inout Source, clock: WorkClock = .unlimited) throws {
        size = source.size
        let prefix = try readChecked(&source, offset: 0, count: Int(min(size, 8)))
        guard let tableSize = try FatHeader.tableSize(prefix: prefix) else {
            fatHeader = nil
            slices = [try MachOSlice(reading: &source, offset: 0, size: size, clock: clock)]
            return
        }
        guard UInt64(tableSize) <= size else {
            throw MachOError(.truncated, "the fat header's table needs \(tableSize) bytes but the file has \(size)")
        }
        let fat = try FatHeader(bytes: try readChecked(&source, offset: 0, count: tableSize), fileSize: size)
        var slices: [MachOSlice] = []
        slices.reserveCapacity(fat.entries.count)
        for entry in fat.entries {
            let name = entry.architecture.name
            do {
                let magic = try readChecked(&source, offset: entry.offset, count: Int(min(entry.size, 4)))
                guard !FatHeader.hasFatMagic(magic) else {
                    throw MachOError(.fatHeader, "the slice is itself a fat file")
                }
                let slice = try MachOSlice(reading: &source, offset: entry.offset, size: entry.size, clock: clock)
                guard slice.architecture.cpuType == entry.architecture.cpuType,
                    slice.architecture.maskedSubtype == entry.architecture.maskedSubtype
                else {
                    throw MachOError(
                        .fatHeader,
                        "the fat header says \(name) but the slice's own header says \(slice.architecture.name)")
                }
                slices.append(slice)
            } catch let error as MachOError {
                throw error.inSlice(name)
            }
        }
        self.slices = slices
        fatHeader = fat
    }

    /// Parses a file already in memory.
    public init(bytes: [UInt8]) throws(MachOError) {
        var source = InMemoryByteSource(bytes)
        do {
            try self.init(reading: &source)
        } catch let error as MachOError {
            throw error
        } catch {
            // InMemoryByteSource only fails with out-of-bounds reads, which readChecked prevents.
            throw MachOError(.truncated, "the data ended before a structure it declares")
        }
    }

    /// Whether `prefix` (the first 8 bytes or more of a file) starts like a thin or fat Mach-O.
    /// Used to find binaries in a bundle and to give them mode 0755; Java class files, which share
    /// the fat magic, are told apart by their version number.
    public static func isMachO(prefix: some Collection<UInt8>) -> Bool {
        if MachHeader.kind(ofMagicBytes: prefix) != nil { return true }
        let bytes = Array(prefix.prefix(8))
        guard bytes.count == 8 else { return false }
        // `tableSize` is nil for other magics and throws for implausible counts (Java's versions).
        return (try? FatHeader.tableSize(prefix: bytes)) != nil
    }

    /// Whether `prefix` (the first 16 bytes or more) starts like code a device loads, which a
    /// signer signs: a fat file, or a thin executable, dylib or bundle (`MH_EXECUTE`, `MH_DYLIB`,
    /// `MH_BUNDLE`), not an object file or a dSYM's companion.
    public static func isLoadableCode(prefix: some Collection<UInt8>) -> Bool {
        let bytes = Array(prefix.prefix(16))
        guard let (_, order) = MachHeader.kind(ofMagicBytes: bytes) else { return isMachO(prefix: bytes) }
        guard bytes.count == 16 else { return false }
        let field = bytes[12..<16]
        let fileType = order == .little
            ? field.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            : field.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return [MachOFileType.execute, .dylib, .bundle].contains(MachOFileType(rawValue: fileType))
    }
}
