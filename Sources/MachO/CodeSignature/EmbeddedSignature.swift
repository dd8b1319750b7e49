import FormatSupport

/// The embedded code signature of a slice: the SuperBlob (`0xFADE0CC0`) that `LC_CODE_SIGNATURE`
/// points to, an index of typed blobs. Every field is big-endian whatever the slice's byte order.
public struct EmbeddedSignature: Sendable, Equatable {
    public static let superBlobMagic: UInt32 = 0xFADE_0CC0
    public static let requirementsMagic: UInt32 = 0xFADE_0C01
    public static let entitlementsMagic: UInt32 = 0xFADE_7171
    public static let derEntitlementsMagic: UInt32 = 0xFADE_7172
    public static let blobWrapperMagic: UInt32 = 0xFADE_0B01

    /// More blobs than any signer writes (about a dozen); bounds the index before it is read.
    public static let maximumBlobCount = 256

    /// A slot of the index: what the blob is (`slot`) and where it lies in the SuperBlob.
    public struct Blob: Sendable, Equatable {
        /// The slot type: 0 CodeDirectory, 2 requirements, 5 entitlements, 7 DER entitlements,
        /// 0x1000… alternate CodeDirectories, 0x10000 CMS signature.
        public let slot: UInt32
        public let magic: UInt32
        /// Offset of the blob from the start of the SuperBlob.
        public let offset: Int
        /// The blob's `length`, including its 8-byte magic and length.
        public let length: Int
    }

    public enum Slot {
        public static let codeDirectory: UInt32 = 0
        public static let requirements: UInt32 = 2
        public static let entitlements: UInt32 = 5
        public static let derEntitlements: UInt32 = 7
        public static let alternateCodeDirectories: ClosedRange<UInt32> = 0x1000...0x1004
        public static let signature: UInt32 = 0x10000
    }

    /// The index in order.
    public let blobs: [Blob]
    /// Slot 0 first, then the alternate directories (commonly SHA-1 then SHA-256).
    public let codeDirectories: [CodeDirectory]
    /// The requirements blob (`0xFADE0C01`), whole.
    public let requirements: [UInt8]?
    /// The XML property list of the entitlements (payload of `0xFADE7171`).
    public let entitlementsXML: [UInt8]?
    /// The DER encoding of the entitlements (payload of `0xFADE7172`), required since iOS 15.
    public let entitlementsDER: [UInt8]?
    /// The CMS `SignedData` (payload of the `0xFADE0B01` wrapper); empty for ad-hoc signatures.
    public let cmsSignature: [UInt8]?

    /// The primary CodeDirectory (slot 0).
    public var codeDirectory: CodeDirectory? { codeDirectories.first }
    /// The signing identifier of the primary CodeDirectory.
    public var identifier: String? { codeDirectory?.identifier }
    public var teamIdentifier: String? { codeDirectory?.teamIdentifier }

    /// Whether a non-empty CMS signature is present: signed with an identity, not ad-hoc.
    public var hasCMSSignature: Bool { !(cmsSignature?.isEmpty ?? true) }

    /// Ad-hoc: no identity signed it (no or an empty CMS blob, or the `CS_ADHOC` flag).
    public var isAdHoc: Bool { !hasCMSSignature || (codeDirectory?.isAdHoc ?? false) }

