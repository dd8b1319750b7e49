/// An 8-bit-per-channel image with straight (not premultiplied) alpha, rows top to bottom,
/// pixels as R, G, B, A. This is what every decoder in the toolkit produces (standard PNG, CgBI,
/// asset-catalog renditions) and what the PNG encoder writes.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes.
    public let pixels: [UInt8]

    /// Fails unless `pixels.count == width * height * 4` and both dimensions are positive.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0 else { return nil }
        let (area, overflowArea) = width.multipliedReportingOverflow(by: height)
        let (byteCount, overflowBytes) = area.multipliedReportingOverflow(by: 4)
        guard !overflowArea, !overflowBytes, pixels.count == byteCount else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Converts rows of premultiplied B, G, R, A pixels (what CgBI PNGs and CoreUI `ARGB`
    /// renditions store) into straight RGBA.
    ///
    /// - Parameter bytesPerRow: the stride of `bgra`, at least `width * 4` (CoreUI pads rows).
    public init?(premultipliedBGRA bgra: [UInt8], width: Int, height: Int, bytesPerRow: Int) {
        guard width > 0, height > 0, bytesPerRow >= width &* 4 else { return nil }
        let (needed, overflow) = bytesPerRow.multipliedReportingOverflow(by: height)
        guard !overflow, bgra.count >= needed, width <= Int.max / 4 else { return nil }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        bgra.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for row in 0..<height {
                    var from = row * bytesPerRow
                    var to = row * width * 4
                    for _ in 0..<width {
                        let alpha = source[from + 3]
                        target[to] = Self.unpremultiply(source[from + 2], alpha: alpha)
                        target[to + 1] = Self.unpremultiply(source[from + 1], alpha: alpha)
                        target[to + 2] = Self.unpremultiply(source[from], alpha: alpha)
                        target[to + 3] = alpha
                        from += 4
                        to += 4
                    }
                }
            }
        }
        self.width = width
        self.height = height
        self.pixels = out
    }

    /// Undoes `c' = c·a/255`, rounding to nearest; a fully transparent pixel becomes black.
    @inlinable
    public static func unpremultiply(_ value: UInt8, alpha: UInt8) -> UInt8 {
        if alpha == 255 { return value }
        if alpha == 0 { return 0 }
        let restored = (UInt32(value) * 255 + UInt32(alpha) / 2) / UInt32(alpha)
        return UInt8(min(restored, 255))
    }
}
