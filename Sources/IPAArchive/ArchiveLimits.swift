/// Resource limits applied before an archive is trusted. Inputs above them are refused (exit 65)
/// rather than processed slowly or allowed to fill memory or disk.
public struct ArchiveLimits: Sendable, Equatable {
    /// Most entries an archive may have. Large real apps have tens of thousands.
    public var maximumEntries: Int
    /// Most bytes all entries may expand to, as declared in the central directory.
    public var maximumTotalUncompressedSize: UInt64
    /// Largest uncompressed/compressed ratio allowed for an entry of at least
    /// `ratioCheckMinimumSize` bytes. Deflate cannot exceed about 1032:1, so only near-empty
    /// content trips the default.
    public var maximumExpansionRatio: UInt64
    /// Entries smaller than this are never judged by their ratio.
    public var ratioCheckMinimumSize: UInt64

    public init(
        maximumEntries: Int = 250_000,
        maximumTotalUncompressedSize: UInt64 = 16 << 30,
        maximumExpansionRatio: UInt64 = 1_000,
        ratioCheckMinimumSize: UInt64 = 1 << 20
    ) {
        self.maximumEntries = maximumEntries
        self.maximumTotalUncompressedSize = maximumTotalUncompressedSize
        self.maximumExpansionRatio = maximumExpansionRatio
        self.ratioCheckMinimumSize = ratioCheckMinimumSize
    }

    public static let `default` = ArchiveLimits()
}
