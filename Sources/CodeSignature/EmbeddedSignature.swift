import FormatSupport
import PropertyList

/// The embedded code signature of a slice: the SuperBlob (`0xFADE0CC0`) that `LC_CODE_SIGNATURE`
/// points to, with each blob decoded. Every field is big-endian whatever the slice's byte order.
///
/// Reading keeps every blob's exact bytes (special slots hash them as written) and decodes the
/// CodeDirectories, the requirement set and the XML entitlements; the DER entitlements are
/// decoded on request (`derEntitlements()`) and the CMS signature is carried as bytes.
/// `serialized()` writes the SuperBlob as codesign lays it out.
public struct EmbeddedSignature: Sendable, Equatable {
    /// Index slot numbers.
    public enum Slot {
        public static let codeDirectory: UInt32 = 0
        public static let requirements: UInt32 = 2
        public static let entitlements: UInt32 = 5
        public static let derEntitlements: UInt32 = 7
        public static let launchConstraints: ClosedRange<UInt32> = 8...11
        /// Alternate CodeDirectories (commonly SHA-256 beside a SHA-1 one in slot 0).
        public static let alternateCodeDirectories: ClosedRange<UInt32> = 0x1000...0x1004
        /// The CMS signature (a `0xFADE0B01` wrapper), empty for ad-hoc signatures.
        public static let signature: UInt32 = 0x10000
    }

    /// An index entry and where its blob lay when read.
    public struct Blob: Sendable, Equatable {
        public let slot: UInt32
        public let magic: UInt32
        /// From the start of the SuperBlob.
        public let offset: Int
        /// The blob's `length`, its 8-byte header included.
        public let length: Int
    }

    /// More blobs than any signer writes (about a dozen); bounds the index before it is read.
    public static let maximumBlobCount = SuperBlob.maximumCount

    /// The blobs as read, in index order, each with its exact bytes.
    public let superBlob: SuperBlob
    /// Slot 0 first, then the alternates in slot order.
    public let codeDirectories: [CodeDirectory]
    /// The slot of each of `codeDirectories`.
    public let codeDirectorySlots: [UInt32]
    /// The requirement set (slot 2).
    public let requirements: RequirementSet?
    /// The XML entitlements (slot 5).
    public let entitlements: EntitlementsBlob?
    /// The DER entitlements' payload (slot 7), decoded by `derEntitlements()`.
    public let entitlementsDER: [UInt8]?
    /// The CMS `SignedData` (payload of the slot 0x10000 wrapper); empty for ad-hoc signatures.
    public let cmsSignature: [UInt8]?

    public static func == (lhs: EmbeddedSignature, rhs: EmbeddedSignature) -> Bool {
        lhs.superBlob == rhs.superBlob
    }

    /// The index in order, with where each blob lay.
    public var blobs: [Blob] {
        superBlob.placements.map { Blob(slot: $0.type, magic: $0.magic, offset: $0.offset, length: $0.length) }
    }

    /// The primary CodeDirectory (slot 0), which the CMS signature signs.
    public var codeDirectory: CodeDirectory? { codeDirectories.first }
    /// The signing identifier of the primary CodeDirectory.
    public var identifier: String? { codeDirectory?.identifier }
    public var teamIdentifier: String? { codeDirectory?.teamIdentifier }
    /// The XML entitlements' property-list bytes.
    public var entitlementsXML: [UInt8]? { entitlements?.xml }

    /// Whether a non-empty CMS signature is present: signed with an identity, not ad-hoc.
    public var hasCMSSignature: Bool { !(cmsSignature?.isEmpty ?? true) }

    /// Ad-hoc: no identity signed it (no or an empty CMS blob, or the `CS_ADHOC` flag).
    public var isAdHoc: Bool { !hasCMSSignature || (codeDirectory?.isAdHoc ?? false) }

    /// The CodeDirectory of `hashType`, primary or alternate.
    public func codeDirectory(hashType: HashType) -> CodeDirectory? {
        codeDirectories.first { $0.hashType == hashType }
    }

    /// The exact bytes of the blob in `slot`, as special slots hash them.
    public func blob(inSlot slot: UInt32) -> [UInt8]? {
        superBlob.blob(ofType: slot)
    }

    /// The DER entitlements decoded, or nil when there are none.
    public func derEntitlements() throws(CodeSignatureError) -> DEREntitlements? {
        try entitlementsDER.map { bytes throws(CodeSignatureError) in try DEREntitlements(derEncoded: bytes) }
    }

