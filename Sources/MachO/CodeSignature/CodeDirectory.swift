import FormatSupport

/// A CodeDirectory blob (`0xFADE0C02`): what a code signature seals. It names the code
/// (identifier, team), says how pages are hashed, and holds the page and special-slot hashes.
/// All fields are big-endian.
public struct CodeDirectory: Sendable, Equatable {
    public static let magic: UInt32 = 0xFADE_0C02

    /// The hash algorithm (`hashType`).
    public struct HashType: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let sha1 = HashType(rawValue: 1)
        public static let sha256 = HashType(rawValue: 2)
        /// SHA-256 truncated to 20 bytes.
        public static let sha256Truncated = HashType(rawValue: 3)
        public static let sha384 = HashType(rawValue: 4)

        public var name: String {
            switch rawValue {
            case 1: "SHA-1"
            case 2: "SHA-256"
            case 3: "SHA-256/20"
            case 4: "SHA-384"
            default: "hash type \(rawValue)"
            }
        }

        public var description: String { name }
    }

    /// `version`: which optional fields follow the base header (0x20100 scatter, 0x20200 team,
    /// 0x20300 64-bit code limit, 0x20400 executable segment, 0x20500 runtime, 0x20600 linkage).
    public let version: UInt32
    /// `CS_*` flags, e.g. 0x2 ad-hoc, 0x10000 hardened runtime.
    public let flags: UInt32
    /// The signing identifier, normally the bundle identifier.
    public let identifier: String
    /// The signing team (10 characters), absent in ad-hoc signatures and before version 0x20200.
    public let teamIdentifier: String?
    public let hashType: HashType
    /// Bytes per hash.
    public let hashSize: Int
    /// log2 of the page size hashed per code slot (12 = 4 KiB); 0 means one hash for everything.
    public let pageSizeLog2: UInt8
    /// `platform`: non-zero for platform binaries shipped with the OS.
    public let platform: UInt8
    /// Bytes of the slice covered by the code slots (the 64-bit limit when present).
    public let codeLimit: UInt64
    /// Special slots −1 … −nSpecialSlots (Info.plist, requirements, CodeResources, …).
    public let specialSlotCount: Int
    /// One slot per page of `[0, codeLimit)`.
    public let codeSlotCount: Int
    /// `execSegFlags` (version 0x20400 and later), e.g. 0x1 main binary, 0x10 allow unsigned.
    public let executableSegmentFlags: UInt64?
    /// Hardened-runtime SDK version (version 0x20500 and later).
    public let runtimeVersion: MachOVersion?
    /// The whole blob, for the caller to hash: the cdhash is its digest truncated to 20 bytes.
    public let bytes: [UInt8]

    private let hashOffset: Int

    /// Special slots by meaning; the hash of a file or blob is stored at slot −n.
    public enum SpecialSlot: Int, Sendable, CaseIterable {
        case infoPlist = 1
        case requirements = 2
        case resourceDirectory = 3
        case application = 4
        case entitlements = 5
        case representationSpecific = 6
        case derEntitlements = 7
        case launchConstraintSelf = 8
        case launchConstraintParent = 9
        case launchConstraintResponsible = 10
        case libraryConstraints = 11
    }

    /// The page size in bytes, or nil when `pageSizeLog2` is 0 (no paging) or implausible.
    public var pageSize: Int? {
        (1...30).contains(pageSizeLog2) ? 1 << Int(pageSizeLog2) : nil
    }

    /// Whether the `CS_ADHOC` flag is set (signed without an identity).
    public var isAdHoc: Bool { flags & 0x2 != 0 }

    /// The hash stored in special slot −`slot`, or nil when the directory has fewer special slots.
    public func hash(forSpecialSlot slot: Int) -> [UInt8]? {
        guard slot >= 1, slot <= specialSlotCount else { return nil }
        let start = hashOffset - slot * hashSize
        return Array(bytes[start..<(start + hashSize)])
    }

    public func hash(for slot: SpecialSlot) -> [UInt8]? {
        hash(forSpecialSlot: slot.rawValue)
    }

    /// The hash of page `index` of the code.
    public func hash(forCodeSlot index: Int) -> [UInt8]? {
        guard index >= 0, index < codeSlotCount else { return nil }
        let start = hashOffset + index * hashSize
        return Array(bytes[start..<(start + hashSize)])
    }

    /// Parses one CodeDirectory blob; `bytes` must be exactly the blob (its `length`).
    public init(bytes: [UInt8]) throws(MachOError) {
        let reader = ByteReader(bytes)
        func field(_ offset: Int) throws(MachOError) -> UInt32 {
            do { return try reader.uint32(at: offset, .big) } catch {
                throw MachOError(.signature, "the CodeDirectory is too short for its version's fields")
            }
        }
        guard bytes.count >= 44 else {
            throw MachOError(.signature, "the CodeDirectory is \(bytes.count) bytes, shorter than its 44-byte header")
        }
        guard try field(0) == Self.magic else {
            throw MachOError(.signature, "the CodeDirectory magic is 0x\(hex(try field(0))), not 0xFADE0C02")
        }
        let version = try field(8)
        self.version = version
        flags = try field(12)
        let hashOffset = Int(try field(16))
        let identOffset = Int(try field(20))
        let specialSlotCount = Int(try field(24))
        let codeSlotCount = Int(try field(28))
        var codeLimit = UInt64(try field(32))
        hashSize = Int(bytes[36])
        hashType = HashType(rawValue: bytes[37])
        platform = bytes[38]
        pageSizeLog2 = bytes[39]

        // Each version appends fields; a length too short for them is malformed.
        let headerSize: Int =
            switch version {
            case ..<0x20100: 44
            case ..<0x20200: 48
            case ..<0x20300: 52
            case ..<0x20400: 64
            case ..<0x20500: 88
            case ..<0x20600: 96
            default: 108
            }
        guard bytes.count >= headerSize else {
            throw MachOError(
                .signature,
                "the CodeDirectory (version 0x\(hex(version))) is \(bytes.count) bytes, shorter than its \(headerSize)-byte header"
            )
        }
        var team: String?
        if version >= 0x20200 {
            let teamOffset = Int(try field(48))
            if teamOffset != 0 {
                team = try Self.string(in: reader, at: teamOffset, headerSize: headerSize, what: "team identifier")
            }
        }
        if version >= 0x20300 {
            let limit64 = UInt64(try field(56)) << 32 | UInt64(try field(60))
            if limit64 != 0 { codeLimit = limit64 }
        }
        executableSegmentFlags = version >= 0x20400 ? UInt64(try field(80)) << 32 | UInt64(try field(84)) : nil
        runtimeVersion = version >= 0x20500 ? MachOVersion(rawValue: try field(88)) : nil
        identifier = try Self.string(in: reader, at: identOffset, headerSize: headerSize, what: "identifier")
        teamIdentifier = team
        self.codeLimit = codeLimit

        // The hashes run from hashOffset − nSpecial·hashSize to hashOffset + nCode·hashSize.
        guard (1...64).contains(hashSize) else {
            throw MachOError(.signature, "the CodeDirectory hash size is \(hashSize) bytes")
        }
        let available = bytes.count
        guard hashOffset >= headerSize, hashOffset <= available,
            specialSlotCount <= (hashOffset - headerSize) / hashSize,
            codeSlotCount <= (available - hashOffset) / hashSize
        else {
            throw MachOError(
                .signature,
                "the CodeDirectory's \(specialSlotCount) special and \(codeSlotCount) code slots at offset \(hashOffset) do not fit in its \(available) bytes"
            )
        }
        self.hashOffset = hashOffset
        self.specialSlotCount = specialSlotCount
        self.codeSlotCount = codeSlotCount
        self.bytes = bytes
    }

    private static func string(in reader: ByteReader, at offset: Int, headerSize: Int, what: String) throws(MachOError)
        -> String
    {
        guard offset >= headerSize else {
            throw MachOError(.signature, "the CodeDirectory \(what) offset \(offset) points into its header")
        }
        do {
            return String(decoding: try reader.cString(at: offset, maxLength: 4096), as: UTF8.self)
        } catch {
            throw MachOError(
                .signature, "the CodeDirectory \(what) at offset \(offset) does not end inside the blob")
        }
    }
}
