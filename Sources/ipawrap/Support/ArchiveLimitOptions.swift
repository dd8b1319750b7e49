import ArgumentParser
import Foundation
import Zip

/// Resource limits shared by every command that opens an archive. An input above them is refused
/// (exit 65), not processed slowly. Each takes the next argument as its value even when it starts
/// with `-` (`.unconditional`), so `--time-limit -1` is refused for what it says, not as a
/// missing value.
struct ArchiveLimitOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Refuse archives with more entries than this.")
    var maxEntries: Int = ArchiveLimits.default.maximumEntries

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Refuse archives that expand to more than this in all (bytes, or with K, M, G: 16G).", valueName: "size"))
    var maxTotalSize: ByteCount = ByteCount(ArchiveLimits.default.maximumTotalUncompressedSize)

    @Option(parsing: .unconditional, help: "Refuse entries of 1 MiB or more that expand more than this many times (zip bombs).")
    var maxRatio: UInt64 = ArchiveLimits.default.maximumExpansionRatio

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Refuse an input that needs more memory than this for one entry or decoded image (bytes, or with K, M, G).",
        valueName: "size"))
    var maxMemory: ByteCount = ByteCount(ArchiveLimits.default.maximumMemory)

    @Option(parsing: .unconditional, help: ArgumentHelp("Refuse an input whose processing takes longer than this.", valueName: "seconds"))
    var timeLimit: Double = ArchiveLimits.default.maximumSeconds

    var limits: ArchiveLimits {
        ArchiveLimits(
            maximumEntries: maxEntries, maximumTotalUncompressedSize: maxTotalSize.bytes, maximumExpansionRatio: maxRatio,
            maximumMemory: maxMemory.bytes, maximumSeconds: timeLimit)
    }

    func validate() throws {
        guard maxEntries > 0 else { throw ValidationError("--max-entries must be at least 1") }
        guard timeLimit > 0, timeLimit.isFinite else {
            throw ValidationError("--time-limit must be a positive number of seconds")
        }
    }
}

/// A size on the command line: bytes, or a number with a binary unit (`512K`, `64M`, `16G`,
/// also `KiB`, `MiB`, `GiB`).
struct ByteCount: ExpressibleByArgument, Equatable {
    var bytes: UInt64

    init(_ bytes: UInt64) {
        self.bytes = bytes
    }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = UInt64(digits) else { return nil }
        let shift: UInt64
        switch text.dropFirst(digits.count).uppercased() {
        case "", "B": shift = 0
        case "K", "KB", "KIB": shift = 10
        case "M", "MB", "MIB": shift = 20
        case "G", "GB", "GIB": shift = 30
        case "T", "TB", "TIB": shift = 40
        default: return nil
        }
        let (scaled, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
        guard !overflow else { return nil }
        bytes = scaled
    }

    var defaultValueDescription: String {
        for (unit, shift) in [("G", UInt64(30)), ("M", 20), ("K", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }
}
