import CSystemShims
import Dispatch
import FormatSupport
import Foundation
import OutputFiles
import Synchronization

/// A repack's in-kernel copy of input ranges into the unpublished output, made on a thread of its
/// own before the writer gets to them.
///
/// `wrap` spends its first part reading and checking the app on one core, then its second part
/// copying the unchanged entries (most of the archive) in the kernel. The two do not depend on
/// each other until the edits are decided, so the copy starts as soon as the archive is open:
/// the input's bytes from offset 0 up to its central directory go, raw, into the output at the
/// same offsets.
///
/// Signing changes entries early in the archive (the profile, the executable), so the entries
/// after them move; where they go is known once the executable's new size is (`RepackForecast`,
/// `Starter`), long before its signature, which waits for every resource to be hashed. The copy
/// of those entries then runs while the resources are hashed, instead of after.
///
/// `ArchiveWriter.repack(…, continuing:)` keeps what agrees with its own runs of copied entries
/// (a segment that starts where a run starts, in both files) and writes everything else as usual,
/// so the copy is only ever an optimisation: it never makes an output appear, never reports an
/// error (a failed or mistaken early copy leaves the writer to copy, and to report, as it would
/// have), and an output abandoned because the checks failed is discarded like any other
/// (`AtomicOutputFile`).
public final class EarlyCopy {
    /// Input bytes copied to an output offset.
    public struct Segment: Sendable, Equatable {
        public var inputOffset: UInt64
        public var outputOffset: UInt64
        public var length: UInt64

        public init(inputOffset: UInt64, outputOffset: UInt64, length: UInt64) {
            self.inputOffset = inputOffset
            self.outputOffset = outputOffset
            self.length = length
        }
    }

    /// The output the copy writes into; the writer publishes it or abandons it.
    let output: AtomicOutputFile
    /// The archive copied from.
    let source: ZipArchive
    /// Starts the copy, from any thread; once.
    public let starter: Starter
    /// Bytes copied per segment, by where the segment starts in both files, once the thread has stopped.
    private var copiedWhenJoined: [SegmentStart: UInt64]?

    private struct SegmentStart: Hashable {
        let input: UInt64
        let output: UInt64
    }

    /// Whether a repack has taken the output (it publishes and closes it: one use only).
    private var taken = false

    /// What the copying thread shares with the writer.
    fileprivate final class Progress: Sendable {
        struct State {
            var segments: [Segment] = []
            /// Bytes copied, by segment.
            var copied: [UInt64] = []
            var started = false
            /// Set when the writer joins: a copy not started by then never starts.
            var stopping = false
            /// The one segment is the copy of the whole input at the same offsets
            /// (`init(startingNow: true)`), which the writer can use only as far as its first run
            /// goes …
            var wholeInput = false
            /// … which is here once it says so: that segment ends here.
            var wholeInputLimit: UInt64 = .max
            /// Nothing more is copied: the output is abandoned.
            var cancelled = false

            /// How much of segment `index` may be copied.
            func usableLength(_ index: Int) -> UInt64 {
                wholeInput ? min(segments[index].length, wholeInputLimit) : segments[index].length
            }
        }

        let state = Mutex(State())
        let finished = DispatchSemaphore(value: 0)
    }

    /// Starts the copy of segments decided on another thread (the signer's, once the executable's
    /// size is known); only descriptors and the shared progress cross to the copying thread.
    public struct Starter: Sendable {
        fileprivate let progress: Progress
        fileprivate let input: Int32
        fileprivate let output: Int32

        /// Copies `segments`, in order, on a new thread; nothing once the writer has joined, or
        /// when a copy was started already, or when the segments are not in output order without
        /// overlapping (the writer keeps a segment's bytes only where no other one wrote) or reach
        /// past what a file offset can say.
        public func start(_ segments: [Segment]) {
            start(segments, wholeInput: false)
        }

        fileprivate func start(_ segments: [Segment], wholeInput: Bool) {
            guard Self.areOrderedAndApart(segments) else { return }
            let begins = progress.state.withLock { state in
                guard !state.started, !state.stopping, !segments.isEmpty else { return false }
                state.started = true
                state.segments = segments
                state.copied = Array(repeating: 0, count: segments.count)
                state.wholeInput = wholeInput
                return true
            }
            guard begins else { return }
            let (progress, input, output) = (progress, input, output)
            Thread.detachNewThread {
                EarlyCopy.copy(from: input, to: output, progress: progress)
                progress.finished.signal()
            }
        }

