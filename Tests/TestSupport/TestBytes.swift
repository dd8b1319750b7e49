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
