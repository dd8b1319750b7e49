import CZlib
import Deflate
import FormatSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deflates a revision of a file by reusing the original entry's deflate stream where the two
/// agree: re-signing a Mach-O changes a few header fields (the signature's size) and the
/// signature at the end, and leaves megabytes of code in between as they were, already
/// compressed. Compressing those megabytes again is most of the time `sign` spends on a small
/// app; copying their blocks costs a bit shift.
///
/// The new stream is three parts (RFC 1951 streams are sequences of blocks, and any block
/// boundary of the original is a place to cut it, as zlib's `gzappend` example cuts at the last):
/// 1. the revision's bytes up to a block boundary of the original at least 32 KiB past the last
///    change near the start, deflated with zlib and ended by an empty stored block (a sync
///    flush), so no block after it can refer back to a changed byte;
/// 2. the original's blocks from there to the last boundary before the first change near the
///    end, bit for bit, shifted onto the byte boundary part 1 ends on;
/// 3. the rest of the revision deflated with zlib, primed with the bits part 2 left in its last
///    byte and with the 32 KiB before it as dictionary, its last block final.
/// The result is inflated (libdeflate) and compared with the revision before it is used, so a
/// hostile original or a flaw here costs speed, never correctness: nil means "deflate it whole".
/// The same original, revision and level give the same bytes.
public enum DeflateSplice {
    /// RFC 1951's window: how far back a block may refer.
    static let window = 32 << 10
    /// Reuse is worth the bookkeeping only for at least this many bytes of original blocks.
    static let minimumReuse = 64 << 10
    /// The highest zlib level parts 1 and 3 are deflated at. They are a few percent of the entry
    /// (a block or two and the signature), and zlib's level 6 takes half as long again as 4 for
    /// 1% less on them (the Swift runtime's libraries: 0.2% of the entry); the level asked for
    /// applies when lower.
    static let highestPartLevel: Int32 = 4

    /// A place between two blocks of the original stream.
    struct Boundary: Equatable {
        /// Bits of the stream before it.
        var bit: Int
        /// Inflated bytes before it.
        var offset: Int
    }

    /// A revision's stream and where in it the original's blocks were copied.
    struct Spliced {
        var stream: [UInt8]
        /// The original's bits copied (part 2)…
        var copiedBits: Range<Int>
        /// …to this bit of `stream` on.
        var copiedTo: Int
    }

    /// The deflate stream of `revision`, reusing `original` (the raw deflate stream whose
    /// content is `originalSize` bytes long, at most `ZipArchive.wholeReadLimit`, the largest
    /// entry inflated whole: the content is held while it is compared), or nil when no long
    /// enough run of blocks can be reused or anything fails. `level` is zlib's, 0 to 9.
    public static func deflate(revision: [UInt8], original: [UInt8], originalSize: Int, level: Int32) -> [UInt8]? {
        splice(revision: revision, original: original, originalSize: originalSize, level: level)?.stream
    }

    /// The start of a revision's stream made before the revision is whole: `prefix` (its first
    /// bytes, e.g. a re-signed executable's code before its new signature) spliced as `deflate`
    /// splices, ending on a byte boundary without a final block, so that the stream is this plus
    /// `storedBlocks(of:)` of the rest. Its size, and so the entry's, is known before the rest is:
    /// what lets the entries after it be placed early (`RepackForecast`). Nil where `deflate`
    /// gives nil, but not checked: the caller inflates it and compares
    /// (`ArchiveEntrySource.deflatedPrefix` does).
    public static func deflatePrefix(
        _ prefix: [UInt8], original: [UInt8], originalSize: Int, level: Int32, knownContent: [UInt8]? = nil
    ) -> [UInt8]? {
        splice(revision: prefix, original: original, originalSize: originalSize, level: level, final: false, knownContent: knownContent)?.stream
    }

