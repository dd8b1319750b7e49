import ArgumentParser
import Foundation
import IPAArchive
import OutputFiles
import Zip

struct RepackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repack",
        abstract: "Repack an IPA faithfully, with optional additions and removals, and no checks.",
        discussion: """
            Every entry not removed or replaced is copied byte for byte (name bytes, compressed data, \
            CRC, sizes, Unix mode, symlinks, timestamps, extra fields); nothing is recompressed. \
            Added files are deflated with mode 0644 (0755 for folders and Mach-O files) and the \
            newest timestamp already in the archive, so the same input and options give the same \
            bytes. The output appears atomically; the input is never modified.
            Exit codes: 0 written, 64 usage error (an output that is the input or a folder), 65 bad input \
            archive (or an added name over 65,535 bytes), 74 an added file unreadable or the output not written.
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to repack.")
    var ipa: String

    @Option(name: [.short, .customLong("output")], help: "Where to write the new archive.")
    var output: String

    @Option(name: .customLong("add"), help: ArgumentHelp(
        "Add or replace PATH in the archive with FILE (a file or a folder).", valueName: "PATH=FILE"),
        transform: { try KeyValueArgument(parsing: $0, form: "PATH=FILE") })
    var additions: [KeyValueArgument] = []

    @Option(name: .customLong("remove"), help: ArgumentHelp(
        "Remove PATH (a folder removes everything in it).", valueName: "PATH"))
    var removals: [String] = []

    @OptionGroup var timestamp: NewEntryTimestampOption

    @Flag(help: "Flush the output to disk before it appears (durability across power loss; slower).")
    var fsync = false

    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run() throws {
        try reportingErrors {
            let started = Date()
            // The input archive itself is refused by the writer (REPACK_OUTPUT_IS_INPUT).
            try OutputDestination.check(output, inputs: additions.map(\.value))
            let archive = try IPAArchive(path: ipa, limits: limits.limits, folderPacking: .deflated)
            let edits = ArchiveEdits(
                additions: additions.map { ArchiveEdits.Addition(name: $0.key, content: .file(path: $0.value)) },
                removals: removals)
            let summary = try ArchiveWriter.repack(
                archive.zip, to: output, edits: edits,
                options: RepackOptions(timestamp: try timestamp.newEntryTimestamp(), synchronize: fsync),
                verifying: ArchiveWriter.verifyingIPA)
            let seconds = Date().timeIntervalSince(started)
            print("Wrote \(summary.output): \(summary.copiedEntries) entries copied raw, "
                + "\(summary.addedEntries) added, \(summary.removedEntries) removed, "
                + "\(summary.outputSize) bytes in \(String(format: "%.2f", seconds)) s")
        }
    }
}
