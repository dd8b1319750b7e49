import Foundation

/// Reads zip archives with Python's `zipfile` module, an implementation independent of libzip
/// and of the toolkit, to check what the toolkit wrote.
public enum ZipOracle {
    public struct Entry: Decodable, Equatable, Sendable {
        /// Name bytes as hex (exact bytes: UTF-8 when flagged, else re-encoded as CP437).
        public let name: String
        public let crc: UInt32
        public let compressedSize: UInt64
        public let fileSize: UInt64
        public let method: Int
        public let externalAttributes: UInt32
        public let dateTime: [Int]
        /// Central extra field as hex.
        public let extra: String
        public let flags: Int
        public let createSystem: Int
        /// SHA-256 of the local header and the compressed bytes as stored.
        public let rawSHA256: String
        /// The target of a symlink entry (data read back), else nil.
        public let symlinkTarget: String?

        public var nameString: String {
            String(decoding: Self.unhex(name), as: UTF8.self)
        }

        public var mode: UInt16 { UInt16(truncatingIfNeeded: externalAttributes >> 16) }

        public static func unhex(_ text: String) -> [UInt8] {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
                bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
                index = next
            }
            return bytes
        }

        enum CodingKeys: String, CodingKey {
            case name, crc, flags, method, extra
            case compressedSize = "compress_size"
            case fileSize = "file_size"
            case externalAttributes = "external_attr"
            case dateTime = "date_time"
            case createSystem = "create_system"
            case rawSHA256 = "raw_sha256"
            case symlinkTarget = "symlink_target"
        }
    }

    private static let script = #"""
import hashlib, json, stat, struct, sys, zipfile
path = sys.argv[1]
out = []
with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
    for info in archive.infolist():
        name = info.filename.encode("utf-8") if info.flag_bits & 0x800 else info.filename.encode("cp437")
        if info.is_dir() and not name.endswith(b"/"):
            name += b"/"
        raw.seek(info.header_offset)
        header = raw.read(30)
        n, m = struct.unpack("<HH", header[26:30])
        local = header + raw.read(n + m)
        data = raw.read(info.compress_size)
        target = None
        if stat.S_ISLNK(info.external_attr >> 16):
            target = archive.read(info).decode("utf-8", "replace")
        out.append({
            "name": name.hex(), "crc": info.CRC, "compress_size": info.compress_size,
            "file_size": info.file_size, "method": info.compress_type,
            "external_attr": info.external_attr, "date_time": list(info.date_time),
            "extra": info.extra.hex(), "flags": info.flag_bits, "create_system": info.create_system,
            "raw_sha256": hashlib.sha256(local + data).hexdigest(), "symlink_target": target,
        })
json.dump(out, sys.stdout)
"""#

    /// Every entry of the archive at `path`, in central-directory order.
    public static func entries(_ path: String) throws -> [Entry] {
        let result = try Command.run("python3", ["-c", script, path])
        guard result.status == 0 else {
            throw OracleError(message: "python3 zipfile could not read \(path): \(result.stderr)")
        }
        return try JSONDecoder().decode([Entry].self, from: Data(result.stdout.utf8))
    }

    /// One entry's bytes as Python's `zipfile` reads them (inflated by zlib, its CRC checked).
    public static func read(_ name: String, of archive: String) throws -> [UInt8] {
        let result = try Command.run(
            "python3", ["-c", "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).hex())", archive, name])
        guard result.status == 0 else {
            throw OracleError(message: "python3 zipfile could not read \(name) of \(archive): \(result.stderr)")
        }
        return Entry.unhex(result.stdout)
    }

    /// Writes `output`: `source` with every entry under `prefix` replaced by those of
    /// `alternative` (rewritten by Python's `zipfile`, deflated), e.g. one signed framework swapped
    /// for another.
    public static func swapEntries(under prefix: String, of source: String, from alternative: String, to output: String) throws {
        let script = """
            import sys, zipfile
            source, target, alternative, prefix = sys.argv[1:5]
            alt = zipfile.ZipFile(alternative)
            with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
                for info in zin.infolist():
                    if not info.filename.startswith(prefix):
                        zout.writestr(info, zin.read(info))
                for info in alt.infolist():
                    if info.filename.startswith(prefix):
                        zout.writestr(info, alt.read(info))
            """
        let result = try Command.run("python3", ["-c", script, source, output, alternative, prefix])
        guard result.status == 0 else {
            throw OracleError(message: "python3 zipfile could not swap \(prefix) into \(source): \(result.stderr)")
        }
    }

    /// `unzip -t`: tests every entry's data and CRC with Info-ZIP.
    public static func unzipTest(_ path: String) throws -> Command.Result {
        try Command.run("unzip", ["-tq", path])
    }
}

public struct OracleError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
