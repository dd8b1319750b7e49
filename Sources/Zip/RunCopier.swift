import Dispatch
import FormatSupport
import OutputFiles
import Synchronization

/// Copies a repack's runs of unchanged entries on a thread of its own, in the order they are
/// queued, while the writer writes the replacements between them (a re-signed 60 MB executable
/// and the 400 MB around it are then written at once, on two cores, instead of one after the
/// other).
///
/// Each run's place in the output is known when it is queued, and the copies are
/// `copy_file_range` (or `pread`/`pwrite`) at explicit offsets on the two descriptors: they share
/// no file position or buffer with the writer, whose writes go to other ranges. `finish()` waits
/// for every copy and throws the first failure; the writer reads nothing the copies wrote before
/// it, and `waitForCopies()` (deferred by the writer) makes sure no copy outlives the output.
final class RunCopier {
    /// The two files, used only through their descriptors at explicit offsets (see above).
    private struct Files: @unchecked Sendable {
        let input: FileByteSource
        let output: AtomicOutputFile
    }

    private let files: Files
    private let archivePath: String
    private let clock: WorkClock
    private let queue = DispatchQueue(label: "ipawrap.zip.run-copy")
    /// The first copy that failed.
    private final class Failure: Sendable {
        let error = Mutex<(any Error)?>(nil)
    }

    private let failure = Failure()

    init(from archive: ZipArchive, to output: AtomicOutputFile) {
        files = Files(input: archive.file, output: output)
        archivePath = archive.path
        clock = archive.workClock()
    }

    /// Queues the copy of `length` input bytes at `offset` to the output at `target`; throws a
    /// failure of an earlier copy, so the writer stops as soon as it can.
    func copy(offset: UInt64, length: UInt64, at target: UInt64) throws {
        if let error = failure.error.withLock({ $0 }) { throw error }
        guard length > 0 else { return }
        let (files, archivePath, clock) = (files, archivePath, clock)
        queue.async { [failure] in
            guard failure.error.withLock({ $0 == nil }) else { return }
            do {
                try ArchiveWriter.copyRange(
                    from: files.input, named: archivePath, offset: offset, length: length, to: files.output, at: target,
                    checkLimits: {
                        if clock.isPastDeadline { throw ArchiveError.timeLimit(archive: archivePath, seconds: clock.seconds) }
                    })
            } catch {
                failure.error.withLock { if $0 == nil { $0 = error } }
            }
        }
    }

    /// Waits for every queued copy.
    func waitForCopies() {
        queue.sync {}
    }

    /// Waits for every queued copy and throws the first failure.
    func finish() throws {
        waitForCopies()
        if let error = failure.error.withLock({ $0 }) { throw error }
    }
}
