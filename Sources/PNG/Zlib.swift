import CZlib
import Deflate
import FormatSupport

/// How the deflate data in IDAT is wrapped.
enum DeflateFraming: Sendable {
    /// RFC 1950: a 2-byte header and an Adler-32 trailer (standard PNG).
    case zlib
    /// RFC 1951 raw deflate (what Apple's tools write in CgBI files).
    case raw

    var windowBits: Int32 { self == .zlib ? 15 : -15 }

    /// True when `first` and `second` form a valid zlib header: deflate method, a window of at most
    /// 32 KiB, no preset dictionary and a check value that makes the pair a multiple of 31.
    static func looksLikeZlibHeader(_ first: UInt8, _ second: UInt8) -> Bool {
        first & 0x0F == 8 && first >> 4 <= 7 && second & 0x20 == 0 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }
}

/// The inflated image data and what was learnt about its checksum on the way.
struct InflatedImageData {
    var bytes: [UInt8]
    /// True when a zlib stream's Adler-32 did not match (only possible with `.zlib` framing).
    var adlerMismatch: Bool
}

enum ImageDataInflater {
    /// Bytes inflated per call to zlib.
    static let inflateWindow = 1 << 20

    /// Inflates the IDAT payloads `ranges` of `file` as one stream into exactly `expectedSize`
    /// bytes: in one call (`DeflateEngine`, see `inflateWhole`) when the data is one clean
    /// stream of that size, as almost every image's is; otherwise through zlib as follows, which
    /// decides what anything unusual means and reports every fault.
    ///
    /// - Output is capped: if the stream would produce even one byte more, it throws
    ///   `PNG_DATA_SIZE` at once, so a zlib bomb costs at most `expectedSize` bytes of memory.
    /// - A stream that ends early but is followed by more data is continued as a new stream
    ///   (some writers compress each IDAT or each iDOT section separately).
    /// - Once the image is complete, a missing Adler-32 trailer or a missing final block is
    ///   tolerated (nothing more is needed); a wrong Adler-32 is reported in the result.
    /// - Output is produced a window at a time, with `clock` checked between windows.
    static func inflate(
        file: [UInt8], ranges: [Range<Int>], framing: DeflateFraming, expectedSize: Int, firstChunkOffset: Int,
        clock: WorkClock = .unlimited
    ) throws(PNGError) -> InflatedImageData {
        if let whole = inflateWhole(file: file, ranges: ranges, framing: framing, expectedSize: expectedSize) {
            var clock = clock
            if clock.isExpired(after: expectedSize) { throw PNGError(.timeLimit, clock.timeLimitMessage) }
            return whole
        }
        return try inflateStreaming(
            file: file, ranges: ranges, framing: framing, expectedSize: expectedSize, firstChunkOffset: firstChunkOffset, clock: clock)
    }

    /// The zlib path of `inflate`, for data `inflateWhole` does not take.
    static func inflateStreaming(
        file: [UInt8], ranges: [Range<Int>], framing: DeflateFraming, expectedSize: Int, firstChunkOffset: Int,
        clock: WorkClock = .unlimited
    ) throws(PNGError) -> InflatedImageData {
        var failure: PNGError?
        var adlerMismatch = false
        let output = [UInt8](unsafeUninitializedCapacity: expectedSize) { buffer, initialized in
            file.withUnsafeBufferPointer { input in
                do throws(PNGError) {
                    adlerMismatch = try run(
                        input: input, ranges: ranges, framing: framing, output: buffer, firstChunkOffset: firstChunkOffset,
                        clock: clock)
                    initialized = expectedSize
                } catch {
                    failure = error
                    initialized = 0
                }
            }
        }
        if let failure { throw failure }
        return InflatedImageData(bytes: output, adlerMismatch: adlerMismatch)
    }

