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

    /// `instructions` arm64-like instructions of four kinds with pseudo-random operands: bytes that
    /// deflate as code does, to about half, in blocks of tens of KB (what `Scripts/make-bench-ipa
    /// --code-executable` writes too).
    public static func code(instructions: Int, seed: UInt64) -> [UInt8] {
        let operands = bytes(2 * instructions, seed: seed)
        return (0..<instructions).flatMap { index in
            let (low, high) = (operands[2 * index], operands[2 * index + 1])
            return [low, high & 0x1F, 0x80 | (high >> 7), [0xD2, 0x91, 0xF9, 0xAA][Int(high >> 5) & 3]]
        }
    }
}
