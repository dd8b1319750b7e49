import Dispatch
import FormatSupport
import Synchronization

/// The chunks of a central directory, handed from the reader that reads them from the file to a
/// reader of the same directory on another thread (see `CentralDirectoryReader.Source`). Both
/// parse the very same bytes, so a file changed meanwhile cannot show them two directories; at
/// most `depth` chunks wait at once, so memory stays bounded whichever reader is faster.
final class DirectoryChunks: Sendable {
    struct Chunk: Sendable {
        /// Directory offset of the first byte.
        var offset: UInt64
        var bytes: [UInt8]
    }

    private struct State {
        var waiting: [Chunk] = []
        /// The sender sends no more.
        var closed = false
        /// Whether the sender stopped on an error (the receiver then stops as soon as it can).
        var senderFailed = false
        /// The receiver takes no more: chunks sent are dropped.
        var abandoned = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let room: DispatchSemaphore

    init(depth: Int = 2) {
        // Made at 0 and raised: libdispatch refuses to free a semaphore below the value it was
        // made with, as `room` is when the receiver stops early.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, depth) { room.signal() }
    }

    /// Hands `chunk` on; waits while `depth` chunks wait.
    func send(_ chunk: Chunk) {
        room.wait()
        let dropped = state.withLock { state in
            if state.abandoned || state.closed { return true }
            state.waiting.append(chunk)
            return false
        }
        if dropped {
            // Passed on, so a later send does not wait for a receiver that is gone.
            room.signal()
            return
        }
        available.signal()
    }

    /// No more chunks; `failed` when the sender stopped on an error.
    func close(failed: Bool) {
        let wasClosed = state.withLock { state in
            defer {
                state.closed = true
                state.senderFailed = state.senderFailed || failed
            }
            return state.closed
        }
        if !wasClosed { available.signal() }
    }

    /// The next chunk, waiting for it; nil once the sender has closed and every chunk was taken.
    func receive() -> Chunk? {
        available.wait()
        let chunk = state.withLock { state -> Chunk? in
            guard !state.waiting.isEmpty else { return nil }
            return state.waiting.removeFirst()
        }
        if chunk == nil {
            // Left for a later receive, which must not wait either.
            available.signal()
        } else {
            room.signal()
        }
        return chunk
    }

    /// The receiver takes no more (a sender waiting for room is let through).
    func abandon() {
        state.withLock { state in
            state.abandoned = true
            state.waiting.removeAll()
        }
        room.signal()
    }

    /// Whether the sender stopped on an error.
    var senderFailed: Bool { state.withLock { $0.senderFailed } }
}
