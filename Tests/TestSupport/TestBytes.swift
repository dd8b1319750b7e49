/// Small helpers for tests that build or mutate bytes by hand.

/// One DER element: `tag`, the definite length, `content`.
public func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8]
    if content.count < 0x80 {
        length = [UInt8(content.count)]
    } else {
        var bytes: [UInt8] = []
        var remaining = content.count
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        length = [0x80 | UInt8(bytes.count)] + bytes
    }
    return [tag] + length + content
}

/// A small deterministic generator (Vigna's SplitMix64) for repeatable mutations.
public struct SplitMix64 {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