    /// `bytes` as the stored blocks that end a stream (RFC 1951 3.2.4), after a prefix that ends on
    /// a byte boundary (`deflatePrefix`): each a header byte, LEN and NLEN, then up to 65,535 bytes.
    public static func storedBlocks(of bytes: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(storedBlocksSize(bytes.count))
        var start = bytes.startIndex
        repeat {
            let end = min(start + Int(UInt16.max), bytes.endIndex)
            let length = UInt16(end - start)
            output.append(end == bytes.endIndex ? 0x01 : 0x00)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.endIndex
        return output
    }

    /// The size of `storedBlocks(of:)` for `count` bytes.
    public static func storedBlocksSize(_ count: Int) -> Int {
        let count = max(0, count)
        return count + 5 * max(1, (count + Int(UInt16.max) - 1) / Int(UInt16.max))
    }

    /// `deflate(revision:original:originalSize:level:)`, with where the copy went; with `final`
    /// false, the stream ends on a byte boundary without a final block and is not checked.
    ///
    /// `knownContent`: the original's content when the caller holds it (its reads checked it
    /// against the entry's CRC), so only its block boundaries are looked for. A stream that does
    /// not hold it fails the check of the result (or, for a prefix, the caller's).
    static func splice(
        revision: [UInt8], original: [UInt8], originalSize: Int, level: Int32, final: Bool = true, knownContent: [UInt8]? = nil
    ) -> Spliced? {
        guard originalSize >= minimumReuse, UInt64(originalSize) <= ZipArchive.wholeReadLimit, revision.count >= minimumReuse
        else { return nil }
        let found: ([UInt8], [Boundary])?
        if let knownContent, knownContent.count == originalSize {
            found = boundaries(of: original, size: originalSize).map { (knownContent, $0) }
        } else {
            found = inflateWithBoundaries(original, size: originalSize)
        }
        guard let (content, boundaries) = found else { return nil }
        guard let same = longestSameRun(content, revision),
            let start = boundaries.first(where: { $0.offset >= same.lowerBound + window }),
            let end = boundaries.last(where: { $0.offset <= same.upperBound }),
            end.offset - start.offset >= minimumReuse
        else { return nil }

        // Shifted bits keep their meaning, except a stored block's padding to a byte boundary.
        if start.bit % 8 != 0,
            boundaries.contains(where: { $0.bit >= start.bit && $0.bit < end.bit && isStoredBlock(original, at: $0.bit) })
        {
            return nil
        }
        var output: [UInt8] = []
        output.reserveCapacity(original.count + (revision.count - (end.offset - start.offset)) / 2 + 1024)
        let level = min(level, highestPartLevel)
        guard RawDeflate.append(revision, range: 0..<start.offset, dictionary: window, final: false, level: level, to: &output)
        else { return nil }
        let copiedTo = output.count * 8
        guard let pending = appendBits(of: original, from: start.bit, to: end.bit, to: &output),
            RawDeflate.append(
                revision, range: end.offset..<revision.count, dictionary: window, final: final, level: level,
                primedWith: (pending.count, pending.value), to: &output),
            !final || inflatesTo(output, revision)
        else { return nil }
        return Spliced(stream: output, copiedBits: start.bit..<end.bit, copiedTo: copiedTo)
    }

    /// The most block boundaries a stream of `size` bytes of content may have: blocks of 512 bytes
    /// on average. Compressors write blocks of kilobytes; a stream of thousands of empty blocks
    /// (10 bits each) would otherwise cost a boundary, and a zlib call, per block.
    static func maximumBoundaries(size: Int) -> Int { size / 512 + 256 }

    /// The original's content and every block boundary in it, from one zlib pass that stops at
    /// each block's end (`Z_BLOCK`). Nil unless it is a complete raw deflate stream of exactly
    /// `size` bytes with at most `maximumBoundaries(size:)` blocks.
    static func inflateWithBoundaries(_ stream: [UInt8], size: Int) -> ([UInt8], [Boundary])? {
        guard size > 0 else { return nil }
        var content = [UInt8](repeating: 0, count: size)
        let boundaries = content.withUnsafeMutableBytes { scanBoundaries(stream, size: size, into: $0) }
        return boundaries.map { (content, $0) }
    }

    /// The block boundaries alone, as `inflateWithBoundaries` finds them, for an original whose
    /// content the caller holds: inflated through a small buffer used again and again.
    static func boundaries(of stream: [UInt8], size: Int) -> [Boundary]? {
        guard size > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: min(size, 256 << 10))
        return buffer.withUnsafeMutableBytes { scanBoundaries(stream, size: size, into: $0) }
    }

