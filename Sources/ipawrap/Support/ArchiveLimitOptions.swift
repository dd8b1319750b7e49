import ArgumentParser
import IPAArchive

/// Resource limits shared by every command that opens an archive.
struct ArchiveLimitOptions: ParsableArguments {
    @Option(help: "Refuse archives with more entries than this.")
    var maxEntries: Int = ArchiveLimits.default.maximumEntries

    @Option(help: ArgumentHelp("Refuse archives that expand to more than this many bytes in all.", valueName: "bytes"))
    var maxTotalSize: UInt64 = ArchiveLimits.default.maximumTotalUncompressedSize

    @Option(help: "Refuse entries of 1 MiB or more that expand more than this many times (zip bombs).")
    var maxRatio: UInt64 = ArchiveLimits.default.maximumExpansionRatio

    var limits: ArchiveLimits {
        ArchiveLimits(maximumEntries: maxEntries, maximumTotalUncompressedSize: maxTotalSize, maximumExpansionRatio: maxRatio)
    }
}
