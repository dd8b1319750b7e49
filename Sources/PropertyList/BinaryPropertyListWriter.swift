/// Writes `bplist00` as Core Foundation does (`__CFBinaryPlistWrite`): objects numbered in
/// pre-order with a dictionary's keys before its values, equal scalars stored once, integers and
/// counts in the smallest width (negatives in 8 bytes, values above `Int64.max` in 16),
/// strings as ASCII when they can be and UTF-16BE otherwise, reals as float64, and offset and
/// reference widths just large enough (the reference width addresses the object count, which
/// Core Foundation's reader checks).
enum BinaryPropertyListWriter {
    /// A flattened object: scalars keep their value, collections hold references.
    private enum FlatObject {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// Identity of a scalar for sharing: exact strings, reals and dates by bit pattern, so
    /// `0.0` and `-0.0`, or canonically equivalent strings, are never merged.
    private enum ScalarKey: Hashable {
        case string(ExactString)
        case integer(PropertyListInteger)
        case real(UInt64)
        case date(UInt64)
        case data([UInt8])
        case bool(Bool)
        case uid(UInt64)
    }

    private struct Flattener {
        var objects: [FlatObject] = []
        var shared: [ScalarKey: Int] = [:]
        let maximumDepth: Int

        mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
            guard depth <= maximumDepth else {
                throw PropertyListError(.tooDeep, "the value is nested deeper than the limit of \(maximumDepth)")
            }
            let key: ScalarKey
            switch value {
            case .array(let elements):
                let ref = objects.count
                objects.append(.array([]))
                var refs: [Int] = []
                refs.reserveCapacity(elements.count)
                for element in elements {
                    refs.append(try add(element, depth: depth + 1))
                }
                objects[ref] = .array(refs)
                return ref
            case .dictionary(let dictionary):
                let ref = objects.count
                objects.append(.dictionary(keys: [], values: []))
                var keyRefs: [Int] = []
                var valueRefs: [Int] = []
                keyRefs.reserveCapacity(dictionary.count)
                valueRefs.reserveCapacity(dictionary.count)
                for key in dictionary.keys {
                    keyRefs.append(try add(.string(key), depth: depth + 1))
                }
                for element in dictionary.values {
                    valueRefs.append(try add(element, depth: depth + 1))
                }
                objects[ref] = .dictionary(keys: keyRefs, values: valueRefs)
                return ref
            case .string(let string): key = .string(ExactString(string))
            case .integer(let integer): key = .integer(integer)
            case .real(let real): key = .real(real.bitPattern)
            case .date(let date): key = .date(date.secondsSinceReferenceDate.bitPattern)
            case .data(let bytes): key = .data(bytes)
            case .bool(let flag): key = .bool(flag)
            case .uid(let uid): key = .uid(uid)
            }
            if let existing = shared[key] { return existing }
            let ref = objects.count
            objects.append(.scalar(value))
            shared[key] = ref
            return ref
        }
    }

    static func encode(_ root: PropertyListValue, maximumDepth: Int = PropertyListLimits.default.maximumDepth)
        throws(PropertyListError) -> [UInt8]
    {
        var flattener = Flattener(maximumDepth: maximumDepth)
        _ = try flattener.add(root, depth: 1)
        let objects = flattener.objects
        let refSize = byteCount(UInt64(objects.count))

        var output: [UInt8] = BinaryPropertyList.header
        output.reserveCapacity(objects.count * 8 + 64)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            switch object {
            case .scalar(let value):
                appendScalar(value, to: &output)
            case .array(let refs):
                appendMarker(0xA0, count: refs.count, to: &output)
                for ref in refs { appendBigEndian(UInt64(ref), width: refSize, to: &output) }
            case .dictionary(let keys, let values):
                appendMarker(0xD0, count: keys.count, to: &output)
                for ref in keys { appendBigEndian(UInt64(ref), width: refSize, to: &output) }
                for ref in values { appendBigEndian(UInt64(ref), width: refSize, to: &output) }
            }
        }
        let tableOffset = output.count
        let offsetSize = byteCount(UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), width: offsetSize, to: &output) }
        // Trailer: 5 unused bytes, sort version, offset size, reference size, object count,
        // top object, offset table offset.
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendBigEndian(UInt64(objects.count), width: 8, to: &output)
        appendBigEndian(0, width: 8, to: &output)
        appendBigEndian(UInt64(tableOffset), width: 8, to: &output)
        return output
    }

    private static func appendScalar(_ value: PropertyListValue, to output: inout [UInt8]) {
        switch value {
        case .bool(let flag):
            output.append(flag ? 0x09 : 0x08)
        case .integer(let integer):
            appendInteger(integer, to: &output)
        case .real(let real):
            output.append(0x23)
            appendBigEndian(real.bitPattern, width: 8, to: &output)
        case .date(let date):
            output.append(0x33)
            appendBigEndian(date.secondsSinceReferenceDate.bitPattern, width: 8, to: &output)
        case .data(let bytes):
            appendMarker(0x40, count: bytes.count, to: &output)
            output.append(contentsOf: bytes)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: string.utf8.count, to: &output)
                output.append(contentsOf: string.utf8)
            } else {
                let units = Array(string.utf16)
                appendMarker(0x60, count: units.count, to: &output)
                for unit in units {
                    output.append(UInt8(truncatingIfNeeded: unit >> 8))
                    output.append(UInt8(truncatingIfNeeded: unit))
                }
            }
        case .uid(let uid):
            let width = byteCount(uid)
            output.append(0x80 | UInt8(width - 1))
            appendBigEndian(uid, width: width, to: &output)
        case .array, .dictionary:
            break  // flattened by the caller
        }
    }

    /// Smallest unsigned width for non-negative values up to `Int64.max`, 8 bytes (signed) for
    /// other 64-bit values, 16 bytes beyond.
    private static func appendInteger(_ integer: PropertyListInteger, to output: inout [UInt8]) {
        if integer.high == 0, integer.low <= UInt64(Int64.max) {
            let width = byteCount(integer.low)
            output.append(0x10 | UInt8(width.trailingZeroBitCount))
            appendBigEndian(integer.low, width: width, to: &output)
        } else if let signed = integer.int64 {
            output.append(0x13)
            appendBigEndian(UInt64(bitPattern: signed), width: 8, to: &output)
        } else {
            output.append(0x14)
            appendBigEndian(UInt64(bitPattern: integer.high), width: 8, to: &output)
            appendBigEndian(integer.low, width: 8, to: &output)
        }
    }

    /// A type marker with its count in the low nibble, or `0xF` and an integer object for 15+.
    private static func appendMarker(_ type: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 15 {
            output.append(type | UInt8(count))
        } else {
            output.append(type | 0x0F)
            appendInteger(PropertyListInteger(count), to: &output)
        }
    }

    /// 1, 2, 4 or 8: the fewest bytes that hold `value`.
    private static func byteCount(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to output: inout [UInt8]) {
        var shift = (width - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
