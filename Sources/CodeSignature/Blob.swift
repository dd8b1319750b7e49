import FormatSupport

/// The magic numbers that open each blob of a code signature. Every blob starts with a big-endian
/// `{magic, length}` pair, `length` counting those 8 bytes.
public enum BlobMagic {
    /// One requirement (`0xFADE0C00`), inside a requirement set.
    public static let requirement: UInt32 = 0xFADE_0C00
    /// A requirement set (`0xFADE0C01`), in slot 2.
    public static let requirementSet: UInt32 = 0xFADE_0C01
    public static let codeDirectory: UInt32 = 0xFADE_0C02
    /// The embedded signature SuperBlob (`0xFADE0CC0`) that `LC_CODE_SIGNATURE` points to.
    public static let embeddedSignature: UInt32 = 0xFADE_0CC0
    /// A detached signature SuperBlob (`0xFADE0CC1`).
    public static let detachedSignature: UInt32 = 0xFADE_0CC1
    /// A wrapper around opaque bytes (`0xFADE0B01`): the CMS signature in slot 0x10000.
    public static let blobWrapper: UInt32 = 0xFADE_0B01
    /// XML entitlements (`0xFADE7171`), slot 5.
    public static let entitlements: UInt32 = 0xFADE_7171
    /// DER entitlements (`0xFADE7172`), slot 7.
    public static let derEntitlements: UInt32 = 0xFADE_7172
    /// A launch constraint (`0xFADE8181`), slots 8 to 11.
    public static let launchConstraint: UInt32 = 0xFADE_8181
}

/// Appends big-endian fields; the signature format is big-endian whatever the Mach-O's order.
struct BigEndianWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func append(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }

    /// Zero bytes up to the next multiple of `alignment`.
    mutating func pad(toMultipleOf alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    var count: Int { bytes.count }
}

/// Blob framing shared by every blob type.
enum BlobFraming {
    /// Checks that `bytes` is exactly one blob with `magic`: at least the 8-byte header, and a
    /// `length` field equal to the byte count.
    static func check(_ bytes: [UInt8], magic: UInt32, what: String, reason: CodeSignatureError.Reason)
        throws(CodeSignatureError)
    {
        let reader = ByteReader(bytes)
        guard bytes.count >= 8, let found = try? reader.uint32(at: 0, .big), let length = try? reader.uint32(at: 4, .big)
        else {
            throw CodeSignatureError(reason, "the \(what) is \(bytes.count) bytes, shorter than a blob header")
        }
        guard found == magic else {
            throw CodeSignatureError(reason, "the \(what) magic is 0x\(hex(found)), not 0x\(hex(magic))")
        }
        guard Int(length) == bytes.count else {
            throw CodeSignatureError(reason, "the \(what) says it is \(length) bytes long but is \(bytes.count)")
        }
    }

    /// `{magic, length}` followed by `payload`; throws when the blob would not fit its 32-bit length.
    static func wrap(_ payload: some Collection<UInt8>, magic: UInt32, what: String, reason: CodeSignatureError.Reason)
        throws(CodeSignatureError) -> [UInt8]
    {
        guard payload.count <= Int(UInt32.max) - 8 else {
            throw CodeSignatureError(reason, "the \(what) (\(payload.count) bytes) is too large for a blob")
        }
        var writer = BigEndianWriter(capacity: 8 + payload.count)
        writer.u32(magic)
        writer.u32(UInt32(8 + payload.count))
        writer.append(payload)
        return writer.bytes
    }
}

/// An opaque blob wrapper (`0xFADE0B01`): the CMS signature in slot 0x10000, empty for ad-hoc
/// signatures. The CMS itself is read by the `CMS` module.
public struct BlobWrapper: Sendable, Equatable {
    /// The wrapped bytes (a DER CMS `SignedData` for slot 0x10000).
    public let payload: [UInt8]

    public init(payload: [UInt8]) {
        self.payload = payload
    }

    public init(bytes: [UInt8]) throws(CodeSignatureError) {
        try BlobFraming.check(bytes, magic: BlobMagic.blobWrapper, what: "signature wrapper", reason: .blob)
        payload = Array(bytes.dropFirst(8))
    }

    public func serialized() throws(CodeSignatureError) -> [UInt8] {
        try BlobFraming.wrap(payload, magic: BlobMagic.blobWrapper, what: "signature wrapper", reason: .blob)
    }
}
