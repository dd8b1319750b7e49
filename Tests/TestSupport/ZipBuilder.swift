import Foundation
import CZlib

/// A small zip writer for tests, independent of the toolkit's own writer, that can produce both
/// realistic archives (Unix modes, extended timestamps, data descriptors, NFD names) and hostile
/// ones (lying sizes, overlapping entries, odd methods), byte by byte.
public struct ZipBuilder {
    public enum Compression: Sendable {
        case stored
        case deflate
        /// A method number with the given bytes as its "compressed" data.
        case raw(method: UInt16, data: [UInt8])
    }

    public struct Entry {
        public var name: [UInt8]
        public var data: [UInt8]
        /// Full `st_mode`; 0 writes no Unix attributes.
        public var mode: UInt16
        public var compression: Compression
        public var flags: UInt16 = 0
        public var dataDescriptor = false
        public var descriptorSignature = true
        public var versionMadeBy: UInt16 = 0x031E
        public var dosTime: UInt16 = 0x4B5A
        public var dosDate: UInt16 = 0x5A8C
        public var centralExtra: [UInt8] = []
        public var localExtra: [UInt8] = []
        // Lies, for hostile archives.
        public var centralCRC: UInt32?
        public var centralCompressedSize: UInt32?
        public var centralUncompressedSize: UInt32?
        public var localCRC: UInt32?
        public var localUncompressedSize: UInt32?
        public var descriptorUncompressedSize: UInt32?
        public var localName: [UInt8]?
        /// Points the central record at another entry's local header (overlap).
        public var centralOffsetOverride: UInt32?

        public init(name: [UInt8], data: [UInt8], mode: UInt16, compression: Compression) {
            self.name = name
            self.data = data
            self.mode = mode
            self.compression = compression
        }
    }

    public var entries: [Entry] = []
    public var comment: [UInt8] = []
    /// Bytes before the first local header (a self-extractor stub).
    public var prefix: [UInt8] = []
    /// Bytes after the end record.
    public var suffix: [UInt8] = []
    /// Extra central-directory records appended verbatim (for crafted lists).
    public var extraCentralRecords: [[UInt8]] = []
    /// Declared entry count in the end record, when different from the real one.
    public var declaredEntryCount: UInt16?
    /// Write Zip64 end records (with all-ones classic fields) even when nothing needs them.
    public var zip64EndRecords = false

    public init() {}

    public mutating func file(_ name: String, _ data: [UInt8], mode: UInt16 = 0o100644, compression: Compression = .deflate) {
        entries.append(Entry(name: Array(name.utf8), data: data, mode: mode, compression: compression))
    }

    public mutating func file(_ name: String, _ text: String, mode: UInt16 = 0o100644) {
        file(name, Array(text.utf8), mode: mode)
    }

    public mutating func directory(_ name: String) {
        let path = name.hasSuffix("/") ? name : name + "/"
        entries.append(Entry(name: Array(path.utf8), data: [], mode: 0o040755, compression: .stored))
    }

    public mutating func symlink(_ name: String, to target: String) {
        entries.append(Entry(name: Array(name.utf8), data: Array(target.utf8), mode: 0o120755, compression: .stored))
    }

