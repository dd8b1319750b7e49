import FormatSupport

/// `mach_header` / `mach_header_64`: the start of a thin Mach-O image, in the image's own byte order.
public struct MachHeader: Sendable, Equatable {
    public static let magic32: UInt32 = 0xFEED_FACE
    public static let magic64: UInt32 = 0xFEED_FACF

    public let is64Bit: Bool
    /// Byte order of every field in the image except the code signature (always big-endian).
    public let byteOrder: Endianness
    public let architecture: MachOArchitecture
    public let fileType: MachOFileType
    /// `ncmds`: how many load commands follow the header.
    public let commandCount: UInt32
    /// `sizeofcmds`: bytes taken by the load commands.
    public let commandsSize: UInt32
    public let flags: Flags

    /// 28 bytes for 32-bit images, 32 for 64-bit (which add a reserved word).
    public var size: Int { is64Bit ? 32 : 28 }

    /// `mach_header.flags` bits that matter when inspecting an app.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let noUndefinedSymbols = Flags(rawValue: 0x1)
        public static let dynamicallyLinked = Flags(rawValue: 0x4)
        /// Imports name their library (ordinals in `n_desc` are meaningful).
        public static let twoLevelNamespace = Flags(rawValue: 0x80)
        /// Position-independent executable (ASLR).
        public static let pie = Flags(rawValue: 0x0020_0000)
        public static let hasTLVDescriptors = Flags(rawValue: 0x0080_0000)
        public static let appExtensionSafe = Flags(rawValue: 0x0200_0000)
    }

    /// Byte order and width from the first four bytes, or nil when they are not a thin magic.
    static func kind(ofMagicBytes bytes: some Collection<UInt8>) -> (is64Bit: Bool, order: Endianness)? {
        guard bytes.count >= 4 else { return nil }
        var magic: UInt32 = 0
        for byte in bytes.prefix(4) { magic = magic << 8 | UInt32(byte) }
        switch magic {
        case magic32: return (false, .big)
        case magic64: return (true, .big)
        case magic32.byteSwapped: return (false, .little)
        case magic64.byteSwapped: return (true, .little)
        default: return nil
        }
    }

    /// Parses the header at the start of `bytes`.
    public init(bytes: [UInt8]) throws(MachOError) {
        guard let (is64Bit, order) = Self.kind(ofMagicBytes: bytes) else {
            guard bytes.count >= 4 else {
                throw MachOError(.truncated, "the Mach-O header is cut off after \(bytes.count) bytes")
            }
            throw MachOError(.badMagic, "the data does not start with a Mach-O magic number")
        }
        let size = is64Bit ? 32 : 28
        guard bytes.count >= size else {
            throw MachOError(.truncated, "the \(size)-byte Mach-O header is cut off after \(bytes.count) bytes")
        }
        let reader = ByteReader(bytes)
        do {
            self.is64Bit = is64Bit
            self.byteOrder = order
            self.architecture = MachOArchitecture(
                cpuType: Int32(bitPattern: try reader.uint32(at: 4, order)),
                cpuSubtype: Int32(bitPattern: try reader.uint32(at: 8, order)))
            self.fileType = MachOFileType(rawValue: try reader.uint32(at: 12, order))
            self.commandCount = try reader.uint32(at: 16, order)
            self.commandsSize = try reader.uint32(at: 20, order)
            self.flags = Flags(rawValue: try reader.uint32(at: 24, order))
        } catch {
            throw MachOError(.truncated, "the Mach-O header is cut off")
        }
    }
}
