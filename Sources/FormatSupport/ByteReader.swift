/// Byte order of a multi-byte integer.
public enum Endianness: Sendable {
    case big
    case little
}

/// Reading past the end of a buffer. Parsers catch it and rethrow with their own code and context.
public struct OutOfBoundsError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        case truncated = "TRUNCATED_DATA"
    }

    /// Absolute offset of the attempted read.
    public let offset: Int
    /// Bytes requested.
    public let length: Int
    /// Bytes available in the buffer.
    public let size: Int

    public init(offset: Int, length: Int, size: Int) {
        self.offset = offset
        self.length = length
        self.size = size
    }

    public var reason: Reason { .truncated }
    public var description: String {
        "data is truncated: needed \(length) byte(s) at offset \(offset), but only \(size) byte(s) exist"
    }
}

/// A bounds-checked cursor over bytes. Every read either returns a value or throws
/// `OutOfBoundsError`; nothing traps on input-derived offsets or lengths.
///
/// Offsets are absolute within `bytes`; a reader may be restricted to a window with
/// `window(offset:length:)`, which shares storage rather than copying.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    /// First readable offset (inclusive).
    public let lowerBound: Int
    /// End of the readable window (exclusive).
    public let upperBound: Int
    /// The next offset `read…` methods consume from.
    public private(set) var position: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.lowerBound = 0
        self.upperBound = bytes.count
        self.position = 0
    }

    private init(bytes: [UInt8], lowerBound: Int, upperBound: Int) {
        self.bytes = bytes
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.position = lowerBound
    }

    /// Bytes between `position` and the end of the window.
    public var remaining: Int { upperBound - position }
    public var isAtEnd: Bool { position >= upperBound }
    /// Size of the window.
    public var count: Int { upperBound - lowerBound }

    // MARK: Checked ranges

    /// Throws unless `[offset, offset + length)` lies inside the window. Overflow-safe.
    @inlinable
    public func check(offset: Int, length: Int) throws(OutOfBoundsError) {
        guard offset >= lowerBound, length >= 0, offset <= upperBound, length <= upperBound - offset else {
            throw OutOfBoundsError(offset: offset, length: length, size: upperBound)
        }
    }

    /// A reader restricted to `[offset, offset + length)` of this one, positioned at its start.
    public func window(offset: Int, length: Int) throws(OutOfBoundsError) -> ByteReader {
        try check(offset: offset, length: length)
        return ByteReader(bytes: bytes, lowerBound: offset, upperBound: offset + length)
    }

    // MARK: Moving

    public mutating func seek(to offset: Int) throws(OutOfBoundsError) {
        try check(offset: offset, length: 0)
        position = offset
    }

    public mutating func skip(_ count: Int) throws(OutOfBoundsError) {
        try check(offset: position, length: count)
        position += count
    }

    // MARK: Reading at the cursor

    public mutating func readUInt8() throws(OutOfBoundsError) -> UInt8 {
        let value = try uint8(at: position)
        position += 1
        return value
    }

    public mutating func readUInt16(_ order: Endianness) throws(OutOfBoundsError) -> UInt16 {
        let value = try uint16(at: position, order)
        position += 2
        return value
    }

    public mutating func readUInt32(_ order: Endianness) throws(OutOfBoundsError) -> UInt32 {
        let value = try uint32(at: position, order)
        position += 4
        return value
    }

    public mutating func readUInt64(_ order: Endianness) throws(OutOfBoundsError) -> UInt64 {
        let value = try uint64(at: position, order)
        position += 8
        return value
    }

    /// Reads an unsigned big- or little-endian integer of 1 to 8 bytes.
    public mutating func readUInt(byteCount: Int, _ order: Endianness) throws(OutOfBoundsError) -> UInt64 {
        let value = try uint(at: position, byteCount: byteCount, order)
        position += byteCount
        return value
    }

    public mutating func readBytes(_ count: Int) throws(OutOfBoundsError) -> ArraySlice<UInt8> {
        let value = try bytes(at: position, count: count)
        position += count
        return value
    }

    // MARK: Reading at an absolute offset (the cursor does not move)

    public func uint8(at offset: Int) throws(OutOfBoundsError) -> UInt8 {
        try check(offset: offset, length: 1)
        return bytes[offset]
    }

    public func uint16(at offset: Int, _ order: Endianness) throws(OutOfBoundsError) -> UInt16 {
        UInt16(truncatingIfNeeded: try uint(at: offset, byteCount: 2, order))
    }

    public func uint32(at offset: Int, _ order: Endianness) throws(OutOfBoundsError) -> UInt32 {
        UInt32(truncatingIfNeeded: try uint(at: offset, byteCount: 4, order))
    }

    public func uint64(at offset: Int, _ order: Endianness) throws(OutOfBoundsError) -> UInt64 {
        try uint(at: offset, byteCount: 8, order)
    }

    public func uint(at offset: Int, byteCount: Int, _ order: Endianness) throws(OutOfBoundsError) -> UInt64 {
        guard (1...8).contains(byteCount) else {
            throw OutOfBoundsError(offset: offset, length: byteCount, size: upperBound)
        }
        try check(offset: offset, length: byteCount)
        var value: UInt64 = 0
        switch order {
        case .big:
            for index in offset..<(offset + byteCount) {
                value = (value << 8) | UInt64(bytes[index])
            }
        case .little:
            for index in stride(from: offset + byteCount - 1, through: offset, by: -1) {
                value = (value << 8) | UInt64(bytes[index])
            }
        }
        return value
    }

    public func bytes(at offset: Int, count: Int) throws(OutOfBoundsError) -> ArraySlice<UInt8> {
        try check(offset: offset, length: count)
        return bytes[offset..<(offset + count)]
    }

    /// The bytes of a fixed-size, NUL-padded field (as in Mach-O segment names or CSI rendition
    /// names), cut at the first NUL.
    public func nulTerminatedField(at offset: Int, size: Int) throws(OutOfBoundsError) -> ArraySlice<UInt8> {
        let field = try bytes(at: offset, count: size)
        if let end = field.firstIndex(of: 0) {
            return field[field.startIndex..<end]
        }
        return field
    }

    /// A NUL-terminated string starting at `offset` that must end inside the window and within
    /// `maxLength` bytes.
    public func cString(at offset: Int, maxLength: Int) throws(OutOfBoundsError) -> ArraySlice<UInt8> {
        try check(offset: offset, length: 0)
        let limit = offset + min(maxLength, upperBound - offset)
        var end = offset
        while end < limit {
            if bytes[end] == 0 {
                return bytes[offset..<end]
            }
            end += 1
        }
        throw OutOfBoundsError(offset: offset, length: maxLength, size: upperBound)
    }
}
