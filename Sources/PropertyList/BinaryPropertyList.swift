import FormatSupport

/// A binary property list (`bplist00`), as Core Foundation's `CFBinaryPList.c` defines it.
///
/// Layout: the 8-byte header `bplist00`; the objects; an offset table giving each object's
/// absolute offset; and a 32-byte trailer locating the table. Arrays and dictionaries hold
/// references, which are indices into the offset table.
///
/// Everything is validated before use: the trailer against the file size, every offset against
/// the object area, every reference against the object count, every count against the bytes left,
/// and the object graph for cycles, depth, and shared-reference expansion.
public struct BinaryPropertyList: Sendable {
    /// The 32-byte trailer at the end of the file.
    public struct Trailer: Sendable, Equatable {
        /// Unused by readers; Core Foundation writes 0.
        public let sortVersion: UInt8
        /// Bytes per entry of the offset table (1...8).
        public let offsetIntSize: Int
        /// Bytes per object reference inside arrays and dictionaries (1...8).
        public let objectRefSize: Int
        /// Number of objects, and so of offset-table entries.
        public let objectCount: Int
        /// Reference of the root object.
        public let topObject: Int
        /// Absolute offset of the offset table.
        public let offsetTableOffset: Int
    }

    public static let header: [UInt8] = Array("bplist00".utf8)
    static let trailerSize = 32

    public let root: PropertyListValue
    public let trailer: Trailer

    public init(bytes: [UInt8], limits: PropertyListLimits = .default) throws(PropertyListError) {
        guard bytes.count <= limits.maximumSize else {
            throw PropertyListError(
                .tooLarge, "the file is \(bytes.count) bytes, above the limit of \(limits.maximumSize)")
        }
        guard bytes.starts(with: Self.header) else {
            throw PropertyListError(.unsupportedFormat, offset: 0, "the file does not start with bplist00")
        }
        let trailer = try Self.readTrailer(bytes)
        var parser = try BinaryPropertyListParser(bytes: bytes, trailer: trailer, limits: limits)
        self.root = try parser.parseRoot()
        self.trailer = trailer
    }

    /// Writes `root` as `bplist00`; see `BinaryPropertyListWriter`.
    public static func encode(_ root: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        try BinaryPropertyListWriter.encode(root)
    }

    /// Reads and checks the trailer: sizes in 1...8, at least one object, the root and the table
    /// inside the file, and widths large enough to address the table and every object (the
    /// checks of `__CFBinaryPlistGetTopLevelInfo`).
    static func readTrailer(_ bytes: [UInt8]) throws(PropertyListError) -> Trailer {
        // Header, at least one one-byte object, a one-byte table entry, the trailer.
        guard bytes.count >= header.count + 2 + trailerSize else {
            throw PropertyListError(
                .binaryTrailer, offset: bytes.count,
                "the file is \(bytes.count) bytes, too short for a header, an object and the 32-byte trailer")
        }
        let start = bytes.count - trailerSize
        let reader = ByteReader(bytes)
        let fields: (UInt8, UInt8, UInt8, UInt64, UInt64, UInt64)
        do {
            fields = (
                try reader.uint8(at: start + 5), try reader.uint8(at: start + 6), try reader.uint8(at: start + 7),
                try reader.uint64(at: start + 8, .big), try reader.uint64(at: start + 16, .big),
                try reader.uint64(at: start + 24, .big)
            )
        } catch {
            throw PropertyListError(.binaryTrailer, offset: start, "the trailer is truncated")
        }
        let (sortVersion, offsetIntSize, objectRefSize, objectCount, topObject, tableOffset) = fields
        func fail(_ message: String) -> PropertyListError {
            PropertyListError(.binaryTrailer, offset: start, message)
        }
        guard (1...8).contains(offsetIntSize) else {
            throw fail("offset size \(offsetIntSize) is not between 1 and 8")
        }
        guard (1...8).contains(objectRefSize) else {
            throw fail("object reference size \(objectRefSize) is not between 1 and 8")
        }
        guard objectCount >= 1 else { throw fail("the object count is zero") }
        guard topObject < objectCount else {
            throw fail("the root object \(topObject) is not below the object count \(objectCount)")
        }
        guard tableOffset >= UInt64(header.count + 1), tableOffset <= UInt64(start) else {
            throw fail("the offset table offset \(tableOffset) is outside the object area [9, \(start)]")
        }
        // The table must fit between its offset and the trailer; this also bounds the object
        // count by the file size, so nothing sized by it is allocated before this check.
        let (tableSize, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetIntSize))
        guard !overflow, tableSize <= UInt64(start) - tableOffset else {
            throw fail("an offset table of \(objectCount) entries of \(offsetIntSize) bytes does not fit before the trailer")
        }
        guard offsetIntSize >= 8 || tableOffset < (1 as UInt64) << (8 * UInt64(offsetIntSize)) else {
            throw fail("offsets of \(offsetIntSize) bytes cannot address the offset table at \(tableOffset)")
        }
        guard objectRefSize >= 8 || objectCount <= (1 as UInt64) << (8 * UInt64(objectRefSize)) else {
            throw fail("references of \(objectRefSize) bytes cannot address \(objectCount) objects")
        }
        return Trailer(
            sortVersion: sortVersion, offsetIntSize: Int(offsetIntSize), objectRefSize: Int(objectRefSize),
            objectCount: Int(objectCount), topObject: Int(topObject), offsetTableOffset: Int(tableOffset))
    }
}

