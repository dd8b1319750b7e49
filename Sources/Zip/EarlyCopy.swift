import CSystemShims
import Dispatch
import FormatSupport
import Foundation
import OutputFiles
import Synchronization

/// A repack's in-kernel copy of the input, started on a second thread before the edits are known.
///
/// `wrap` spends its first part reading and checking the app on one core, then its second part
/// copying the unchanged entries (most of the archive) in the kernel. The two do not depend on
/// each other until the edits are decided, so the copy starts as soon as the archive is open:
/// the input's bytes from offset 0 up to its central directory go, raw, into the unpublished
/// output. `ArchiveWriter.repack(…, continuing:)` then keeps what agrees with its own first run
/// of copied entries (the same bytes at the same offsets) and writes the rest as usual.
///
/// It is only ever an optimisation: it never makes an output appear, never reports an error (a
/// failed early copy leaves the writer to copy, and to report, as it would have), and an output
/// abandoned because the checks failed is discarded like any other (`AtomicOutputFile`).
public final class EarlyCopy {
    /// The output the copy writes into; the writer publishes it or abandons it.
    let output: AtomicOutputFile
    /// The archive copied from.
    let source: ZipArchive
    private let progress: Progress
    /// Bytes copied, once the thread has stopped.
    private var copiedWhenJoined: UInt64?
    /// Whether a repack has taken the output (it publishes and closes it: one use only).
    private var taken = false

    /// What the copying thread shares with the writer.
    private final class Progress: Sendable {
        struct State {
            /// Bytes copied, from offset 0 of both files.
            var copied: UInt64 = 0
            /// Where the copy is to stop; lowered to stop it early.
            var limit: UInt64
        }

        let state: Mutex<State>
        let finished = DispatchSemaphore(value: 0)

        init(limit: UInt64) {
            state = Mutex(State(limit: limit))
        }
    }

    /// Bytes per `copy_file_range` call: a copy asked to stop ends within one slice (a few
    /// milliseconds).
    static let slice: UInt64 = 8 << 20

    /// Starts copying `archive` into a new unpublished output for `destination`; nil, and nothing
    /// made, when the writer should do all of it itself: the destination is the input, exists as
    /// something other than a regular file (a FIFO is opened only when the output is sure), or
    /// cannot be created now (the writer reports that error when it is its turn), or its file
    /// system cannot make unnamed files (a hidden named one would then exist, and could be left
    /// by an interrupted run, for the whole of the checks).
    public init?(_ archive: ZipArchive, destination: String) {
        guard archive.centralDirectoryOffset > 0 else { return nil }
        var target = stat()
        if FileSystem.stat(destination, &target) == 0 {
            guard (target.st_mode & S_IFMT) == S_IFREG, !ArchiveWriter.isInput(archive, output: destination) else { return nil }
        }
        guard let output = try? AtomicOutputFile(destination: destination), output.isUnnamed else { return nil }
        self.output = output
        self.source = archive
        let progress = Progress(limit: archive.centralDirectoryOffset)
        self.progress = progress
        // Only descriptors cross to the thread; `self` keeps both files open until it has joined.
        let input = archive.file.descriptor
        let written = output.descriptor
        Thread.detachNewThread {
            Self.copy(from: input, to: written, progress: progress)
            progress.finished.signal()
        }
    }

    /// The output, for the one repack of `archive` into `destination` that continues this copy;
    /// nil for any other, or once taken.
    func take(for archive: ZipArchive, destination: String) -> AtomicOutputFile? {
        guard !taken, source === archive, output.destination == destination else { return nil }
        taken = true
        return output
    }

    deinit {
        _ = finish(keeping: 0)
    }

    /// Stops the copy after `length` bytes (it may have gone a slice beyond them; the writer
    /// overwrites or cuts those), waits for the thread, and returns how many of the first
    /// `length` bytes are in the output.
    func finish(keeping length: UInt64) -> UInt64 {
        if let copiedWhenJoined { return min(copiedWhenJoined, length) }
        progress.state.withLock { $0.limit = min($0.limit, length) }
        progress.finished.wait()
        let copied = progress.state.withLock { $0.copied }
        copiedWhenJoined = copied
        return min(copied, length)
    }

    private static func copy(from input: Int32, to output: Int32, progress: Progress) {
        var inputOffset: Int64 = 0
        var outputOffset: Int64 = 0
        while true {
            let left = progress.state.withLock { $0.limit > $0.copied ? $0.limit - $0.copied : 0 }
            guard left > 0 else { return }
            let copied = ipawrap_copy_file_range(input, &inputOffset, output, &outputOffset, min(left, slice))
            if copied > 0 {
                progress.state.withLock { $0.copied += UInt64(copied) }
            } else if copied < 0 && errno == EINTR {
                continue
            } else {
                // The end of the file, or a file system without in-kernel copies: the writer does it.
                return
            }
        }
    }
}
