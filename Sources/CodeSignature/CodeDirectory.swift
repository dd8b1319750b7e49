import FormatSupport
import MachO

/// A CodeDirectory blob (`0xFADE0C02`): what a code signature seals. It names the code
/// (identifier, team), says how pages are hashed, and holds the page and special-slot hashes.
/// Every version from 0x20001 to 0x20600 is read; fields a version lacks are nil.
///
/// A value keeps the exact bytes it was read from (`bytes`), which the cdhash is computed over;
/// `serialized()` writes the fields in the layout Apple's `CodeDirectory::Builder` uses (header,
/// scatter vector, identifier, team ID, pre-encrypt hashes, special slots, code slots), so for a
/// directory written by codesign `serialized() == bytes`. New directories come from
/// `CodeDirectory.Builder`.
public struct CodeDirectory: Sendable, Equatable {
    public static let magic = BlobMagic.codeDirectory

    /// The versions that added fields.
    public enum Version {
        public static let earliest: UInt32 = 0x20001
        public static let scatter: UInt32 = 0x20100
        public static let teamIdentifier: UInt32 = 0x20200
        public static let codeLimit64: UInt32 = 0x20300
        public static let executableSegment: UInt32 = 0x20400
        /// Hardened-runtime version and pre-encryption hashes.
        public static let runtime: UInt32 = 0x20500
        public static let linkage: UInt32 = 0x20600
        /// Versions from 0x30000 on would be incompatible (Apple refuses them too).
        public static let firstUnsupported: UInt32 = 0x30000

        /// Bytes of the fixed header a directory of `version` has.
        public static func headerSize(_ version: UInt32) -> Int {
            switch version {
            case ..<scatter: 44
            case ..<teamIdentifier: 48
            case ..<codeLimit64: 52
            case ..<executableSegment: 64
            case ..<runtime: 88
            case ..<linkage: 96
            default: 108
            }
        }
    }