/// Object markers: the high nibble is the type, the low nibble a size or count.
private enum Marker {
    static let boolFalse: UInt8 = 0x08
    static let boolTrue: UInt8 = 0x09
    static let integer: UInt8 = 0x1
    static let real: UInt8 = 0x2
    static let date: UInt8 = 0x33
    static let data: UInt8 = 0x4
    static let asciiString: UInt8 = 0x5
    static let utf16String: UInt8 = 0x6
    static let uid: UInt8 = 0x8
    static let array: UInt8 = 0xA
    static let dictionary: UInt8 = 0xD
}

/// One parse of one file: memoizes each object by reference so shared objects are read once,
/// and tracks which objects are on the current path to find cycles.
struct BinaryPropertyListParser {
    private let reader: ByteReader
    private let trailer: BinaryPropertyList.Trailer
    private let maximumDepth: Int
    private let maximumExpansion: Int
    private var clock: WorkClock
    private let offsets: [Int]
    private var values: [PropertyListValue?]
    /// Per object: 0 unvisited, 1 on the current path, 2 done.
    private var states: [UInt8]
    /// Per finished object: objects in its expanded subtree, and its height.
    private var sizes: [Int]
    private var heights: [Int32]
    private let refusesDuplicateKeys: Bool

    init(bytes: [UInt8], trailer: BinaryPropertyList.Trailer, limits: PropertyListLimits) throws(PropertyListError) {
        self.trailer = trailer
        self.maximumDepth = max(1, limits.maximumDepth)
        self.clock = limits.clock
        self.refusesDuplicateKeys = limits.refusesDuplicateKeys
        let (scaled, overflow) = bytes.count.multipliedReportingOverflow(by: max(1, limits.expansionFactor))
        self.maximumExpansion = overflow ? Int.max : scaled
        // Objects live between the header and the offset table; reads never leave that window.
        do {
            self.reader = try ByteReader(bytes).window(offset: 0, length: trailer.offsetTableOffset)
        } catch {
            throw PropertyListError(.binaryTrailer, offset: trailer.offsetTableOffset, "the offset table is outside the file")
        }
        // Read and check every offset up front: the trailer check bounded the count by the size.
        let table = ByteReader(bytes)
        var offsets: [Int] = []
        offsets.reserveCapacity(trailer.objectCount)
        let header = BinaryPropertyList.header.count
        for index in 0..<trailer.objectCount {
            let position = trailer.offsetTableOffset + index * trailer.offsetIntSize
            let offset: UInt64
            do {
                offset = try table.uint(at: position, byteCount: trailer.offsetIntSize, .big)
            } catch {
                throw PropertyListError(.binaryTrailer, offset: position, "the offset table is truncated")
            }
            guard offset >= UInt64(header), offset < UInt64(trailer.offsetTableOffset) else {
                throw PropertyListError(
                    .binaryOffset, offset: position,
                    "object \(index) has offset \(offset), outside the object area [\(header), \(trailer.offsetTableOffset))")
            }
            offsets.append(Int(offset))
        }
        self.offsets = offsets
        self.values = Array(repeating: nil, count: trailer.objectCount)
        self.states = Array(repeating: 0, count: trailer.objectCount)
        self.sizes = Array(repeating: 0, count: trailer.objectCount)
        self.heights = Array(repeating: 0, count: trailer.objectCount)
    }