    /// One zlib pass over `stream` that stops at each block's end, its output going into `output`
    /// (from its start again whenever full) until `size` bytes in all; the boundaries, or nil
    /// unless the stream holds exactly `size` bytes in at most `maximumBoundaries(size:)` blocks.
    private static func scanBoundaries(_ stream: [UInt8], size: Int, into output: UnsafeMutableRawBufferPointer) -> [Boundary]? {
        let boundaryLimit = maximumBoundaries(size: size)
        guard let outputBase = output.baseAddress?.assumingMemoryBound(to: Bytef.self), !output.isEmpty else { return nil }
        var boundaries: [Boundary] = []
        var finished = false
        var zstream = z_stream()
        guard inflateInit2_(&zstream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&zstream) }
        // Bytes produced before the current pass through `output`.
        var base = 0
        stream.withUnsafeBytes { input in
            guard let inputBase = input.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
            zstream.next_in = UnsafeMutablePointer(mutating: inputBase)
            zstream.avail_in = uInt(input.count)
            zstream.next_out = outputBase
            zstream.avail_out = uInt(min(output.count, size))
            var room = Int(zstream.avail_out)
            while true {
                if zstream.avail_out == 0 && base + room < size {
                    base += room
                    room = min(output.count, size - base)
                    zstream.next_out = outputBase
                    zstream.avail_out = uInt(room)
                }
                let status = inflate(&zstream, Z_BLOCK)
                let produced = base + room - Int(zstream.avail_out)
                if status == Z_STREAM_END {
                    finished = produced == size
                    return
                }
                // Anything else, Z_BUF_ERROR included (no progress possible: the output is full before
                // the stream's end, or the input is cut short), ends the pass without a result.
                guard status == Z_OK else { return }
                // Bit 7 of data_type: stopped at the end of a block; bit 6: that block was the
                // final one (its end is the stream's, where nothing may follow: not a place to
                // cut); the low three bits: unused bits of the last input byte taken.
                if zstream.data_type & 128 != 0 && zstream.data_type & 64 == 0 {
                    guard boundaries.count < boundaryLimit else { return }
                    let consumed = input.count - Int(zstream.avail_in)
                    boundaries.append(Boundary(bit: consumed * 8 - Int(zstream.data_type & 7), offset: produced))
                }
            }
        }
        return finished ? boundaries : nil
    }

    /// The longest run of 4 KiB pages at the same offsets with the same bytes in both, as a byte
    /// range; nil when no page agrees.
    static func longestSameRun(_ first: [UInt8], _ second: [UInt8]) -> Range<Int>? {
        let page = 4096
        let length = min(first.count, second.count)
        var best: Range<Int>?
        var runStart: Int?
        var offset = 0
        first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in
                guard let aBase = a.baseAddress, let bBase = b.baseAddress else { return }
                while offset < length {
                    let count = min(page, length - offset)
                    if memcmp(aBase + offset, bBase + offset, count) == 0 {
                        if runStart == nil { runStart = offset }
                    } else if let start = runStart {
                        if offset - start > best?.count ?? 0 { best = start..<offset }
                        runStart = nil
                    }
                    offset += count
                }
                if let start = runStart, length - start > best?.count ?? 0 { best = start..<length }
            }
        }
        return best
    }

    /// Bits left over after whole bytes: `count` (0 to 7) low bits of `value`.
    struct PendingBits {
        var count: Int32 = 0
        var value: Int32 = 0
    }

    /// Appends bits `[from, to)` of `stream` (least significant bit first, as deflate packs
    /// them) to `output`, which ends on a byte boundary; returns the bits after the last whole
    /// byte, or nil for a range outside the stream.
    static func appendBits(of stream: [UInt8], from: Int, to: Int, to output: inout [UInt8]) -> PendingBits? {
        guard from >= 0, from <= to, to <= stream.count * 8 else { return nil }
        let shift = from % 8
        let whole = (to - from) / 8
        let rest = (to - from) % 8
        let first = from / 8
        return stream.withUnsafeBufferPointer { input -> PendingBits in
            // Byte k of the copy: the high bits of input byte first+k and the low bits of the next
            // (which exists whenever those bits are part of the range).
            func byte(_ index: Int) -> UInt8 {
                let low = input[index] >> UInt8(shift)
                guard shift > 0, index + 1 < input.count else { return low }
                return low | input[index + 1] << UInt8(8 - shift)
            }
            if shift == 0 {
                output.append(contentsOf: input[first..<(first + whole)])
            } else {
                output.reserveCapacity(output.count + whole + 1)
                for index in first..<(first + whole) { output.append(byte(index)) }
            }
            guard rest > 0 else { return PendingBits() }
            return PendingBits(count: Int32(rest), value: Int32(byte(first + whole) & UInt8((1 << rest) - 1)))
        }
    }

    /// Whether the block that starts at `bit` is a stored one (BTYPE 00), whose padding to a byte
    /// boundary would be wrong once its bits are shifted.
    static func isStoredBlock(_ stream: [UInt8], at bit: Int) -> Bool {
        func bitValue(_ position: Int) -> UInt8? {
            guard position >= 0, position / 8 < stream.count else { return nil }
            return stream[position / 8] >> UInt8(position % 8) & 1
        }
        return bitValue(bit + 1) == 0 && bitValue(bit + 2) == 0
    }

    /// Whether `stream` is one complete raw deflate stream of exactly `expected`.
    static func inflatesTo(_ stream: [UInt8], _ expected: [UInt8]) -> Bool {
        var complete = false
        let inflated = [UInt8](unsafeUninitializedCapacity: expected.count) { buffer, initialized in
            let outcome = stream.withUnsafeBytes { DeflateEngine.inflate($0, into: UnsafeMutableRawBufferPointer(buffer)) }
            complete = outcome == .complete(consumed: stream.count)
            initialized = complete ? expected.count : 0
        }
        guard complete else { return false }
        return inflated.withUnsafeBufferPointer { a in expected.withUnsafeBufferPointer { b in ByteComparison.equal(a, b) } }
    }
}