        private static func areOrderedAndApart(_ segments: [Segment]) -> Bool {
            var end: UInt64 = 0
            for segment in segments {
                let (inputEnd, inputOverflow) = segment.inputOffset.addingReportingOverflow(segment.length)
                let (outputEnd, outputOverflow) = segment.outputOffset.addingReportingOverflow(segment.length)
                guard !inputOverflow, !outputOverflow, inputEnd <= UInt64(Int64.max), outputEnd <= UInt64(Int64.max),
                    segment.outputOffset >= end
                else { return false }
                end = outputEnd
            }
            return true
        }
    }

    /// Bytes per `copy_file_range` call: a copy asked to stop ends within one slice (a few
    /// milliseconds).
    static let slice: UInt64 = 8 << 20

    /// Makes a new unpublished output for `destination` and, unless `startingNow` is false (the
    /// segments are given later, to `starter`), starts copying `archive` into it at the same
    /// offsets, up to its central directory. Nil, and nothing made, when the writer should do all
    /// of it itself: the destination is the input, exists as something other than a regular file
    /// (a FIFO is opened only when the output is sure), or cannot be created now (the writer
    /// reports that error when it is its turn), or its file system cannot make unnamed files (a
    /// hidden named one would then exist, and could be left by an interrupted run, for the whole
    /// of the checks).
    public init?(_ archive: ZipArchive, destination: String, startingNow: Bool = true) {
        guard archive.centralDirectoryOffset > 0 else { return nil }
        var target = stat()
        if FileSystem.stat(destination, &target) == 0 {
            guard (target.st_mode & S_IFMT) == S_IFREG, !ArchiveWriter.isInput(archive, output: destination) else { return nil }
        }
        guard let output = try? AtomicOutputFile(destination: destination), output.isUnnamed else { return nil }
        self.output = output
        self.source = archive
        // Only descriptors cross to the thread; `self` keeps both files open until it has joined.
        self.starter = Starter(progress: Progress(), input: archive.file.descriptor, output: output.descriptor)
        if startingNow {
            starter.start([Segment(inputOffset: 0, outputOffset: 0, length: archive.centralDirectoryOffset)], wholeInput: true)
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
        progress.state.withLock { $0.cancelled = true }
        finish(firstRunLength: 0)
    }

    /// Waits for the thread to copy what the writer can use and returns: a copy of the whole input
    /// at the same offsets is stopped at the end of the output's first run, `firstRunLength`
    /// (beyond it the same offsets no longer hold the same entries; the copy may have gone a
    /// slice further, which the writer overwrites or cuts), a forecast's segments are copied whole
    /// (they are the writer's own runs).
    func finish(firstRunLength: UInt64) {
        guard copiedWhenJoined == nil else { return }
        let started = progress.state.withLock { state in
            state.stopping = true
            state.wholeInputLimit = min(state.wholeInputLimit, firstRunLength)
            return state.started
        }
        if started { progress.finished.wait() }
        copiedWhenJoined = progress.state.withLock { state in
            var copied: [SegmentStart: UInt64] = [:]
            for (index, segment) in state.segments.enumerated() {
                copied[SegmentStart(input: segment.inputOffset, output: segment.outputOffset)] =
                    min(state.copied[index], state.usableLength(index))
            }
            return copied
        }
    }

    /// Bytes of the output's run of `length` bytes at `outputOffset`, copied from `inputOffset`,
    /// that the copy wrote (from the run's start), once `finish` has joined it.
    func copied(inputOffset: UInt64, outputOffset: UInt64, length: UInt64) -> UInt64 {
        min(copiedWhenJoined?[SegmentStart(input: inputOffset, output: outputOffset)] ?? 0, length)
    }

    /// Bytes copied in all, once joined (for tests).
    var copiedBytes: UInt64 { copiedWhenJoined?.values.reduce(0, +) ?? 0 }

    private var progress: Progress { starter.progress }

    private static func copy(from input: Int32, to output: Int32, progress: Progress) {
        let segments = progress.state.withLock { $0.segments }
        for (index, segment) in segments.enumerated() {
            var inputOffset = Int64(segment.inputOffset)
            var outputOffset = Int64(segment.outputOffset)
            while true {
                let left = progress.state.withLock { state -> UInt64 in
                    guard !state.cancelled else { return 0 }
                    let usable = state.usableLength(index)
                    return usable > state.copied[index] ? usable - state.copied[index] : 0
                }
                guard left > 0 else { break }
                let copied = ipawrap_copy_file_range(input, &inputOffset, output, &outputOffset, min(left, slice))
                if copied > 0 {
                    progress.state.withLock { $0.copied[index] += UInt64(copied) }
                } else if copied < 0 && errno == EINTR {
                    continue
                } else {
                    // The end of the file, or a file system without in-kernel copies: the writer does it.
                    return
                }
            }
        }
    }
}
