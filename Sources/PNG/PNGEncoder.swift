import FormatSupport

/// Writes standard, non-interlaced, 8-bit PNGs from `RGBAImage`.
///
/// The output is deterministic: the same image and options give the same bytes (for a given zlib
/// build). Encoding cannot fail, except when given a `WorkClock` whose deadline passes (checked
/// per row and per MiB compressed); if zlib cannot even start, the data is stored uncompressed.
public enum PNGEncoder {
    public struct Options: Sendable {
        public enum ColorType: Sendable {
            /// Colour type 6, four samples per pixel.
            case rgba
            /// Colour type 2; alpha is dropped. Use it only for opaque images, or together with a
            /// tRNS chunk that says which colour is transparent.
            case rgb
            /// `.rgb` when every pixel is opaque, otherwise `.rgba`.
            case automatic
        }

        public enum FilterStrategy: Sendable, Equatable {
            /// Per row, the filter whose output has the smallest sum of absolute byte values (the
            /// heuristic the PNG specification suggests and libpng uses).
            case adaptive
            /// The same filter on every row.
            case fixed(PNGFilterType)
        }

        public var colorType: ColorType
        public var filter: FilterStrategy
        /// zlib level, 0 (store) to 9 (smallest).
        public var compressionLevel: Int
        /// Ancillary chunks to write between IHDR and the image data, in order. Critical chunks
        /// here are skipped: the encoder writes IHDR, IDAT and IEND itself.
        public var chunksBeforeImageData: [PNGChunk]
        /// Ancillary chunks to write after the image data (text, tIME, eXIf may go there).
        public var chunksAfterImageData: [PNGChunk]

        public init(colorType: ColorType = .rgba, filter: FilterStrategy = .adaptive, compressionLevel: Int = 6,
                    chunksBeforeImageData: [PNGChunk] = [], chunksAfterImageData: [PNGChunk] = []) {
            self.colorType = colorType
            self.filter = filter
            self.compressionLevel = compressionLevel
            self.chunksBeforeImageData = chunksBeforeImageData
            self.chunksAfterImageData = chunksAfterImageData
        }
    }

    /// IDAT payloads are split at this size; any size is valid, 1 MiB keeps chunks modest.
    static let maximumImageDataChunk = 1 << 20

    /// An RGBA (colour type 6) PNG with adaptive filtering at zlib level 6.
    public static func encode(_ image: RGBAImage) -> [UInt8] {
        encode(image, options: Options())
    }

    public static func encode(_ image: RGBAImage, options: Options) -> [UInt8] {
        encode(image, options: options, tick: { (_: Int) in })
    }

    /// `encode(_:options:)` under the time limit of the input the image came from:
    /// `ARCHIVE_TIME_LIMIT` once `clock`'s deadline has passed.
    public static func encode(_ image: RGBAImage, options: Options = Options(), clock: WorkClock) throws(PNGError) -> [UInt8] {
        var clock = clock
        return try encode(image, options: options) { (units: Int) throws(PNGError) in
            if clock.isExpired(after: units) { throw PNGError(.timeLimit, clock.timeLimitMessage) }
        }
    }