    /// Parses a SuperBlob from `bytes`, which may run past the SuperBlob's `length` (signers
    /// pad `LC_CODE_SIGNATURE`'s range).
    public init(bytes: [UInt8]) throws(MachOError) {
        let reader = ByteReader(bytes)
        func field(_ offset: Int) throws(MachOError) -> UInt32 {
            do { return try reader.uint32(at: offset, .big) } catch {
                throw MachOError(.signature, "the code signature is cut off at offset \(offset)")
            }
        }
        guard bytes.count >= 12 else {
            throw MachOError(.signature, "the code signature is \(bytes.count) bytes, shorter than a SuperBlob header")
        }
        let magic = try field(0)
        guard magic == Self.superBlobMagic else {
            throw MachOError(.signature, "the code signature magic is 0x\(hex(magic)), not 0xFADE0CC0")
        }
        let length = Int(try field(4))
        guard length >= 12, length <= bytes.count else {
            throw MachOError(
                .signature, "the SuperBlob length \(length) does not fit in the \(bytes.count)-byte signature")
        }
        let count = Int(try field(8))
        guard count <= Self.maximumBlobCount, count <= (length - 12) / 8 else {
            throw MachOError(
                .signature, "the SuperBlob lists \(count) blobs, more than its \(length) bytes can index")
        }
        let indexEnd = 12 + count * 8
        var blobs: [Blob] = []
        var seenSlots = Set<UInt32>()
        blobs.reserveCapacity(count)
        for index in 0..<count {
            let slot = try field(12 + index * 8)
            let offset = Int(try field(16 + index * 8))
            guard seenSlots.insert(slot).inserted else {
                throw MachOError(.signature, "the SuperBlob lists slot 0x\(hex(slot)) twice")
            }
            guard offset >= indexEnd, offset <= length - 8 else {
                throw MachOError(
                    .signature,
                    "blob \(index) (slot 0x\(hex(slot))) starts at offset \(offset), outside the SuperBlob's \(indexEnd)..<\(length) data"
                )
            }
            let blobMagic = try field(offset)
            let blobLength = Int(try field(offset + 4))
            guard blobLength >= 8, blobLength <= length - offset else {
                throw MachOError(
                    .signature,
                    "blob \(index) (slot 0x\(hex(slot))) has length \(blobLength), which runs past the \(length)-byte SuperBlob"
                )
            }
            blobs.append(Blob(slot: slot, magic: blobMagic, offset: offset, length: blobLength))
        }
        self.blobs = blobs

        func blobBytes(_ blob: Blob) -> [UInt8] {
            Array(bytes[blob.offset..<(blob.offset + blob.length)])
        }
        func expect(_ blob: Blob, _ magic: UInt32, _ what: String) throws(MachOError) {
            guard blob.magic == magic else {
                throw MachOError(
                    .signature,
                    "slot 0x\(hex(blob.slot)) should hold the \(what) (magic 0x\(hex(magic))) but has magic 0x\(hex(blob.magic))"
                )
            }
        }

        var directories: [(slot: UInt32, directory: CodeDirectory)] = []
        var requirements: [UInt8]?
        var entitlementsXML: [UInt8]?
        var entitlementsDER: [UInt8]?
        var cmsSignature: [UInt8]?
        for blob in blobs {
            switch blob.slot {
            case Slot.codeDirectory, Slot.alternateCodeDirectories:
                try expect(blob, CodeDirectory.magic, "CodeDirectory")
                do {
                    directories.append((blob.slot, try CodeDirectory(bytes: blobBytes(blob))))
                } catch {
                    throw MachOError(.signature, "slot 0x\(hex(blob.slot)): \(error.message)")
                }
            case Slot.requirements:
                try expect(blob, Self.requirementsMagic, "requirements")
                requirements = blobBytes(blob)
            case Slot.entitlements:
                try expect(blob, Self.entitlementsMagic, "entitlements")
                entitlementsXML = Array(blobBytes(blob).dropFirst(8))
            case Slot.derEntitlements:
                try expect(blob, Self.derEntitlementsMagic, "DER entitlements")
                entitlementsDER = Array(blobBytes(blob).dropFirst(8))
            case Slot.signature:
                try expect(blob, Self.blobWrapperMagic, "CMS signature wrapper")
                cmsSignature = Array(blobBytes(blob).dropFirst(8))
            default:
                break
            }
        }
        guard directories.isEmpty || directories.contains(where: { $0.slot == Slot.codeDirectory }) else {
            throw MachOError(.signature, "the SuperBlob has alternate CodeDirectories but none in slot 0")
        }
        codeDirectories = directories.sorted { $0.slot < $1.slot }.map(\.directory)
        self.requirements = requirements
        self.entitlementsXML = entitlementsXML
        self.entitlementsDER = entitlementsDER
        self.cmsSignature = cmsSignature
    }
}