    mutating func parseRoot() throws(PropertyListError) -> PropertyListValue {
        let (value, size, _) = try object(trailer.topObject, depth: 1)
        guard size <= maximumExpansion else {
            throw expansionError()
        }
        return value
    }

    // MARK: Objects

    /// The object with reference `ref` at nesting `depth`, its expanded size and its height.
    private mutating func object(_ ref: Int, depth: Int) throws(PropertyListError) -> (PropertyListValue, Int, Int) {
        if clock.isExpired(after: 1) { throw PropertyListError(.timeLimit, clock.timeLimitMessage) }
        switch states[ref] {
        case 2:
            // Shared object: its subtree was checked when first read, but at this depth it may
            // reach further.
            guard let value = values[ref] else { break }
            let height = Int(heights[ref])
            guard depth + height - 1 <= maximumDepth else { throw depthError(ref) }
            return (value, sizes[ref], height)
        case 1:
            throw PropertyListError(
                .cycle, offset: offsets[ref], "object \(ref) contains itself (a reference cycle)")
        default:
            break
        }
        guard depth <= maximumDepth else { throw depthError(ref) }
        states[ref] = 1
        let (value, size, height) = try parseObject(ref, depth: depth)
        states[ref] = 2
        values[ref] = value
        sizes[ref] = size
        heights[ref] = Int32(clamping: height)
        return (value, size, height)
    }

