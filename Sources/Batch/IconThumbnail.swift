import FormatSupport
import PNG

/// Small copies of app icons for the HTML report: a page listing hundreds of apps should not carry
/// hundreds of 1024-pixel PNGs.
public enum IconThumbnail {
    /// Longest side of a thumbnail, in pixels: 48 CSS pixels on a 2× display.
    public static let defaultSide = 96
    /// Icons with more pixels than this are not decoded for a thumbnail (a real icon has at most
    /// 1024 × 1024), which bounds the memory each job of a batch needs.
    public static let maximumSourcePixels = 2048 * 2048

    /// A standard PNG of `png` (itself a standard PNG) whose longest side is at most `side`:
    /// unchanged when it is already that small, else reduced by averaging each target pixel's
    /// source area in premultiplied alpha (so transparent edges do not darken). Decoding and
    /// encoding stop at `clock`'s deadline (`ARCHIVE_TIME_LIMIT`).
    public static func png(from png: [UInt8], side: Int = defaultSide, clock: WorkClock = .unlimited) throws(PNGError) -> [UInt8] {
        let limits = PNGLimits(maxWidth: 4096, maxHeight: 4096, maxPixelCount: maximumSourcePixels, clock: clock)
        let image = try PNGDecoder.decode(png, limits: limits, checksums: .ignore).image
        guard max(image.width, image.height) > side, let small = reduce(image, side: side) else { return png }
        return try PNGEncoder.encode(small, clock: clock)
    }

    /// The image scaled down so that its longest side is `side`, keeping its aspect ratio.
    public static func reduce(_ image: RGBAImage, side: Int) -> RGBAImage? {
        guard side > 0 else { return nil }
        let longest = max(image.width, image.height)
        guard longest > side else { return image }
        let width = max(1, image.width * side / longest)
        let height = max(1, image.height * side / longest)
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let source = image.pixels
        for y in 0..<height {
            let top = y * image.height / height
            let bottom = max(top + 1, (y + 1) * image.height / height)
            for x in 0..<width {
                let left = x * image.width / width
                let right = max(left + 1, (x + 1) * image.width / width)
                var red = 0, green = 0, blue = 0, alpha = 0
                for sy in top..<bottom {
                    var index = (sy * image.width + left) * 4
                    for _ in left..<right {
                        let a = Int(source[index + 3])
                        red += Int(source[index]) * a
                        green += Int(source[index + 1]) * a
                        blue += Int(source[index + 2]) * a
                        alpha += a
                        index += 4
                    }
                }
                let target = (y * width + x) * 4
                let area = (bottom - top) * (right - left)
                if alpha > 0 {
                    out[target] = UInt8(min(255, (red + alpha / 2) / alpha))
                    out[target + 1] = UInt8(min(255, (green + alpha / 2) / alpha))
                    out[target + 2] = UInt8(min(255, (blue + alpha / 2) / alpha))
                    out[target + 3] = UInt8(min(255, (alpha + area / 2) / area))
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}