    /// `CS_*` flags.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let valid = Flags(rawValue: 0x1)
        /// Signed without an identity.
        public static let adHoc = Flags(rawValue: 0x2)
        public static let getTaskAllow = Flags(rawValue: 0x4)
        public static let installer = Flags(rawValue: 0x8)
        public static let forcedLibraryValidation = Flags(rawValue: 0x10)
        public static let invalidAllowed = Flags(rawValue: 0x20)
        public static let hard = Flags(rawValue: 0x100)
        public static let kill = Flags(rawValue: 0x200)
        public static let checkExpiration = Flags(rawValue: 0x400)
        public static let restrict = Flags(rawValue: 0x800)
        public static let enforcement = Flags(rawValue: 0x1000)
        public static let requireLibraryValidation = Flags(rawValue: 0x2000)
        /// Hardened runtime.
        public static let runtime = Flags(rawValue: 0x10000)
        public static let linkerSigned = Flags(rawValue: 0x20000)
    }

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

    /// The executable segment (`__TEXT`), version 0x20400 and later.
    public struct ExecutableSegment: Sendable, Hashable {
        /// File offset of the segment from the start of the slice.
        public var base: UInt64
        /// Its size in the file.
        public var limit: UInt64
        /// `CS_EXECSEG_*` flags, e.g. 0x1 main binary, 0x10 allow unsigned.
        public var flags: UInt64

        public static let mainBinary: UInt64 = 0x1
        public static let allowUnsigned: UInt64 = 0x10

        public init(base: UInt64, limit: UInt64, flags: UInt64) {
            self.base = base
            self.limit = limit
            self.flags = flags
        }
    }

    /// One run of a scatter vector: `count` pages starting at page `base`, at `targetOffset`.
    public struct Scatter: Sendable, Hashable {
        public var count: UInt32
        public var base: UInt32
        public var targetOffset: UInt64
        public var spare: UInt64

        public init(count: UInt32, base: UInt32, targetOffset: UInt64, spare: UInt64 = 0) {
            self.count = count
            self.base = base
            self.targetOffset = targetOffset
            self.spare = spare
        }
    }

    /// Version 0x20600's linkage fields and the bytes they point to.
    public struct Linkage: Sendable, Hashable {
        public var hashType: UInt8
        public var applicationType: UInt8
        public var applicationSubtype: UInt16
        public var data: [UInt8]

        public init(hashType: UInt8, applicationType: UInt8, applicationSubtype: UInt16, data: [UInt8]) {
            self.hashType = hashType
            self.applicationType = applicationType
            self.applicationSubtype = applicationSubtype
            self.data = data
        }
    }

    /// `version`: which optional fields follow the base header.
    public let version: UInt32
    public let flags: Flags
    /// The signing identifier, normally the bundle identifier (bytes not valid UTF-8 are replaced).
    public var identifier: String { String(decoding: identifierBytes, as: UTF8.self) }
    public let identifierBytes: [UInt8]
    /// The signing team (10 characters); absent in ad-hoc signatures and before version 0x20200.
    public var teamIdentifier: String? { teamIdentifierBytes.map { String(decoding: $0, as: UTF8.self) } }
    public let teamIdentifierBytes: [UInt8]?
    public let hashType: HashType
    /// Bytes per hash.
    public let hashSize: Int
    /// `platform`: non-zero for platform binaries shipped with the OS.
    public let platform: UInt8
    /// log2 of the page size hashed per code slot (12 = 4 KiB); 0 means one hash for everything.
    public let pageSizeLog2: UInt8
    /// `spare2` (zero when written by Apple).
    public let spare2: UInt32
    /// `spare3`, version 0x20300 and later.
    public let spare3: UInt32
    /// The 32-bit `codeLimit` field as stored (`UInt32.max` when the 64-bit field holds the limit).
    public let codeLimit32: UInt32
    /// The 64-bit `codeLimit64` field (version 0x20300 and later), 0 when unused.
    public let codeLimit64: UInt64
    /// The scatter vector, when `scatterOffset` is set (without its terminating entry).
    public let scatter: [Scatter]?
    public let executableSegment: ExecutableSegment?
    /// The hardened-runtime SDK version (`runtime`, version 0x20500 and later), raw.
    public let runtime: UInt32?
    /// Hashes of the pages before FairPlay encryption (version 0x20500 and later), when present.
    public let preEncryptHashes: HashArray?
    public let linkage: Linkage?
    /// Special-slot hashes: element 0 is slot −1 (Info.plist), element 1 slot −2, …
    public let specialSlots: HashArray
    /// One hash per page of `[0, codeLimit)`.
    public let codeSlots: HashArray
    /// The whole blob as read (or as built): the cdhash is computed over these bytes.
    public let bytes: [UInt8]

    /// Bytes of the slice covered by the code slots (the 64-bit limit when present).
    public var codeLimit: UInt64 { codeLimit64 != 0 ? codeLimit64 : UInt64(codeLimit32) }
    public var specialSlotCount: Int { specialSlots.count }
    public var codeSlotCount: Int { codeSlots.count }
    /// `execSegFlags` (version 0x20400 and later).
    public var executableSegmentFlags: UInt64? { executableSegment?.flags }
    /// The hardened-runtime SDK version (version 0x20500 and later).
    public var runtimeVersion: MachOVersion? { runtime.map { MachOVersion(rawValue: $0) } }

    /// The page size in bytes, or nil when `pageSizeLog2` is 0 (no paging).
    public var pageSize: Int? {
        pageSizeLog2 == 0 ? nil : 1 << Int(pageSizeLog2)
    }

    /// Whether the `CS_ADHOC` flag is set (signed without an identity).
    public var isAdHoc: Bool { flags.contains(.adHoc) }

    /// The hash stored in special slot −`slot`, or nil when the directory has fewer special slots.
    public func hash(forSpecialSlot slot: Int) -> [UInt8]? {
        guard slot >= 1, slot <= specialSlots.count else { return nil }
        return specialSlots[slot - 1]
    }

    public func hash(for slot: SpecialSlot) -> [UInt8]? {
        hash(forSpecialSlot: slot.rawValue)
    }

    /// The hash of page `index` of the code.
    public func hash(forCodeSlot index: Int) -> [UInt8]? {
        codeSlots.indices.contains(index) ? codeSlots[index] : nil
    }

    /// The digest of the whole directory with its own hash type (what the CMS `CDHashes2`
    /// attribute lists); nil for a hash type this reader cannot compute.
    public var digest: [UInt8]? { hashType.digest(bytes) }

    /// The cdhash: the digest truncated to 20 bytes, which names this code.
    public var cdhash: [UInt8]? { digest.map { Array($0.prefix(20)) } }

    // MARK: Reading

    /// Parses one CodeDirectory blob; `bytes` must be exactly the blob (its `length`).
    public init(bytes: [UInt8]) throws(CodeSignatureError) {
        try BlobFraming.check(bytes, magic: Self.magic, what: "CodeDirectory", reason: .codeDirectory)
        let reader = ByteReader(bytes)
        func u32(_ offset: Int) throws(CodeSignatureError) -> UInt32 {
            do { return try reader.uint32(at: offset, .big) } catch {
                throw Self.invalid("the CodeDirectory is too short for its version's fields")
            }
        }
        func u64(_ offset: Int) throws(CodeSignatureError) -> UInt64 {
            UInt64(try u32(offset)) << 32 | UInt64(try u32(offset + 4))
        }
        guard bytes.count >= 44 else {
            throw Self.invalid("the CodeDirectory is \(bytes.count) bytes, shorter than its 44-byte header")
        }
        let version = try u32(8)
        guard version >= Version.earliest, version < Version.firstUnsupported else {
            throw Self.invalid("the CodeDirectory version 0x\(hex(version)) is not one this reader knows (0x20001 to 0x2FFFF)")
        }
        let headerSize = Version.headerSize(version)
        guard bytes.count >= headerSize else {
            throw Self.invalid(
                "the CodeDirectory (version 0x\(hex(version))) is \(bytes.count) bytes, shorter than its \(headerSize)-byte header")
        }
        let hashOffset = Int(try u32(16))
        let identOffset = Int(try u32(20))
        let specialCount = Int(try u32(24))
        let codeCount = Int(try u32(28))
        let hashSize = Int(bytes[36])
        let hashType = HashType(rawValue: bytes[37])
        let pageSizeLog2 = bytes[39]
        guard hashSize > 0, hashType.digestSize.map({ $0 == hashSize }) ?? (hashSize <= 64) else {
            throw Self.invalid("the CodeDirectory hash size \(hashSize) does not fit its hash type \(hashType)")
        }
        guard pageSizeLog2 <= 31 else {
            throw Self.invalid("the CodeDirectory page size 2^\(pageSizeLog2) is not a plausible page size")
        }

        func string(at offset: Int, what: String) throws(CodeSignatureError) -> [UInt8] {
            guard offset >= headerSize else {
                throw Self.invalid("the CodeDirectory \(what) offset \(offset) points into its \(headerSize)-byte header")
            }
            do {
                return Array(try reader.cString(at: offset, maxLength: 4096))
            } catch {
                throw Self.invalid("the CodeDirectory \(what) at offset \(offset) does not end inside the blob")
            }
        }
        /// Checks that `count` hashes at `offset` lie after the header and inside the blob.
        func hashes(at offset: Int, count: Int, what: String) throws(CodeSignatureError) -> HashArray {
            let size = count * hashSize
            guard offset >= headerSize, offset <= bytes.count, size <= bytes.count - offset else {
                throw Self.invalid(
                    "the CodeDirectory's \(count) \(what) at offset \(offset) do not fit between its header and its end (\(bytes.count) bytes)")
            }
            return HashArray(hashSize: hashSize, storage: Array(bytes[offset..<(offset + size)]))
        }

        let identifierBytes = try string(at: identOffset, what: "identifier")
        var scatter: [Scatter]?
        let scatterOffset = version >= Version.scatter ? Int(try u32(44)) : 0
        if scatterOffset != 0 {
            guard scatterOffset >= headerSize else {
                throw Self.invalid("the CodeDirectory scatter vector offset \(scatterOffset) points into its header")
            }
            var runs: [Scatter] = []
            var pages = 0
            var at = scatterOffset
            // Each run takes 24 bytes, so the blob bounds the loop.
            while true {
                guard at <= bytes.count - 24 else {
                    throw Self.invalid("the CodeDirectory scatter vector runs past the end of the blob")
                }
                let run = Scatter(count: try u32(at), base: try u32(at + 4), targetOffset: try u64(at + 8), spare: try u64(at + 16))
                if run.count == 0 { break }
                pages += Int(run.count)
                runs.append(run)
                at += 24
            }
            guard pages <= codeCount else {
                throw Self.invalid("the CodeDirectory scatter vector covers \(pages) pages but there are \(codeCount) code slots")
            }
            scatter = runs
        }
        let teamOffset = version >= Version.teamIdentifier ? Int(try u32(48)) : 0
        let teamIdentifierBytes = teamOffset == 0 ? nil : try string(at: teamOffset, what: "team identifier")
        let has64 = version >= Version.codeLimit64
        let codeLimit32 = try u32(32)
        let codeLimit64 = has64 ? try u64(56) : 0
        var preEncryptHashes: HashArray?
        if version >= Version.runtime, case let offset = Int(try u32(92)), offset != 0 {
            preEncryptHashes = try hashes(at: offset, count: codeCount, what: "pre-encryption hashes")
        }
        var linkage: Linkage?
        if version >= Version.linkage {
            let offset = Int(try u32(100))
            let size = Int(try u32(104))
            guard (offset == 0 && size == 0) || (offset >= headerSize && offset <= bytes.count && size <= bytes.count - offset)
            else {
                throw Self.invalid("the CodeDirectory linkage data (offset \(offset), \(size) bytes) lies outside the blob")
            }
            linkage = Linkage(
                hashType: bytes[96], applicationType: bytes[97],
                applicationSubtype: UInt16(bytes[98]) << 8 | UInt16(bytes[99]),
                data: Array(bytes[offset..<(offset + size)]))
        }

        // The hashes run from hashOffset − nSpecial·hashSize to hashOffset + nCode·hashSize.
        guard specialCount <= hashOffset / hashSize else {
            throw Self.invalid("the CodeDirectory's \(specialCount) special slots before offset \(hashOffset) reach before its start")
        }
        let specialSlots = try hashes(at: hashOffset - specialCount * hashSize, count: specialCount, what: "special slots")
        let codeSlots = try hashes(at: hashOffset, count: codeCount, what: "code slots")

        // Without a scatter vector the slots must cover exactly [0, codeLimit), page by page.
        if scatter == nil {
            let limit = codeLimit64 != 0 ? codeLimit64 : UInt64(codeLimit32)
            let expected: UInt64 =
                switch (limit, pageSizeLog2) {
                case (0, _): 0
                case (_, 0): 1
                default: (limit - 1) >> UInt64(pageSizeLog2) + 1
                }
            guard UInt64(codeCount) == expected else {
                throw Self.invalid(
                    "the CodeDirectory has \(codeCount) code slots but its code limit \(limit) needs \(expected) pages")
            }
        }

        self.version = version
        flags = Flags(rawValue: try u32(12))
        self.identifierBytes = identifierBytes
        self.teamIdentifierBytes = teamIdentifierBytes
        self.hashType = hashType
        self.hashSize = hashSize
        platform = bytes[38]
        self.pageSizeLog2 = pageSizeLog2
        spare2 = try u32(40)
        spare3 = has64 ? try u32(52) : 0
        self.codeLimit32 = codeLimit32
        self.codeLimit64 = codeLimit64
        self.scatter = scatter
        executableSegment =
            version >= Version.executableSegment
            ? ExecutableSegment(base: try u64(64), limit: try u64(72), flags: try u64(80)) : nil
        runtime = version >= Version.runtime ? try u32(88) : nil
        self.preEncryptHashes = preEncryptHashes
        self.linkage = linkage
        self.specialSlots = specialSlots.reversedSlots()
        self.codeSlots = codeSlots
        self.bytes = bytes
    }

    static func invalid(_ message: String) -> CodeSignatureError {
        CodeSignatureError(.codeDirectory, message)
    }

    // MARK: Writing

    /// The directory's fields in Apple's layout. Equal to `bytes` for directories written by
    /// codesign, another signer or `Builder`.
    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        try Self.encode(
            version: version, flags: flags, identifier: identifierBytes, teamIdentifier: teamIdentifierBytes,
            hashType: hashType, platform: platform, pageSizeLog2: pageSizeLog2, spare2: spare2, spare3: spare3,
            codeLimit32: codeLimit32, codeLimit64: codeLimit64, scatter: scatter, executableSegment: executableSegment,
            runtime: runtime, preEncryptHashes: preEncryptHashes, linkage: linkage, specialSlots: specialSlots,
            codeSlots: codeSlots)
    }

    /// Lays out a directory: fixed header, scatter vector, identifier, team ID, pre-encryption
    /// hashes, special slots (−n … −1), code slots, linkage data.
    static func encode(
        version: UInt32, flags: Flags, identifier: [UInt8], teamIdentifier: [UInt8]?, hashType: HashType,
        platform: UInt8, pageSizeLog2: UInt8, spare2: UInt32, spare3: UInt32, codeLimit32: UInt32, codeLimit64: UInt64,
        scatter: [Scatter]?, executableSegment: ExecutableSegment?, runtime: UInt32?, preEncryptHashes: HashArray?,
        linkage: Linkage?, specialSlots: HashArray, codeSlots: HashArray
    ) throws(CodeSignatureError) -> [UInt8] {
        let hashSize = codeSlots.hashSize
        guard specialSlots.hashSize == hashSize, preEncryptHashes.map({ $0.hashSize == hashSize }) ?? true, hashSize <= 255
        else {
            throw invalid("the CodeDirectory's hash arrays do not share one hash size")
        }
        guard !identifier.contains(0), !(teamIdentifier?.contains(0) ?? false) else {
            throw invalid("a CodeDirectory identifier cannot contain a NUL byte")
        }
        let headerSize = Version.headerSize(version)
        var offset = headerSize
        var scatterOffset = 0
        if let scatter, version >= Version.scatter {
            scatterOffset = offset
            offset += (scatter.count + 1) * 24
        }
        let identOffset = offset
        offset += identifier.count + 1
        var teamOffset = 0
        if let teamIdentifier, version >= Version.teamIdentifier {
            teamOffset = offset
            offset += teamIdentifier.count + 1
        }
        var preEncryptOffset = 0
        if let preEncryptHashes, version >= Version.runtime {
            preEncryptOffset = offset
            offset += preEncryptHashes.storage.count
        }
        let hashOffset = offset + specialSlots.storage.count
        offset = hashOffset + codeSlots.storage.count
        var linkageOffset = 0
        if let linkage, version >= Version.linkage, !linkage.data.isEmpty {
            linkageOffset = offset
            offset += linkage.data.count
        }
        guard offset <= Int(UInt32.max), codeSlots.count <= Int(UInt32.max) else {
            throw invalid("the CodeDirectory would be \(offset) bytes, more than a blob can hold")
        }

        var writer = BigEndianWriter(capacity: offset)
        writer.u32(magic)
        writer.u32(UInt32(offset))
        writer.u32(version)
        writer.u32(flags.rawValue)
        writer.u32(UInt32(hashOffset))
        writer.u32(UInt32(identOffset))
        writer.u32(UInt32(specialSlots.count))
        writer.u32(UInt32(codeSlots.count))
        writer.u32(codeLimit32)
        writer.u8(UInt8(hashSize))
        writer.u8(hashType.rawValue)
        writer.u8(platform)
        writer.u8(pageSizeLog2)
        writer.u32(spare2)
        if version >= Version.scatter { writer.u32(UInt32(scatterOffset)) }
        if version >= Version.teamIdentifier { writer.u32(UInt32(teamOffset)) }
        if version >= Version.codeLimit64 {
            writer.u32(spare3)
            writer.u64(codeLimit64)
        }
        if version >= Version.executableSegment {
            let segment = executableSegment ?? ExecutableSegment(base: 0, limit: 0, flags: 0)
            writer.u64(segment.base)
            writer.u64(segment.limit)
            writer.u64(segment.flags)
        }
        if version >= Version.runtime {
            writer.u32(runtime ?? 0)
            writer.u32(UInt32(preEncryptOffset))
        }
        if version >= Version.linkage {
            writer.u8(linkage?.hashType ?? 0)
            writer.u8(linkage?.applicationType ?? 0)
            writer.u16(linkage?.applicationSubtype ?? 0)
            writer.u32(UInt32(linkageOffset))
            writer.u32(UInt32(linkage?.data.count ?? 0))
        }
        if let scatter, version >= Version.scatter {
            for run in scatter + [Scatter(count: 0, base: 0, targetOffset: 0)] {
                writer.u32(run.count)
                writer.u32(run.base)
                writer.u64(run.targetOffset)
                writer.u64(run.spare)
            }
        }
        writer.append(identifier)
        writer.u8(0)
        if let teamIdentifier, version >= Version.teamIdentifier {
            writer.append(teamIdentifier)
            writer.u8(0)
        }
        if let preEncryptHashes, version >= Version.runtime { writer.append(preEncryptHashes.storage) }
        writer.append(specialSlots.reversedSlots().storage)
        writer.append(codeSlots.storage)
        if let linkage, version >= Version.linkage { writer.append(linkage.data) }
        return writer.bytes
    }
}

extension HashArray {
    /// The same hashes in reverse order: special slots are stored −n first, −1 last.
    func reversedSlots() -> HashArray {
        var storage: [UInt8] = []
        storage.reserveCapacity(self.storage.count)
        for index in indices.reversed() {
            let start = index * hashSize
            storage.append(contentsOf: self.storage[start..<(start + hashSize)])
        }
        return HashArray(hashSize: hashSize, storage: storage)
    }
}
