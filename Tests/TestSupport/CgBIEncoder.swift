import CZlib

/// Writes Apple CgBI PNGs, and standard PNGs with the same knobs, from straight RGBA8 pixels.
///
/// This is a test and sample helper written independently of the `PNG` module (it cannot import
/// it), so the decoder is checked against a second implementation of the filters, the Adam7
/// layout, the chunk CRCs and the CgBI byte order. Every knob exists to reproduce something real
/// decoders get wrong: a filter type forced per row (the "swap before unfilter" bug only shows on
/// Sub, Up, Average and Paeth rows), several IDATs, an iDOT chunk, interlacing, zlib or raw framing.
public struct CgBIEncoder: Sendable {
    public enum Flavor: Sendable {
        /// `CgBI` chunk first, BGRA premultiplied, raw deflate.
        case cgbi
        /// Plain PNG: RGBA straight alpha, zlib-wrapped.
        case standard
    }

    public var flavor: Flavor
    /// 6 (RGBA) or 2 (RGB, alpha dropped).
    public var colorType: UInt8 = 6
    public var interlaced = false
    /// Filter types used for successive rows (all passes, in order), cycling; values above 4 make
    /// an invalid file on purpose.
    public var filters: [UInt8] = [0, 1, 2, 3, 4]
    /// The CgBI chunk payload as a big-endian integer.
    public var cgbiFlags: UInt32 = 0x5000_2002
    /// Overrides the flavor's framing: true for zlib-wrapped, false for raw deflate.
    public var zlibWrapped: Bool?
    /// Split the compressed stream into IDAT chunks of at most this many bytes.
    public var maximumIDATLength = Int.max
    /// Write an Apple-style iDOT chunk and flush the deflate stream halfway down the image, with
    /// each half in its own IDAT (what Apple's tools do for parallel decoding).
    public var appleIDOT = false
    /// Extra chunks (type, payload) written between IHDR and the image data.
    public var chunksBeforeImageData: [(String, [UInt8])] = []
    /// Extra chunks written after the image data.
    public var chunksAfterImageData: [(String, [UInt8])] = []
    /// Overrides IHDR's width and height (for files that lie about their size).
    public var declaredSize: (width: Int, height: Int)?

    public init(_ flavor: Flavor) {
        self.flavor = flavor
    }

    /// `c·a/255` rounded to nearest, what premultiplication stores.
    public static func premultiply(_ value: UInt8, alpha: UInt8) -> UInt8 {
        UInt8((UInt32(value) * UInt32(alpha) + 127) / 255)
    }

    /// The stored samples of one pixel in file order.
    public func storedPixel(_ rgba: [UInt8], _ index: Int) -> [UInt8] {
        let red = rgba[index * 4], green = rgba[index * 4 + 1], blue = rgba[index * 4 + 2], alpha = rgba[index * 4 + 3]
        switch (flavor, colorType) {
        case (.cgbi, 6):
            return [Self.premultiply(blue, alpha: alpha), Self.premultiply(green, alpha: alpha), Self.premultiply(red, alpha: alpha), alpha]
        case (.cgbi, _):
            return [blue, green, red]
        case (.standard, 6):
            return [red, green, blue, alpha]
        case (.standard, _):
            return [red, green, blue]
        }
    }