    private mutating func parseObject(_ ref: Int, depth: Int) throws(PropertyListError) -> (PropertyListValue, Int, Int) {
        let offset = offsets[ref]
        let marker = try byte(at: offset, ref)
        let type = marker >> 4
        let low = marker & 0x0F
        switch type {
        case 0x0:
            switch marker {
            case Marker.boolFalse: return (.bool(false), 1, 1)
            case Marker.boolTrue: return (.bool(true), 1, 1)
            default:
                throw objectError(ref, "marker 0x\(hex(marker)) (null or fill) is not a property-list object")
            }
        case Marker.integer:
            guard low <= 4 else { throw objectError(ref, "integer marker 0x\(hex(marker)) has no valid width") }
            return (.integer(try integer(at: offset + 1, width: 1 << Int(low), ref)), 1, 1)
        case Marker.real:
            switch low {
            case 2:
                let bits = try unsigned(at: offset + 1, width: 4, ref)
                return (.real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))), 1, 1)
            case 3:
                return (.real(Double(bitPattern: try unsigned(at: offset + 1, width: 8, ref))), 1, 1)
            default:
                throw objectError(ref, "real marker 0x\(hex(marker)) has no valid width")
            }
        case 0x3:
            guard marker == Marker.date else { throw objectError(ref, "date marker 0x\(hex(marker)) is not 0x33") }
            let bits = try unsigned(at: offset + 1, width: 8, ref)
            return (.date(PropertyListDate(secondsSinceReferenceDate: Double(bitPattern: bits))), 1, 1)
        case Marker.data:
            let (count, start) = try self.count(ref, elementSize: 1)
            return (.data(Array(try slice(at: start, count: count, ref))), 1, 1)
        case Marker.asciiString:
            let (count, start) = try self.count(ref, elementSize: 1)
            let bytes = try slice(at: start, count: count, ref)
            guard bytes.allSatisfy({ $0 < 0x80 }) else {
                throw objectError(ref, "an ASCII string holds a byte above 0x7F")
            }
            return (.string(String(decoding: bytes, as: UTF8.self)), 1, 1)
        case Marker.utf16String:
            let (count, start) = try self.count(ref, elementSize: 2)
            return (.string(try utf16String(at: start, units: count, ref)), 1, 1)
        case Marker.uid:
            let width = Int(low) + 1
            guard width <= 8 else { throw objectError(ref, "a UID of \(width) bytes is wider than 64 bits") }
            return (.uid(try unsigned(at: offset + 1, width: width, ref)), 1, 1)
        case Marker.array:
            let (count, start) = try self.count(ref, elementSize: trailer.objectRefSize)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(count)
            var size = 1
            var height = 0
            for index in 0..<count {
                let child = try reference(at: start + index * trailer.objectRefSize, ref)
                let (value, childSize, childHeight) = try object(child, depth: depth + 1)
                elements.append(value)
                size = try grow(size, by: childSize, ref)
                height = max(height, childHeight)
            }
            return (.array(elements), size, height + 1)
        case Marker.dictionary:
            let (count, start) = try self.count(ref, elementSize: 2 * trailer.objectRefSize)
            var keys: [String] = []
            var values: [PropertyListValue] = []
            keys.reserveCapacity(count)
            values.reserveCapacity(count)
            var size = 1
            var height = 0
            let valuesStart = start + count * trailer.objectRefSize
            for index in 0..<count {
                let keyRef = try reference(at: start + index * trailer.objectRefSize, ref)
                let (key, _, _) = try object(keyRef, depth: depth + 1)
                guard case .string(let keyString) = key else {
                    throw objectError(ref, "dictionary key \(index) is a \(key.typeName), not a string")
                }
                let valueRef = try reference(at: valuesStart + index * trailer.objectRefSize, ref)
                let (value, childSize, childHeight) = try object(valueRef, depth: depth + 1)
                keys.append(keyString)
                values.append(value)
                size = try grow(size, by: childSize + 1, ref)
                height = max(height, childHeight)
            }
            let dictionary = PropertyListDictionary(keys: keys, values: values)
            if refusesDuplicateKeys && dictionary.count != keys.count {
                throw PropertyListError(
                    .duplicateKey, offset: offsets[ref],
                    "a dictionary names the key \"\(PropertyListDictionary.firstDuplicate(keys))\" twice")
            }
            return (.dictionary(dictionary), size, height + 1)
        default:
            throw objectError(ref, "marker 0x\(hex(marker)) is not a bplist00 property-list object")
        }
    }

    // MARK: Reading, bounds-checked

    /// The element count of the object at `ref` and where its content starts. Counts of 15 and
    /// more follow the marker as an integer object. The count must fit in the bytes left before
    /// the offset table, which bounds every allocation by the file size.
    private func count(_ ref: Int, elementSize: Int) throws(PropertyListError) -> (Int, Int) {
        let offset = offsets[ref]
        let marker = try byte(at: offset, ref)
        var count = UInt64(marker & 0x0F)
        var start = offset + 1
        if count == 0x0F {
            let countMarker = try byte(at: start, ref)
            guard countMarker >> 4 == Marker.integer, countMarker & 0x0F <= 3 else {
                throw objectError(ref, "the count after marker 0x\(hex(marker)) is not an integer of 1 to 8 bytes")
            }
            let width = 1 << Int(countMarker & 0x0F)
            count = try unsigned(at: start + 1, width: width, ref)
            start += 1 + width
        }
        let available = UInt64(max(0, trailer.offsetTableOffset - start))
        guard count <= available / UInt64(max(1, elementSize)) else {
            throw PropertyListError(
                .binaryCount, offset: offset,
                "object \(ref) claims \(count) elements of \(elementSize) byte(s), more than the \(available) bytes left before the offset table")
        }
        return (Int(count), start)
    }

    private func reference(at position: Int, _ ref: Int) throws(PropertyListError) -> Int {
        let value = try unsigned(at: position, width: trailer.objectRefSize, ref)
        guard value < UInt64(trailer.objectCount) else {
            throw PropertyListError(
                .binaryReference, offset: position,
                "object \(ref) refers to object \(value), but there are only \(trailer.objectCount)")
        }
        return Int(value)
    }

    private func byte(at position: Int, _ ref: Int) throws(PropertyListError) -> UInt8 {
        do {
            return try reader.uint8(at: position)
        } catch {
            throw overrun(ref)
        }
    }

    private func unsigned(at position: Int, width: Int, _ ref: Int) throws(PropertyListError) -> UInt64 {
        do {
            return try reader.uint(at: position, byteCount: width, .big)
        } catch {
            throw overrun(ref)
        }
    }

    private func slice(at position: Int, count: Int, _ ref: Int) throws(PropertyListError) -> ArraySlice<UInt8> {
        do {
            return try reader.bytes(at: position, count: count)
        } catch {
            throw overrun(ref)
        }
    }

    /// 1-, 2- and 4-byte integers are unsigned, 8-byte ones signed, 16-byte ones signed 128-bit.
    private func integer(at position: Int, width: Int, _ ref: Int) throws(PropertyListError) -> PropertyListInteger {
        switch width {
        case 16:
            let high = try unsigned(at: position, width: 8, ref)
            let low = try unsigned(at: position + 8, width: 8, ref)
            return PropertyListInteger(high: Int64(bitPattern: high), low: low)
        case 8:
            return PropertyListInteger(Int64(bitPattern: try unsigned(at: position, width: 8, ref)))
        default:
            return PropertyListInteger(try unsigned(at: position, width: width, ref))
        }
    }

    /// A big-endian UTF-16 string; unpaired surrogates are refused rather than replaced, so no
    /// two different keys can read as the same string.
    private func utf16String(at position: Int, units: Int, _ ref: Int) throws(PropertyListError) -> String {
        let bytes = try slice(at: position, count: units * 2, ref)
        var codeUnits: [UInt16] = []
        codeUnits.reserveCapacity(units)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            codeUnits.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
            index += 2
        }
        var position = 0
        while position < codeUnits.count {
            let unit = codeUnits[position]
            if UTF16.isLeadSurrogate(unit) {
                guard position + 1 < codeUnits.count, UTF16.isTrailSurrogate(codeUnits[position + 1]) else {
                    throw objectError(ref, "a UTF-16 string holds an unpaired surrogate")
                }
                position += 2
            } else {
                guard !UTF16.isTrailSurrogate(unit) else {
                    throw objectError(ref, "a UTF-16 string holds an unpaired surrogate")
                }
                position += 1
            }
        }
        return String(decoding: codeUnits, as: UTF16.self)
    }

    private func grow(_ size: Int, by childSize: Int, _ ref: Int) throws(PropertyListError) -> Int {
        let (total, overflow) = size.addingReportingOverflow(childSize)
        guard !overflow, total <= maximumExpansion else { throw expansionError() }
        return total
    }

    // MARK: Errors

    private func overrun(_ ref: Int) -> PropertyListError {
        objectError(ref, "the object runs past the end of the object area at \(trailer.offsetTableOffset)")
    }

    private func objectError(_ ref: Int, _ message: String) -> PropertyListError {
        PropertyListError(.binaryObject, offset: offsets[ref], "object \(ref): \(message)")
    }

    private func depthError(_ ref: Int) -> PropertyListError {
        PropertyListError(.tooDeep, offset: offsets[ref], "nesting is deeper than the limit of \(maximumDepth)")
    }

    private func expansionError() -> PropertyListError {
        PropertyListError(
            .tooManyObjects, offset: trailer.offsetTableOffset,
            "the \(trailer.objectCount) objects expand to more than \(maximumExpansion) through shared references")
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}
