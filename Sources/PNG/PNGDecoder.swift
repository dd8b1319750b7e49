import FormatSupport
/// A decoded PNG or CgBI image and what the file said about it.
public struct DecodedPNG: Sendable {
    /// Straight-alpha RGBA8: 16-bit samples are rounded to 8 bits, palettes and low bit depths
    /// expanded, tRNS applied, and CgBI pixels swapped to RGBA and un-premultiplied.
    public let image: RGBAImage
    /// The file's chunks, including the ancillary ones a conversion may keep.
    public let datastream: PNGDatastream
    /// Checksums that failed but were tolerated (chunk CRCs and the zlib Adler-32).
    public let checksumMismatches: [PNGChecksumMismatch]

    public var header: PNGHeader { datastream.header }
    /// True when the file was an Apple CgBI PNG.
    public var isCgBI: Bool { header.isCgBI }
    /// The colour type the file stored, before expansion to RGBA.
    public var colorType: PNGColorType { header.colorType }
}

/// Decodes standard PNGs (every colour type and bit depth the specification allows, interlaced or
/// not) and Apple CgBI PNGs (8-bit RGB or RGBA, interlaced or not) into `RGBAImage`.
///
/// CgBI is decoded in the only order that is correct: join every IDAT, inflate (raw deflate, or
/// zlib if the stream has a zlib header), undo the scanline filters on the stored BGRA bytes,
/// then swap to RGBA and un-premultiply. Swapping before unfiltering corrupts every row whose
/// filter is Sub, Up, Average or Paeth.
public enum PNGDecoder {
    /// Decodes a whole file. Throws `PNGError` for anything malformed, over `limits`, or with a
    /// bad checksum under `checksums`.
    public static func decode(_ bytes: [UInt8], limits: PNGLimits = .default, checksums: PNGChecksumPolicy = .verifyAll) throws(PNGError) -> DecodedPNG {
        let datastream = try PNGDatastream(bytes: bytes, checksums: checksums)
        return try decode(datastream, limits: limits, checksums: checksums)
    }

    /// Decodes an already walked datastream.
    public static func decode(_ datastream: PNGDatastream, limits: PNGLimits = .default, checksums: PNGChecksumPolicy = .verifyAll) throws(PNGError) -> DecodedPNG {
        let header = datastream.header
        try limits.check(header)
        if header.isCgBI {
            guard header.bitDepth == 8, header.colorType == .rgb || header.colorType == .rgba else {
                throw PNGError(.unsupported, "CgBI images must be 8-bit RGB or RGBA; this one is \(header.bitDepth)-bit colour type \(header.colorType.rawValue)")
            }
        }
        let imageData = datastream.imageDataChunks
        guard let firstImageData = imageData.first else {
            throw PNGError(.noImageData, "the file has no IDAT chunk, so there is no image")
        }
        let firstOffset = firstImageData.offset ?? 0
        let pixels = try PixelLayout(datastream)
        let layout = try ScanlineLayout(width: header.width, height: header.height,
                                        bitsPerPixel: header.bitsPerPixel, interlaced: header.isInterlaced)
        let (outputCount, overflow) = header.pixelCount.multipliedReportingOverflow(by: 4)
        guard !overflow else {
            throw PNGError(.dimensions, "a \(header.width)×\(header.height) image is too large to address")
        }

        let inflated = try inflateImageData(
            datastream, imageData: imageData, expectedSize: layout.totalBytes, firstOffset: firstOffset, clock: limits.clock)
        var mismatches = datastream.checksumMismatches
        if inflated.adlerMismatch {
            guard checksums == .ignore else {
                throw PNGError(.crcMismatch, at: firstOffset, "the Adler-32 checksum at the end of the image data does not match the inflated bytes")
            }
            mismatches.append(PNGChecksumMismatch(kind: .adler32, offset: firstOffset))
        }

        var raw = inflated.bytes
        let rgba = try raw.withUnsafeMutableBufferPointer { (data: inout UnsafeMutableBufferPointer<UInt8>) throws(PNGError) -> [UInt8] in
            guard let base = data.baseAddress else {
                throw PNGError(.noImageData, at: firstOffset, "the image data is empty")
            }
            try layout.unfilter(base, dataOffset: firstOffset, clock: limits.clock)
            return try pixels.expand(
                UnsafePointer(base), layout: layout, width: header.width, height: header.height, outputCount: outputCount,
                clock: limits.clock)
        }
        guard let image = RGBAImage(width: header.width, height: header.height, pixels: rgba) else {
            throw PNGError(.dimensions, "a \(header.width)×\(header.height) image is too large to address")
        }
        return DecodedPNG(image: image, datastream: datastream, checksumMismatches: mismatches)
    }

