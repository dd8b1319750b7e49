import FormatSupport

/// An indexed container of blobs: `{magic, length, count, {type, offset}[count]}` followed by
/// the blobs. The embedded signature (`0xFADE0CC0`) and the requirement set (`0xFADE0C01`) share
/// this layout.
///
/// Reading checks every index entry: offsets inside the container and past the index, lengths
/// that fit, no type listed twice and no two blobs sharing bytes. Writing lays the blobs out as
/// Apple's `SuperBlob::Maker` does: one after the other in index order, right after the index,
/// with no padding between them (blobs need not be 4-byte aligned: the isign fixture's CMS blob
/// starts at offset 1301).
public struct SuperBlob: Sendable, Equatable {
    /// One index entry and the whole blob it points to (magic and length included).
    public struct Entry: Sendable, Equatable {
        /// The slot (embedded signature) or requirement type (requirement set).
        public var type: UInt32
        public var blob: [UInt8]

        public init(type: UInt32, blob: [UInt8]) {
            self.type = type
            self.blob = blob
        }

        /// The blob's magic (0 for a blob built by hand shorter than 4 bytes).
        public var magic: UInt32 {
            blob.count >= 4 ? blob.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } : 0
        }
    }

    /// Where an entry's blob lay in the bytes the SuperBlob was read from.
    public struct Placement: Sendable, Equatable {
        public let type: UInt32
        public let magic: UInt32
        /// From the start of the SuperBlob.
        public let offset: Int
        /// The blob's `length`, its 8-byte header included.
        public let length: Int
    }

    /// More entries than any signer writes (about a dozen); bounds the index before it is read.
    public static let maximumCount = 256

    public var magic: UInt32
    /// Entries in index order.
    public var entries: [Entry]
    /// Where each entry lay when read (empty for one built in code).
    public private(set) var placements: [Placement] = []
    /// The `length` read (0 for one built in code).
    public private(set) var length = 0

    public init(magic: UInt32, entries: [Entry]) {
        self.magic = magic
        self.entries = entries
    }

    public static func == (lhs: SuperBlob, rhs: SuperBlob) -> Bool {
        lhs.magic == rhs.magic && lhs.entries == rhs.entries
    }

    /// The blob of the first entry of `type`.
    public func blob(ofType type: UInt32) -> [UInt8]? {
        entries.first { $0.type == type }?.blob
    }

    /// Reads a SuperBlob from the start of `bytes`, which may run past its `length` (signers pad
    /// `LC_CODE_SIGNATURE`'s range). `what` names the container in messages.
    public init(bytes: [UInt8], magic: UInt32, what: String, reason: CodeSignatureError.Reason = .blob)
        throws(CodeSignatureError)
    {
        let reader = ByteReader(bytes)
        func field(_ offset: Int) throws(CodeSignatureError) -> UInt32 {
            do { return try reader.uint32(at: offset, .big) } catch {
                throw CodeSignatureError(reason, "the \(what) is cut off at offset \(offset)")
            }
        }
        guard bytes.count >= 12 else {
            throw CodeSignatureError(reason, "the \(what) is \(bytes.count) bytes, shorter than a SuperBlob header")
        }
        let found = try field(0)
        guard found == magic else {
            throw CodeSignatureError(reason, "the \(what) magic is 0x\(hex(found)), not 0x\(hex(magic))")
        }
        let length = Int(try field(4))
        guard length >= 12, length <= bytes.count else {
            throw CodeSignatureError(
                reason, "the \(what)'s length \(length) does not fit in its \(bytes.count) bytes")
        }
        let count = Int(try field(8))
        guard count <= Self.maximumCount, count <= (length - 12) / 8 else {
            throw CodeSignatureError(
                reason, "the \(what) lists \(count) blobs, more than its \(length) bytes can index")
        }
        let indexEnd = 12 + count * 8
        var placements: [Placement] = []
        placements.reserveCapacity(count)
        var seenTypes = Set<UInt32>()
        for index in 0..<count {
            let type = try field(12 + index * 8)
            let offset = Int(try field(16 + index * 8))
            guard seenTypes.insert(type).inserted else {
                throw CodeSignatureError(reason, "the \(what) lists type 0x\(hex(type)) twice")
            }
            guard offset >= indexEnd, offset <= length - 8 else {
                throw CodeSignatureError(
                    reason,
                    "blob \(index) (type 0x\(hex(type))) starts at offset \(offset), outside the \(what)'s \(indexEnd)..<\(length) data"
                )
            }
            let blobMagic = try field(offset)
            let blobLength = Int(try field(offset + 4))
            guard blobLength >= 8 else {
                throw CodeSignatureError(
                    reason, "blob \(index) (type 0x\(hex(type))) has length \(blobLength), shorter than its 8-byte header")
            }
            guard blobLength <= length - offset else {
                throw CodeSignatureError(
                    reason,
                    "blob \(index) (type 0x\(hex(type))) has length \(blobLength), which runs past the \(length)-byte \(what)"
                )
            }
            placements.append(Placement(type: type, magic: blobMagic, offset: offset, length: blobLength))
        }
        // Two blobs sharing bytes would let one edit change what two slots say.
        let byOffset = placements.sorted { $0.offset < $1.offset }
        for (first, second) in zip(byOffset, byOffset.dropFirst()) where first.offset + first.length > second.offset {
            throw CodeSignatureError(
                reason,
                "blobs of types 0x\(hex(first.type)) and 0x\(hex(second.type)) overlap at offset \(second.offset) of the \(what)"
            )
        }
        self.magic = magic
        entries = placements.map { Entry(type: $0.type, blob: Array(bytes[$0.offset..<($0.offset + $0.length)])) }
        self.placements = placements
        self.length = length
    }

    /// Whether the blobs lay as `serialized()` writes them: contiguous in index order right after
    /// the index. Only then do the bytes read and the bytes written agree.
    public var isCanonicalLayout: Bool {
        var offset = 12 + placements.count * 8
        for placement in placements {
            guard placement.offset == offset else { return false }
            offset += placement.length
        }
        return offset == length
    }

    /// The SuperBlob bytes: header, index, then each blob in index order with no padding.
    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        let total = entries.reduce(12 + entries.count * 8) { $0 + $1.blob.count }
        guard entries.count <= Self.maximumCount, total <= Int(UInt32.max) else {
            throw CodeSignatureError(
                .blob, "\(entries.count) blobs of \(total) bytes in all are too many for a SuperBlob")
        }
        var writer = BigEndianWriter(capacity: total)
        writer.u32(magic)
        writer.u32(UInt32(total))
        writer.u32(UInt32(entries.count))
        var offset = 12 + entries.count * 8
        for entry in entries {
            writer.u32(entry.type)
            writer.u32(UInt32(offset))
            offset += entry.blob.count
        }
        for entry in entries { writer.append(entry.blob) }
        return writer.bytes
    }
}