    /// The file. `rgba` holds `width × height` straight RGBA pixels.
    public func encode(rgba: [UInt8], width: Int, height: Int) -> [UInt8] {
        precondition(rgba.count == width * height * 4, "test image size mismatch")
        let channels = colorType == 6 ? 4 : 3
        // Raw scanlines per pass, filtered with the requested types.
        let passes: [(Int, Int, Int, Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var scanlines: [UInt8] = []
        var rowCounter = 0
        var halfwayOffset: Int?
        for (x0, y0, dx, dy) in passes {
            var previous: [UInt8]?
            for y in stride(from: y0, to: height, by: dy) {
                var row: [UInt8] = []
                for x in stride(from: x0, to: width, by: dx) {
                    row += storedPixel(rgba, y * width + x)
                }
                if row.isEmpty { continue }
                if !interlaced, y == height / 2, height > 1 { halfwayOffset = scanlines.count }
                let filter = filters.isEmpty ? 0 : filters[rowCounter % filters.count]
                rowCounter += 1
                scanlines.append(filter)
                scanlines += Self.filter(row, previous: previous ?? [UInt8](repeating: 0, count: row.count), type: filter, unit: channels)
                previous = row
            }
        }

        let wrapped = zlibWrapped ?? (flavor == .standard)
        var streams: [[UInt8]]
        if appleIDOT, let halfway = halfwayOffset {
            streams = Self.deflate(scanlines, zlib: wrapped, flushAt: halfway)
        } else {
            streams = [Self.deflate(scanlines, zlib: wrapped, flushAt: nil).joined().map { $0 }]
        }
        var idats: [[UInt8]] = []
        for stream in streams {
            var start = 0
            repeat {
                let end = min(stream.count, start + max(1, maximumIDATLength))
                idats.append(Array(stream[start..<end]))
                start = end
            } while start < stream.count
        }

        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if flavor == .cgbi {
            Self.appendChunk("CgBI", Self.be32(cgbiFlags), to: &file)
        }
        let size = declaredSize ?? (width, height)
        Self.appendChunk("IHDR", Self.be32(UInt32(size.width)) + Self.be32(UInt32(size.height)) + [8, colorType, 0, 0, interlaced ? 1 : 0], to: &file)
        for (type, data) in chunksBeforeImageData {
            Self.appendChunk(type, data, to: &file)
        }
        if appleIDOT {
            // u32 sections, u32 0, then per section (first row, rows, IDAT offset from iDOT start).
            let iDOTStart = file.count
            let iDOTLength = 12 + 28
            let firstIDAT = iDOTLength
            let secondIDAT = firstIDAT + 12 + (streams.first?.count ?? 0)
            let top = height / 2
            let payload = Self.be32(2) + Self.be32(0) + Self.be32(UInt32(top)) + Self.be32(UInt32(firstIDAT))
                + Self.be32(UInt32(top)) + Self.be32(UInt32(height - top)) + Self.be32(UInt32(secondIDAT))
            Self.appendChunk("iDOT", payload, to: &file)
            precondition(file.count - iDOTStart == iDOTLength)
        }
        for idat in idats {
            Self.appendChunk("IDAT", idat, to: &file)
        }
        for (type, data) in chunksAfterImageData {
            Self.appendChunk(type, data, to: &file)
        }
        Self.appendChunk("IEND", [], to: &file)
        return file
    }

    // MARK: Pieces, written from the PNG specification

    public static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    public static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
    }

    public static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        file += be32(UInt32(data.count)) + typeBytes + data + be32(crc(typeBytes + data))
    }

    public static func filter(_ row: [UInt8], previous: [UInt8], type: UInt8, unit: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: row.count)
        for i in 0..<row.count {
            let a = i >= unit ? Int(row[i - unit]) : 0
            let b = Int(previous[i])
            let c = i >= unit ? Int(previous[i - unit]) : 0
            let predictor: Int
            switch type {
            case 0: predictor = 0
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            case 4:
                let p = a + b - c
                let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            default: predictor = 0
            }
            out[i] = UInt8((Int(row[i]) - predictor) & 0xFF)
        }
        return out
    }

    /// Compresses `data`; with `flushAt`, does a full flush there and returns the two halves.
    public static func deflate(_ data: [UInt8], zlib: Bool, flushAt: Int?) -> [[UInt8]] {
        var stream = z_stream()
        let status = deflateInit2_(&stream, 9, Z_DEFLATED, zlib ? 15 : -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed")
        defer { deflateEnd(&stream) }
        var pieces: [[UInt8]] = []
        let cuts = flushAt.map { [($0, Z_FULL_FLUSH), (data.count, Z_FINISH)] } ?? [(data.count, Z_FINISH)]
        var start = 0
        for (end, mode) in cuts {
            var input = Array(data[start..<end])
            var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
            let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_in = inBuffer.baseAddress
                    stream.avail_in = UInt32(inBuffer.count)
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let result = CZlib.deflate(&stream, mode)
                    precondition(result == Z_OK || result == Z_STREAM_END, "deflate failed")
                    return outBuffer.count - Int(stream.avail_out)
                }
            }
            pieces.append(Array(output.prefix(produced)))
            start = end
        }
        return pieces
    }
}

/// Deterministic test pictures with every kind of alpha.
public enum SyntheticImage {
    /// Gradients and a checker pattern; alpha covers 0, 255 and everything between, and colour
    /// channels differ from each other so a red/blue swap is visible.
    public static func rgba(width: Int, height: Int, seed: UInt32 = 1) -> [UInt8] {
        var state = seed &* 2_654_435_761 | 1
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                let noise = UInt8(truncatingIfNeeded: state)
                let index = (y * width + x) * 4
                pixels[index] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1)) ^ (noise & 0x0F)
                pixels[index + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                pixels[index + 2] = UInt8(truncatingIfNeeded: (x + y) * 7) &+ (noise >> 5)
                let alpha: UInt8
                switch (x / 3 + y / 3) % 4 {
                case 0: alpha = 255
                case 1: alpha = 0
                case 2: alpha = noise
                default: alpha = UInt8(truncatingIfNeeded: (x * 13 + y * 29) % 256)
                }
                pixels[index + 3] = alpha
            }
        }
        return pixels
    }
}