    /// The encoder, told each unit of work (a row's bytes, a piece of compressed input) through
    /// `tick`, which may stop it by throwing.
    private static func encode<Failure: Error>(
        _ image: RGBAImage, options: Options, tick: (Int) throws(Failure) -> Void
    ) throws(Failure) -> [UInt8] {
        let opaque: Bool
        switch options.colorType {
        case .rgba: opaque = false
        case .rgb: opaque = true
        case .automatic: opaque = stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        }
        let channels = opaque ? 3 : 4
        let scanlines = try filteredScanlines(image, channels: channels, strategy: options.filter, tick: tick)
        let compressed = try ImageDataDeflater.deflate(
            scanlines, level: Int32(min(max(options.compressionLevel, 0), 9)), tick: tick)

        var output = PNGHeader.signature
        output.reserveCapacity(compressed.count + 1024)
        let width = UInt32(clamping: image.width), height = UInt32(clamping: image.height)
        var ihdr: [UInt8] = []
        for value in [width, height] {
            ihdr.append(contentsOf: [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                                     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
        }
        ihdr.append(contentsOf: [8, opaque ? PNGColorType.rgb.rawValue : PNGColorType.rgba.rawValue, 0, 0, 0])
        PNGChunk(type: .IHDR, data: ihdr).write(to: &output)
        for chunk in options.chunksBeforeImageData where !chunk.type.isCritical {
            chunk.write(to: &output)
        }
        var start = 0
        repeat {
            let end = min(start + maximumImageDataChunk, compressed.count)
            PNGChunk(type: .IDAT, data: compressed[start..<end]).write(to: &output)
            start = end
        } while start < compressed.count
        for chunk in options.chunksAfterImageData where !chunk.type.isCritical {
            chunk.write(to: &output)
        }
        PNGChunk(type: .IEND, data: []).write(to: &output)
        return output
    }

    /// Rows of `channels`-byte pixels, each preceded by its filter type.
    private static func filteredScanlines<Failure: Error>(
        _ image: RGBAImage, channels: Int, strategy: Options.FilterStrategy, tick: (Int) throws(Failure) -> Void
    ) throws(Failure) -> [UInt8] {
        let width = image.width, height = image.height
        let rowBytes = width * channels
        let total = height * (rowBytes + 1)
        let zero = [UInt8](repeating: 0, count: rowBytes)
        var rows = [UInt8](repeating: 0, count: height * rowBytes)
        if channels == 4 {
            rows = image.pixels
        } else {
            for pixel in 0..<(width * height) {
                rows[pixel * 3] = image.pixels[pixel * 4]
                rows[pixel * 3 + 1] = image.pixels[pixel * 4 + 1]
                rows[pixel * 3 + 2] = image.pixels[pixel * 4 + 2]
            }
        }
        var candidate = [UInt8](repeating: 0, count: rowBytes)
        var stopped: Failure?
        let scanlines = [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
            rows.withUnsafeBufferPointer { source in
                zero.withUnsafeBufferPointer { zeroRow in
                    candidate.withUnsafeMutableBufferPointer { trial in
                        guard let source = source.baseAddress, let zeroRow = zeroRow.baseAddress,
                              let trial = trial.baseAddress, let out = output.baseAddress else { return }
                        for row in 0..<height {
                            do throws(Failure) {
                                // Adaptive filtering tries all five filters: five times the row.
                                try tick(strategy == .adaptive ? rowBytes * 5 : rowBytes)
                            } catch {
                                stopped = error
                                return
                            }
                            let current = source + row * rowBytes
                            let previous = row == 0 ? zeroRow : source + (row - 1) * rowBytes
                            let target = out + row * (rowBytes + 1)
                            var chosen = PNGFilterType.none
                            if case .fixed(let filter) = strategy {
                                chosen = filter
                            } else {
                                var best = Int.max
                                for filter in PNGFilterType.allCases {
                                    ScanlineLayout.filterRow(current, previous: previous, count: rowBytes, unit: channels, filter: filter, into: trial)
                                    var cost = 0
                                    for index in 0..<rowBytes {
                                        let value = Int(Int8(bitPattern: trial[index]))
                                        cost += value < 0 ? -value : value
                                    }
                                    if cost < best {
                                        best = cost
                                        chosen = filter
                                    }
                                }
                            }
                            target[0] = chosen.rawValue
                            ScanlineLayout.filterRow(current, previous: previous, count: rowBytes, unit: channels, filter: chosen, into: target + 1)
                        }
                    }
                }
            }
            initialized = stopped == nil ? total : 0
        }
        if let stopped { throw stopped }
        return scanlines
    }
}
