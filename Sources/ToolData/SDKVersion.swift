/// An SDK or toolkit version compared numerically on major.minor.patch: `20.10.5` equals
/// `20.10.05` and `20.10.5.1`, `20.10` is `20.10.0`, and `20.9.0` is older than `20.10.0`.
public struct SDKVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `X`, `X.Y`, `X.Y.Z` or longer dotted versions whose components are all decimal
    /// digits (at most 9 each, so they fit any `Int`); components after the third are ignored.
    /// Nil for anything else (`20.10.5-beta`, `v20`, an empty string).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 8 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= 9, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(part)
            else { return nil }
            numbers.append(value)
        }
        major = numbers[0]
        minor = numbers.count > 1 ? numbers[1] : 0
        patch = numbers.count > 2 ? numbers[2] : 0
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: SDKVersion, rhs: SDKVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