    /// Parses a SuperBlob from `bytes`, which may run past its `length` (signers pad
    /// `LC_CODE_SIGNATURE`'s range).
    public init(bytes: [UInt8]) throws(CodeSignatureError) {
        let superBlob = try SuperBlob(bytes: bytes, magic: BlobMagic.embeddedSignature, what: "SuperBlob")
        func expect(_ entry: SuperBlob.Entry, _ magic: UInt32, _ what: String) throws(CodeSignatureError) {
            guard entry.magic == magic else {
                throw CodeSignatureError(
                    .blob,
                    "slot 0x\(hex(entry.type)) should hold the \(what) (magic 0x\(hex(magic))) but has magic 0x\(hex(entry.magic))")
            }
        }
        var directories: [(slot: UInt32, directory: CodeDirectory)] = []
        var requirements: RequirementSet?
        var entitlements: EntitlementsBlob?
        var entitlementsDER: [UInt8]?
        var cmsSignature: [UInt8]?
        for entry in superBlob.entries {
            do {
                switch entry.type {
                case Slot.codeDirectory, Slot.alternateCodeDirectories:
                    try expect(entry, BlobMagic.codeDirectory, "CodeDirectory")
                    directories.append((entry.type, try CodeDirectory(bytes: entry.blob)))
                case Slot.requirements:
                    try expect(entry, BlobMagic.requirementSet, "requirement set")
                    requirements = try RequirementSet(bytes: entry.blob)
                case Slot.entitlements:
                    try expect(entry, BlobMagic.entitlements, "entitlements")
                    entitlements = try EntitlementsBlob(blob: entry.blob)
                case Slot.derEntitlements:
                    try expect(entry, BlobMagic.derEntitlements, "DER entitlements")
                    entitlementsDER = Array(entry.blob.dropFirst(8))
                case Slot.launchConstraints:
                    try expect(entry, BlobMagic.launchConstraint, "launch constraint")
                case Slot.signature:
                    try expect(entry, BlobMagic.blobWrapper, "CMS signature wrapper")
                    cmsSignature = try BlobWrapper(bytes: entry.blob).payload
                default:
                    break
                }
            } catch {
                throw error.prefixed("slot 0x\(hex(entry.type))")
            }
        }
        // A SuperBlob without a CodeDirectory signs nothing: it is not a signature (never "ad hoc").
        guard !directories.isEmpty else {
            throw CodeSignatureError(.blob, "the embedded signature holds no CodeDirectory")
        }
        guard directories.contains(where: { $0.slot == Slot.codeDirectory }) else {
            throw CodeSignatureError(.blob, "the embedded signature has alternate CodeDirectories but none in slot 0")
        }
        directories.sort { $0.slot < $1.slot }
        self.superBlob = superBlob
        codeDirectories = directories.map(\.directory)
        codeDirectorySlots = directories.map(\.slot)
        self.requirements = requirements
        self.entitlements = entitlements
        self.entitlementsDER = entitlementsDER
        self.cmsSignature = cmsSignature
    }

    /// Assembles a signature from its parts, blobs in slot order as codesign writes them: the
    /// first directory in slot 0, the others in 0x1000…, then requirements, entitlements, DER
    /// entitlements, any `additionalBlobs`, and the CMS wrapper (give `[]` for an ad-hoc one).
    public init(
        codeDirectories: [CodeDirectory], requirements: RequirementSet?, entitlements: EntitlementsBlob?,
        derEntitlements: DEREntitlements?, cmsSignature: [UInt8]?, additionalBlobs: [SuperBlob.Entry] = []
    ) throws(CodeSignatureError) {
        guard codeDirectories.count <= 1 + Slot.alternateCodeDirectories.count else {
            throw CodeSignatureError(.blob, "a signature holds at most \(1 + Slot.alternateCodeDirectories.count) CodeDirectories")
        }
        var entries: [SuperBlob.Entry] = []
        for (index, directory) in codeDirectories.enumerated() {
            entries.append(SuperBlob.Entry(type: index == 0 ? Slot.codeDirectory : 0x1000 + UInt32(index - 1), blob: directory.bytes))
        }
        if let requirements { entries.append(SuperBlob.Entry(type: Slot.requirements, blob: try requirements.serialized())) }
        if let entitlements { entries.append(SuperBlob.Entry(type: Slot.entitlements, blob: try entitlements.blob())) }
        if let derEntitlements { entries.append(SuperBlob.Entry(type: Slot.derEntitlements, blob: try derEntitlements.blob())) }
        entries += additionalBlobs
        if let cmsSignature {
            entries.append(SuperBlob.Entry(type: Slot.signature, blob: try BlobWrapper(payload: cmsSignature).serialized()))
        }
        entries.sort { $0.type < $1.type }
        try self.init(bytes: SuperBlob(magic: BlobMagic.embeddedSignature, entries: entries).serialized())
    }

    /// The SuperBlob: header, index, then each blob in index order with no padding between
    /// blobs. Equal to the bytes read when they were laid out that way (codesign does).
    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        try superBlob.serialized()
    }
}
