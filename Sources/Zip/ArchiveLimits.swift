/// Resource limits applied to one input. Inputs above them are refused (exit 65) rather than
/// processed slowly or allowed to fill memory or disk.
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
    /// Most bytes of one input held in memory at once: an entry read whole (an Info.plist, a
    /// profile, an icon, `Assets.car`), and a decoded image at four bytes a pixel. Everything
    /// else is streamed. The default admits the largest real asset catalogs.
    public var maximumMemory: UInt64
    /// Most seconds the work on one input may take, from opening it. Checked between steps
    /// (every 4,096 entries validated, each bundle and check area, every 256 MiB copied), each
    /// of which is itself bounded by the other limits.
    public var maximumSeconds: Double

    public init(
        maximumEntries: Int = 250_000,
        maximumTotalUncompressedSize: UInt64 = 16 << 30,
        maximumExpansionRatio: UInt64 = 1_000,
        ratioCheckMinimumSize: UInt64 = 1 << 20,
        maximumMemory: UInt64 = 512 << 20,
        maximumSeconds: Double = 600
    ) {
        self.maximumEntries = maximumEntries
        self.maximumTotalUncompressedSize = maximumTotalUncompressedSize
        self.maximumExpansionRatio = maximumExpansionRatio
        self.ratioCheckMinimumSize = ratioCheckMinimumSize
        self.maximumMemory = maximumMemory
        self.maximumSeconds = maximumSeconds
    }

    public static let `default` = ArchiveLimits()

    /// The most pixels a decoded image may have under `maximumMemory` (RGBA, four bytes each).
    public var maximumPixels: Int {
        Int(clamping: maximumMemory / 4)
    }
}
