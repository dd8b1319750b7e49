import Foundation

/// Equality of two byte runs in one `memcmp`: archive names are compared for every entry, and
/// an element-by-element comparison costs far more, in debug builds most of all.
public enum ByteComparison {
    public static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return memcmp(left, right, lhs.count) == 0
    }

    public static func equal(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        lhs.withUnsafeBufferPointer { left in rhs.withUnsafeBufferPointer { right in equal(left, right) } }
    }
}

/// The two orders of names the formats need, fast: sorting an app's few thousand paths with the
/// standard library's element-by-element comparison of `utf8` or `utf16` views took 20 ms of
/// `sign`'s start on one core. Both compare the UTF-8 bytes in place.
extension String {
    /// Byte order of the UTF-8 encodings (which is code point order).
    public func precedesInUTF8Order(_ other: String) -> Bool {
        guard let (left, right) = Self.firstDifferingBytes(self, other) else { return utf8.count < other.utf8.count }
        return left < right
    }

    /// Order by UTF-16 code units, as Core Foundation sorts dictionary keys and as `codesign`
    /// lists resources. It is UTF-8 order except where a character from U+E000 to U+FFFF meets
    /// one above U+FFFF (a surrogate pair sorts lower): where the first difference is not an ASCII
    /// byte on both sides, the UTF-16 views decide.
    public func precedesInUTF16Order(_ other: String) -> Bool {
        // A proper prefix in UTF-8 is one in UTF-16 too: it ends at a character's end.
        guard let (left, right) = Self.firstDifferingBytes(self, other) else { return utf8.count < other.utf8.count }
        guard left < 0x80 && right < 0x80 else { return utf16.lexicographicallyPrecedes(other.utf16) }
        return left < right
    }

    /// The first bytes at which the two UTF-8 encodings differ; nil when one is a prefix of the
    /// other.
    private static func firstDifferingBytes(_ lhs: String, _ rhs: String) -> (UInt8, UInt8)? {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = Swift.min(left.count, right.count)
                var index = 0
                // Eight bytes at a time while they agree.
                if let leftBase = left.baseAddress, let rightBase = right.baseAddress {
                    while index + 8 <= common,
                        UnsafeRawPointer(leftBase + index).loadUnaligned(as: UInt64.self)
                            == UnsafeRawPointer(rightBase + index).loadUnaligned(as: UInt64.self)
                    {
                        index += 8
                    }
                }
                while index < common {
                    if left[index] != right[index] { return (left[index], right[index]) }
                    index += 1
                }
                return nil
            }
        }
    }
}