    /// The archive's bytes.
    public func bytes() -> [UInt8] {
        var out = prefix
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let crc = Self.crc32(entry.data)
            let (method, payload): (UInt16, [UInt8]) = switch entry.compression {
            case .stored: (0, entry.data)
            case .deflate: (8, Self.deflate(entry.data))
            case .raw(let method, let data): (method, data)
            }
            let flags = entry.flags | (entry.dataDescriptor ? 0x0008 : 0)
            let localName = entry.localName ?? entry.name
            out.le(UInt32(0x0403_4B50))
            out.le(UInt16(20))
            out.le(flags)
            out.le(method)
            out.le(entry.dosTime)
            out.le(entry.dosDate)
            if entry.dataDescriptor {
                out.le(UInt32(0)); out.le(UInt32(0)); out.le(UInt32(0))
            } else {
                out.le(entry.localCRC ?? crc)
                out.le(UInt32(payload.count))
                out.le(entry.localUncompressedSize ?? UInt32(entry.data.count))
            }
            out.le(UInt16(localName.count))
            out.le(UInt16(entry.localExtra.count))
            out += localName
            out += entry.localExtra
            out += payload
            if entry.dataDescriptor {
                if entry.descriptorSignature { out.le(UInt32(0x0807_4B50)) }
                out.le(crc)
                out.le(UInt32(payload.count))
                out.le(entry.descriptorUncompressedSize ?? UInt32(entry.data.count))
            }
            central.le(UInt32(0x0201_4B50))
            central.le(entry.versionMadeBy)
            central.le(UInt16(20))
            central.le(flags)
            central.le(method)
            central.le(entry.dosTime)
            central.le(entry.dosDate)
            central.le(entry.centralCRC ?? crc)
            central.le(entry.centralCompressedSize ?? UInt32(payload.count))
            central.le(entry.centralUncompressedSize ?? UInt32(entry.data.count))
            central.le(UInt16(entry.name.count))
            central.le(UInt16(entry.centralExtra.count))
            central.le(UInt16(0))
            central.le(UInt16(0))
            central.le(UInt16(0))
            let directoryBit: UInt32 = entry.mode & 0o170000 == 0o040000 ? 0x10 : 0
            central.le(UInt32(entry.mode) << 16 | directoryBit)
            central.le(entry.centralOffsetOverride ?? offset)
            central += entry.name
            central += entry.centralExtra
        }
        for record in extraCentralRecords { central += record }
        let directoryOffset = UInt32(out.count)
        out += central
        var count = declaredEntryCount ?? UInt16(entries.count + extraCentralRecords.count)
        var classicSize = UInt32(central.count)
        var classicOffset = directoryOffset
        if zip64EndRecords {
            let zip64Offset = UInt64(out.count)
            out.le(UInt32(0x0606_4B50)); out.le(UInt64(44)); out.le(UInt16(0x032D)); out.le(UInt16(45))
            out.le(UInt32(0)); out.le(UInt32(0))
            out.le(UInt64(count)); out.le(UInt64(count))
            out.le(UInt64(central.count)); out.le(UInt64(directoryOffset))
            out.le(UInt32(0x0706_4B50)); out.le(UInt32(0)); out.le(zip64Offset); out.le(UInt32(1))
            (count, classicSize, classicOffset) = (0xFFFF, 0xFFFF_FFFF, 0xFFFF_FFFF)
        }
        out.le(UInt32(0x0605_4B50))
        out.le(UInt16(0))
        out.le(UInt16(0))
        out.le(count)
        out.le(count)
        out.le(classicSize)
        out.le(classicOffset)
        out.le(UInt16(comment.count))
        out += comment
        out += suffix
        return out
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// Raw deflate (no zlib header), as zip stores it.
    public static func deflate(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<produced])
    }

    /// Raw deflate inflated with zlib (an inflater other than the libdeflate ipawrap reads
    /// with): the content when `stream` is one complete stream of exactly `size` bytes, else nil.
    public static func inflate(_ stream: [UInt8], size: Int) -> [UInt8]? {
        var zstream = z_stream()
        guard inflateInit2_(&zstream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&zstream) }
        var input = stream
        var output = [UInt8](repeating: 0, count: size + 1)
        let (status, produced, left): (Int32, Int, Int) = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                zstream.next_in = inputBuffer.baseAddress
                zstream.avail_in = uInt(inputBuffer.count)
                zstream.next_out = outputBuffer.baseAddress
                zstream.avail_out = uInt(outputBuffer.count)
                let status = CZlib.inflate(&zstream, Z_FINISH)
                return (status, outputBuffer.count - Int(zstream.avail_out), Int(zstream.avail_in))
            }
        }
        guard status == Z_STREAM_END, produced == size, left == 0 else { return nil }
        return Array(output[0..<size])
    }

    /// A stored entry's local record (header, name, data) on its own, for crafted archives.
    public static func localRecord(name: [UInt8], data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.le(UInt32(0x0403_4B50)); out.le(UInt16(10)); out.le(UInt16(0)); out.le(UInt16(0))
        out.le(UInt16(0x4B5A)); out.le(UInt16(0x5A8C)); out.le(crc32(data))
        out.le(UInt32(data.count)); out.le(UInt32(data.count))
        out.le(UInt16(name.count)); out.le(UInt16(0))
        return out + name + data
    }

    /// The central record matching `localRecord`, pointing at `offset`.
    public static func centralRecord(name: [UInt8], data: [UInt8], offset: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.le(UInt32(0x0201_4B50)); out.le(UInt16(0x031E)); out.le(UInt16(10)); out.le(UInt16(0)); out.le(UInt16(0))
        out.le(UInt16(0x4B5A)); out.le(UInt16(0x5A8C)); out.le(crc32(data))
        out.le(UInt32(data.count)); out.le(UInt32(data.count))
        out.le(UInt16(name.count)); out.le(UInt16(0)); out.le(UInt16(0)); out.le(UInt16(0)); out.le(UInt16(0))
        out.le(UInt32(0o100644) << 16); out.le(offset)
        return out + name
    }

    /// MS-DOS time and date fields for a moment, read in UTC (Foundation's calendar, independent of
    /// the toolkit's own conversion).
    public static func dosDateTime(_ unixTime: UInt32) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(unixTime)))
        let date = ((parts.year ?? 1980) - 1980) << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1)
        let time = (parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2
        return (UInt16(time), UInt16(date))
    }

    /// Info-ZIP's extended-timestamp extra field with a modification time.
    public static func extendedTimestamp(_ unixTime: UInt32) -> [UInt8] {
        var field: [UInt8] = []
        field.le(UInt16(0x5455)); field.le(UInt16(5)); field.append(1); field.le(unixTime)
        return field
    }
}

extension Array where Element == UInt8 {
    mutating func le<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        Swift.withUnsafeBytes(of: &little) { append(contentsOf: $0) }
    }
}
