/// Reproducible pseudo-random bytes (a 64-bit linear congruential generator's high byte), which
/// deflate cannot shrink: the content of an encrypted executable or of a stored entry.
public enum Noise {
    public static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }
}