extension ArchiveEntrySource {
    /// The start of the stream a repack writes for a revision of this entry whose first bytes are
    /// `prefix` and whose whole length will be `totalLength` (the rest in stored blocks; see
    /// `ArchiveEdits.Addition.deflatedPrefix`), at `level`, checked here (inflated and compared) so
    /// the writer need not. Nil when the writer would not use one:
    /// the entry is not deflated, or too small to reuse or too large to encode whole, no run of its
    /// blocks can be reused, or the result would not be smaller than storing the revision.
    public func deflatedPrefix(of prefix: [UInt8], totalLength: Int, level: DeflateLevel) throws -> ArchiveEdits.DeflatedPrefix? {
        guard entry.method == 8, entry.uncompressedSize >= UInt64(DeflateSplice.minimumReuse), prefix.count <= totalLength,
            UInt64(totalLength) <= NewEntryEncoder.wholeBufferLimit,
            let original = try archive.deflateStream(of: entry),
            var stream = DeflateSplice.deflatePrefix(
                prefix, original: original, originalSize: Int(entry.uncompressedSize), level: level.blocks,
                knownContent: archive.recentReads.whole(of: entry))
        else { return nil }
        // Checked as a whole stream: with an empty final stored block after it, for the check only.
        let end = DeflateSplice.storedBlocks(of: [])
        stream += end
        guard DeflateSplice.inflatesTo(stream, prefix) else { return nil }
        stream.removeLast(end.count)
        let crc = prefix.withUnsafeBytes { DeflateEngine.crc32($0) }
        let result = ArchiveEdits.DeflatedPrefix(stream: stream, length: prefix.count, crc: crc)
        return result.encodedSize(totalLength: totalLength) < totalLength ? result : nil
    }
}
