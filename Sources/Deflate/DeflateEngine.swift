import CLibdeflate

/// DEFLATE (RFC 1951) on whole buffers with libdeflate, and the CRC-32 and Adler-32 checksums:
/// the one engine every reader of zip entries, PNG image data and asset renditions inflates
/// with, and the archive writer compresses new entries with. libdeflate is three to four times
/// as fast as zlib at inflating and computes CRC-32 with carry-less multiplication, but only
/// whole buffers at once: callers stream through zlib what is too large to hold (a zip entry
/// above `ZipArchive.wholeReadLimit`, a large file added from disk).
public enum DeflateEngine {
    /// What inflating a stream into a buffer of the size its container declares found.
    public enum InflateOutcome: Equatable, Sendable {
        /// Exactly the declared size; the stream took `consumed` input bytes (its last one
        /// rounded up to a byte), so the caller can find what follows it.
        case complete(consumed: Int)
        /// The stream is valid but ended after `produced` bytes, fewer than declared.
        case endsEarly(produced: Int)
        /// The stream holds more than the declared size (it was stopped there).
        case overruns
        /// Not a valid deflate stream, or one cut short.
        case corrupt
    }

    /// How the deflate stream is wrapped.
    public enum Framing: Sendable {
        /// RFC 1951 as it is (zip entries, CgBI image data).
        case raw
        /// RFC 1950: a 2-byte header and an Adler-32 trailer, checked.
        case zlib
        /// RFC 1952: a gzip member, its CRC-32 and size checked.
        case gzip
    }

    /// Inflates the stream at the start of `input` into `output`, which is exactly the declared
    /// size: libdeflate never writes past it, so a stream that holds more (a bomb, a size lie)
    /// costs no more memory than the truth would. Bytes after the stream's end are not read. A
    /// wrapper's check value that does not match is `corrupt`.
    public static func inflate(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, framing: Framing = .raw
    ) -> InflateOutcome {
        guard let decompressor = libdeflate_alloc_decompressor() else { return .corrupt }
        defer { libdeflate_free_decompressor(decompressor) }
        var consumed = 0
        var produced = 0
        // libdeflate wants real pointers even for empty buffers.
        var empty: UInt8 = 0
        let result = withUnsafeMutablePointer(to: &empty) { placeholder in
            let (source, target) = (input.baseAddress ?? UnsafeRawPointer(placeholder), output.baseAddress ?? UnsafeMutableRawPointer(placeholder))
            return switch framing {
            case .raw: libdeflate_deflate_decompress_ex(decompressor, source, input.count, target, output.count, &consumed, &produced)
            case .zlib: libdeflate_zlib_decompress_ex(decompressor, source, input.count, target, output.count, &consumed, &produced)
            case .gzip: libdeflate_gzip_decompress_ex(decompressor, source, input.count, target, output.count, &consumed, &produced)
            }
        }
        switch result {
        case LIBDEFLATE_SUCCESS: return produced == output.count ? .complete(consumed: consumed) : .endsEarly(produced: produced)
        case LIBDEFLATE_INSUFFICIENT_SPACE: return .overruns
        default: return .corrupt
        }
    }

    /// The CRC-32 of `bytes` (zip's and PNG's), continuing from `crc` (0 to start).
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress else { return crc }
        return libdeflate_crc32(crc, base, bytes.count)
    }

    /// The Adler-32 of `bytes` (zlib's trailer), continuing from `adler` (1 to start).
    public static func adler32(_ bytes: UnsafeRawBufferPointer, continuing adler: UInt32 = 1) -> UInt32 {
        guard let base = bytes.baseAddress else { return adler }
        return libdeflate_adler32(adler, base, bytes.count)
    }
}

/// How hard new entries are compressed, decided once (`RepackOptions`) for both engines: whole
/// buffers go through libdeflate, files too large to hold through zlib in blocks.
public struct DeflateLevel: Sendable, Equatable {
    /// libdeflate's level, 0 to 12.
    public var wholeBuffer: Int32
    /// zlib's level, 0 to 9, for a file deflated in blocks as it is read.
    public var blocks: Int32

    public init(wholeBuffer: Int32, blocks: Int32) {
        self.wholeBuffer = min(max(wholeBuffer, 0), 12)
        self.blocks = min(max(blocks, 0), 9)
    }

    /// zlib's default, 6, which ipawrap has always written, and libdeflate's 6, the lowest whose
    /// output is no larger (within 0.3%) on the Swift runtime's libraries, an arm64 app binary
    /// and system libraries, at a third of zlib's CPU time (docs/performance.md).
    public static let standard = DeflateLevel(wholeBuffer: 6, blocks: 6)
}

/// A libdeflate compressor at one level, reused for many buffers (making one clears its match
/// tables, which costs more than compressing a small file). Not thread-safe: one per worker.
public final class DeflateCompressor {
    private let compressor: OpaquePointer

    /// Nil only when memory runs out.
    public init?(level: Int32) {
        guard let compressor = libdeflate_alloc_compressor(min(max(level, 0), 12)) else { return nil }
        self.compressor = compressor
    }

    deinit {
        libdeflate_free_compressor(compressor)
    }

    /// The raw deflate stream of `input` when it is smaller than `input`, else nil (the caller
    /// stores it, as Info-ZIP does). The same input and level give the same bytes.
    public func compressIfSmaller(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let base = input.baseAddress, input.count > 1 else { return nil }
        var produced = 0
        // Room for one byte less than the input: libdeflate answers 0 when it does not fit.
        let output = [UInt8](unsafeUninitializedCapacity: input.count - 1) { buffer, initialized in
            produced = buffer.baseAddress.map { libdeflate_deflate_compress(compressor, base, input.count, $0, buffer.count) } ?? 0
            initialized = produced
        }
        return produced > 0 ? output : nil
    }
}