    /// Standard PNGs are zlib streams. CgBI files are raw deflate as a rule, but some carry a
    /// zlib header: try the framing the data looks like first, then the other one.
    private static func inflateImageData(
        _ datastream: PNGDatastream, imageData: [PNGChunk], expectedSize: Int, firstOffset: Int, clock: WorkClock
    ) throws(PNGError) -> InflatedImageData {
        let ranges = imageData.map { $0.data.startIndex..<$0.data.endIndex }
        var framings: [DeflateFraming] = [.zlib]
        if let flags = datastream.header.cgbiFlags {
            var leading: [UInt8] = []
            for chunk in imageData where leading.count < 2 {
                leading.append(contentsOf: chunk.data.prefix(2 - leading.count))
            }
            let zlibHeader = leading.count == 2 && DeflateFraming.looksLikeZlibHeader(leading[0], leading[1])
            framings = !zlibHeader ? [.raw] : flags.declaresRawDeflate ? [.raw, .zlib] : [.zlib, .raw]
        }
        var firstError: PNGError?
        for framing in framings {
            do {
                return try ImageDataInflater.inflate(file: datastream.file, ranges: ranges, framing: framing,
                                                     expectedSize: expectedSize, firstChunkOffset: firstOffset, clock: clock)
            } catch let error where error.reason == .inflate || error.reason == .dataSize {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? PNGError(.inflate, at: firstOffset, "the image data could not be inflated")
    }
}

/// How one stored pixel becomes RGBA8.
enum PixelLayout {
    case gray(depth: Int, key: UInt16?)
    case grayAlpha(depth: Int)
    case rgb(depth: Int, key: (UInt16, UInt16, UInt16)?)
    case rgba(depth: Int)
    /// 256 RGBA entries; indices past the palette read as opaque black, as libpng does.
    case indexed(depth: Int, table: [UInt8])
    case cgbiBGR(key: (UInt16, UInt16, UInt16)?)
    case cgbiBGRA

    init(_ datastream: PNGDatastream) throws(PNGError) {
        let header = datastream.header
        let depth = header.bitDepth
        let transparency = datastream.transparency.map { Array($0.data) }
        func key16(_ bytes: [UInt8], _ index: Int) -> UInt16 {
            UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        }
        // A tRNS of the wrong length is ignored, as libpng does.
        var rgbKey: (UInt16, UInt16, UInt16)?
        if let transparency, transparency.count == 6 {
            rgbKey = (key16(transparency, 0), key16(transparency, 2), key16(transparency, 4))
        }
        switch header.colorType {
        case .grayscale:
            var key: UInt16?
            if let transparency, transparency.count == 2 { key = key16(transparency, 0) }
            self = .gray(depth: depth, key: key)
        case .grayscaleAlpha:
            self = .grayAlpha(depth: depth)
        case .rgb:
            self = header.isCgBI ? .cgbiBGR(key: rgbKey) : .rgb(depth: depth, key: rgbKey)
        case .rgba:
            self = header.isCgBI ? .cgbiBGRA : .rgba(depth: depth)
        case .indexed:
            guard let palette = datastream.palette else {
                throw PNGError(.palette, "the image uses a palette but has no PLTE chunk")
            }
            let entries = palette.data.count / 3
            guard palette.data.count % 3 == 0, (1...256).contains(entries) else {
                throw PNGError(.palette, at: palette.offset, "PLTE is \(palette.data.count) bytes long; it must hold 1 to 256 three-byte entries")
            }
            var table = [UInt8](repeating: 0, count: 256 * 4)
            let colours = Array(palette.data)
            for entry in 0..<256 {
                table[entry * 4 + 3] = 255
                if entry < entries {
                    table[entry * 4] = colours[entry * 3]
                    table[entry * 4 + 1] = colours[entry * 3 + 1]
                    table[entry * 4 + 2] = colours[entry * 3 + 2]
                }
            }
            if let transparency {
                for (entry, alpha) in transparency.prefix(entries).enumerated() {
                    table[entry * 4 + 3] = alpha
                }
            }
            self = .indexed(depth: depth, table: table)
        }
    }

    /// Converts unfiltered scanlines (filter bytes still in place) into a `width × height` RGBA8
    /// buffer of `outputCount` bytes, checking `clock` per row.
    func expand(
        _ data: UnsafePointer<UInt8>, layout: ScanlineLayout, width: Int, height: Int, outputCount: Int, clock: WorkClock
    ) throws(PNGError) -> [UInt8] {
        var clock = clock
        var expired = false
        let rgba = [UInt8](unsafeUninitializedCapacity: outputCount) { output, initialized in
            guard let out = output.baseAddress else { return }
            let interlaced = layout.passes.count > 1 || layout.passes.first?.xStep != 1
            let widest = layout.passes.map(\.width).max() ?? 0
            var rowBuffer = [UInt8](repeating: 0, count: interlaced ? widest * 4 : 0)
            rowBuffer.withUnsafeMutableBufferPointer { scratch in
                for pass in layout.passes {
                    for row in 0..<pass.height {
                        if clock.isExpired(after: pass.width * 4) {
                            expired = true
                            return
                        }
                        let source = data + pass.offset + row * (pass.rowBytes + 1) + 1
                        let imageRow = pass.yStart + row * pass.yStep
                        if !interlaced {
                            convertRow(source, count: pass.width, into: out + imageRow * width * 4)
                            continue
                        }
                        guard let temporary = scratch.baseAddress else { continue }
                        convertRow(source, count: pass.width, into: temporary)
                        let rowStart = out + imageRow * width * 4
                        for column in 0..<pass.width {
                            let target = rowStart + (pass.xStart + column * pass.xStep) * 4
                            let from = temporary + column * 4
                            target[0] = from[0]
                            target[1] = from[1]
                            target[2] = from[2]
                            target[3] = from[3]
                        }
                    }
                }
            }
            // Every pixel belongs to exactly one pass, so all of `output` has been written
            // (unless the deadline stopped the loop).
            initialized = expired ? 0 : outputCount
        }
        if expired { throw PNGError(.timeLimit, clock.timeLimitMessage) }
        return rgba
    }

    private func convertRow(_ source: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        switch self {
        case .cgbiBGRA:
            let table = unpremultiplyTable
            table.withUnsafeBufferPointer { lookup in
                guard let lookup = lookup.baseAddress else { return }
                for pixel in 0..<count {
                    let from = source + pixel * 4
                    let to = out + pixel * 4
                    let alpha = Int(from[3]) << 8
                    to[0] = lookup[alpha | Int(from[2])]
                    to[1] = lookup[alpha | Int(from[1])]
                    to[2] = lookup[alpha | Int(from[0])]
                    to[3] = from[3]
                }
            }
        case .cgbiBGR(let key):
            for pixel in 0..<count {
                let from = source + pixel * 3
                let to = out + pixel * 4
                to[0] = from[2]
                to[1] = from[1]
                to[2] = from[0]
                to[3] = key.map { UInt16(from[2]) == $0.0 && UInt16(from[1]) == $0.1 && UInt16(from[0]) == $0.2 ? 0 : 255 } ?? 255
            }
        case .rgba(depth: 8):
            out.update(from: source, count: count * 4)
        case .rgba:
            for pixel in 0..<count {
                let from = source + pixel * 8
                let to = out + pixel * 4
                for channel in 0..<4 {
                    to[channel] = scale16(from + channel * 2)
                }
            }
        case .rgb(depth: 8, let key):
            for pixel in 0..<count {
                let from = source + pixel * 3
                let to = out + pixel * 4
                to[0] = from[0]
                to[1] = from[1]
                to[2] = from[2]
                to[3] = key.map { UInt16(from[0]) == $0.0 && UInt16(from[1]) == $0.1 && UInt16(from[2]) == $0.2 ? 0 : 255 } ?? 255
            }
        case .rgb(_, let key):
            for pixel in 0..<count {
                let from = source + pixel * 6
                let to = out + pixel * 4
                let red = read16(from), green = read16(from + 2), blue = read16(from + 4)
                to[0] = scale16(from)
                to[1] = scale16(from + 2)
                to[2] = scale16(from + 4)
                to[3] = key.map { red == $0.0 && green == $0.1 && blue == $0.2 ? 0 : 255 } ?? 255
            }
        case .grayAlpha(depth: 8):
            for pixel in 0..<count {
                let from = source + pixel * 2
                let to = out + pixel * 4
                to[0] = from[0]
                to[1] = from[0]
                to[2] = from[0]
                to[3] = from[1]
            }
        case .grayAlpha:
            for pixel in 0..<count {
                let from = source + pixel * 4
                let to = out + pixel * 4
                let gray = scale16(from)
                to[0] = gray
                to[1] = gray
                to[2] = gray
                to[3] = scale16(from + 2)
            }
        case .gray(depth: 16, let key):
            for pixel in 0..<count {
                let from = source + pixel * 2
                let to = out + pixel * 4
                let gray = scale16(from)
                to[0] = gray
                to[1] = gray
                to[2] = gray
                to[3] = read16(from) == key ? 0 : 255
            }
        case .gray(let depth, let key):
            let mask = (1 << depth) - 1
            let scale = 255 / mask
            for pixel in 0..<count {
                let sample = Self.packedSample(source, index: pixel, depth: depth, mask: mask)
                let gray = UInt8(truncatingIfNeeded: sample * scale)
                let to = out + pixel * 4
                to[0] = gray
                to[1] = gray
                to[2] = gray
                to[3] = key == UInt16(sample) ? 0 : 255
            }
        case .indexed(let depth, let table):
            let mask = (1 << depth) - 1
            table.withUnsafeBufferPointer { entries in
                guard let entries = entries.baseAddress else { return }
                for pixel in 0..<count {
                    let entry = entries + Self.packedSample(source, index: pixel, depth: depth, mask: mask) * 4
                    let to = out + pixel * 4
                    to[0] = entry[0]
                    to[1] = entry[1]
                    to[2] = entry[2]
                    to[3] = entry[3]
                }
            }
        }
    }

    /// Sample `index` of a row packed at 1, 2, 4 or 8 bits, most significant bits first.
    @inline(__always)
    private static func packedSample(_ row: UnsafePointer<UInt8>, index: Int, depth: Int, mask: Int) -> Int {
        let bit = index * depth
        let shift = 8 - depth - (bit & 7)
        return (Int(row[bit >> 3]) >> shift) & mask
    }
}

@inline(__always)
private func read16(_ bytes: UnsafePointer<UInt8>) -> UInt16 {
    UInt16(bytes[0]) << 8 | UInt16(bytes[1])
}

/// 16-bit to 8-bit with rounding (`v·255/65535`), like libpng's `png_set_scale_16`.
@inline(__always)
private func scale16(_ bytes: UnsafePointer<UInt8>) -> UInt8 {
    UInt8(truncatingIfNeeded: (UInt32(read16(bytes)) * 255 + 32_767) / 65_535)
}

/// `RGBAImage.unpremultiply` for every (alpha, value) pair, indexed by `alpha << 8 | value`.
private let unpremultiplyTable: [UInt8] = (0..<65_536).map { index in
    RGBAImage.unpremultiply(UInt8(truncatingIfNeeded: index), alpha: UInt8(truncatingIfNeeded: index >> 8))
}