    /// The image data inflated in one call when the joined payloads are one stream (behind a
    /// valid zlib header, for `.zlib`) of exactly `expectedSize` bytes; nil otherwise. A zlib
    /// trailer is compared when all four bytes are there, as zlib does.
    static func inflateWhole(file: [UInt8], ranges: [Range<Int>], framing: DeflateFraming, expectedSize: Int) -> InflatedImageData? {
        guard ranges.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound <= file.count }), let first = ranges.first else { return nil }
        // Most images have one IDAT: its bytes are used in place.
        let joined = ranges.count == 1 ? file[first] : ArraySlice(ranges.flatMap { file[$0] })
        let header = framing == .zlib ? 2 : 0
        guard joined.count > header else { return nil }
        if framing == .zlib, !DeflateFraming.looksLikeZlibHeader(joined[joined.startIndex], joined[joined.startIndex + 1]) {
            return nil
        }
        var consumed: Int?
        let bytes = [UInt8](unsafeUninitializedCapacity: expectedSize) { buffer, initialized in
            let outcome = joined.withUnsafeBytes { input in
                DeflateEngine.inflate(UnsafeRawBufferPointer(rebasing: input[header...]), into: UnsafeMutableRawBufferPointer(buffer))
            }
            if case .complete(let used) = outcome { consumed = used }
            initialized = consumed == nil ? 0 : expectedSize
        }
        guard let consumed else { return nil }
        let trailer = joined.dropFirst(header + consumed).prefix(4)
        guard framing == .zlib, trailer.count == 4 else { return InflatedImageData(bytes: bytes, adlerMismatch: false) }
        let declared = trailer.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return InflatedImageData(bytes: bytes, adlerMismatch: declared != bytes.withUnsafeBytes { DeflateEngine.adler32($0) })
    }

    /// Returns whether the Adler-32 mismatched.
    private static func run(
        input: UnsafeBufferPointer<UInt8>, ranges: [Range<Int>], framing: DeflateFraming,
        output: UnsafeMutableBufferPointer<UInt8>, firstChunkOffset: Int, clock: WorkClock
    ) throws(PNGError) -> Bool {
        var clock = clock
        guard let inputBase = input.baseAddress, let outputBase = output.baseAddress else {
            throw PNGError(.noImageData, at: firstChunkOffset, "the image data is empty")
        }
        var stream = z_stream()
        guard inflateInit2_(&stream, framing.windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PNGError(.inflate, at: firstChunkOffset, "zlib could not start inflating (out of memory)")
        }
        defer { inflateEnd(&stream) }

        let expected = output.count
        var produced = 0
        var nextRange = 0
        var streamEnded = false
        // After the image is complete, output goes here; any byte written means too much data.
        var overflow = [UInt8](repeating: 0, count: 64)

        func refillInput(_ stream: inout z_stream) -> Bool {
            while nextRange < ranges.count {
                let range = ranges[nextRange]
                nextRange += 1
                if !range.isEmpty {
                    stream.next_in = UnsafeMutablePointer(mutating: inputBase + range.lowerBound)
                    stream.avail_in = UInt32(range.count)  // IDAT lengths are below 2³¹.
                    return true
                }
            }
            return false
        }

        // Every pass either consumes input, produces output, or leaves the loop; input is finite
        // and output is capped, so the loop ends.
        while true {
            if stream.avail_in == 0, !refillInput(&stream) {
                break
            }
            let complete = produced == expected
            let inputBefore = stream.avail_in
            let status: Int32
            if complete {
                status = overflow.withUnsafeMutableBufferPointer { scratch in
                    stream.next_out = scratch.baseAddress
                    stream.avail_out = UInt32(scratch.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                if stream.avail_out != UInt32(overflow.count) {
                    throw PNGError(.dataSize, at: firstChunkOffset, "the image data inflates to more than the \(expected) bytes IHDR implies")
                }
                if status == Z_BUF_ERROR, stream.avail_in == inputBefore {
                    break
                }
            } else {
                // A window of 1 MiB keeps the time-limit check a few milliseconds apart.
                let window = min(expected - produced, inflateWindow)
                stream.next_out = outputBase + produced
                stream.avail_out = UInt32(window)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced += window - Int(stream.avail_out)
                if clock.isExpired(after: window - Int(stream.avail_out)) {
                    throw PNGError(.timeLimit, clock.timeLimitMessage)
                }
                if status == Z_BUF_ERROR, stream.avail_in == inputBefore, Int(stream.avail_out) == window {
                    // No progress with input and room available cannot happen; stop rather than spin.
                    break
                }
            }

            switch status {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                if produced < expected, stream.avail_in > 0 || nextRange < ranges.count {
                    inflateReset(&stream)
                    continue
                }
                streamEnded = true
            case Z_NEED_DICT:
                throw PNGError(.inflate, at: firstChunkOffset, "the image data asks for a preset zlib dictionary, which PNG forbids")
            case Z_DATA_ERROR where produced == expected:
                // The image is complete; what failed is the trailer or data nobody needs.
                return zlibMessage(stream) == "incorrect data check"
            case Z_DATA_ERROR:
                throw PNGError(.inflate, at: firstChunkOffset, "the image data is not a valid \(framing == .zlib ? "zlib" : "deflate") stream (\(zlibMessage(stream) ?? "data error") after \(produced) of \(expected) bytes)")
            case Z_MEM_ERROR:
                throw PNGError(.inflate, at: firstChunkOffset, "zlib ran out of memory inflating the image data")
            default:
                throw PNGError(.inflate, at: firstChunkOffset, "zlib failed with status \(status) inflating the image data")
            }
            if streamEnded { break }
        }

        guard produced == expected else {
            throw PNGError(.dataSize, at: firstChunkOffset, "the image data inflates to \(produced) bytes, but IHDR implies \(expected)")
        }
        return false
    }

    private static func zlibMessage(_ stream: z_stream) -> String? {
        stream.msg.map { String(cString: $0) }
    }
}

enum ImageDataDeflater {
    /// Bytes fed to zlib per call, with `tick` called between them.
    static let deflateWindow = 1 << 20

    /// zlib-wrapped deflate of `data`. Deterministic for a given zlib build. If zlib cannot start
    /// (it only fails for lack of memory), falls back to stored blocks, which any decoder reads.
    /// `tick` is told each piece of input fed to zlib and may stop the work by throwing.
    static func deflate<Failure: Error>(
        _ data: [UInt8], level: Int32, tick: (Int) throws(Failure) -> Void
    ) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return stored(data)
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var failed = false
        var stopped: Failure?
        var output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, initialized in
            data.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = 0
                stream.next_out = buffer.baseAddress
                stream.avail_out = 0
                var consumed = 0
                var written = 0
                var status = Z_OK
                // Feed in pieces of `deflateWindow`, drain in pieces below 4 GiB; deflateBound
                // guarantees the room.
                while status != Z_STREAM_END {
                    if stream.avail_in == 0, consumed < data.count {
                        let piece = min(data.count - consumed, deflateWindow)
                        do throws(Failure) {
                            try tick(piece)
                        } catch {
                            stopped = error
                            break
                        }
                        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + consumed })
                        stream.avail_in = UInt32(piece)
                        consumed += piece
                    }
                    let room = min(bound - written, 1 << 30)
                    stream.next_out = buffer.baseAddress.map { $0 + written }
                    stream.avail_out = UInt32(room)
                    status = CZlib.deflate(&stream, consumed == data.count ? Z_FINISH : Z_NO_FLUSH)
                    written += room - Int(stream.avail_out)
                    if status != Z_OK, status != Z_STREAM_END, status != Z_BUF_ERROR {
                        failed = true
                        break
                    }
                    if room == 0 {
                        failed = true
                        break
                    }
                }
                initialized = stopped == nil ? written : 0
            }
        }
        if let stopped { throw stopped }
        if failed {
            output = stored(data)
        }
        return output
    }

    /// A zlib stream of stored (uncompressed) blocks.
    static func stored(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        output.reserveCapacity(data.count + data.count / 65_535 * 5 + 16)
        var start = 0
        repeat {
            let length = min(65_535, data.count - start)
            let final: UInt8 = start + length == data.count ? 1 : 0
            output.append(final)
            output.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
            output.append(contentsOf: data[start..<(start + length)])
            start += length
        } while start < data.count
        let checksum = adler32(data)
        output.append(contentsOf: [UInt8(truncatingIfNeeded: checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16),
                                   UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)])
        return output
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { buffer in
            var value = CZlib.adler32(0, nil, 0)
            var start = 0
            while start < buffer.count {
                let piece = min(buffer.count - start, 1 << 30)
                value = CZlib.adler32(value, buffer.baseAddress.map { $0 + start }, UInt32(piece))
                start += piece
            }
            return UInt32(truncatingIfNeeded: value)
        }
    }
}
