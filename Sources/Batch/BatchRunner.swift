import Foundation
import Synchronization

/// Runs a piece of work over every input of a batch on a bounded pool of threads: at most `jobs`
/// inputs in flight, inputs started in their order, each input's work isolated from the others
/// (its own archive, its own result, whatever it throws).
///
/// Threads rather than Swift tasks, because each job blocks on file I/O: `--jobs 8` on a 2-core
/// machine should keep 8 files in flight, which the cooperative pool (one thread per core) would
/// not. Events are delivered one at a time, under the runner's lock, so the consumer needs no
/// locking of its own to see them in a consistent order.
public final class BatchRunner<Output: Sendable>: Sendable {
    public enum Event: Sendable {
        /// Input `index` is about to be worked on.
        case started(index: Int, input: BatchInput)
        /// Input `index` is done.
        case finished(index: Int, input: BatchInput, output: Output)
    }

    public let inputs: [BatchInput]
    public let jobs: Int
    /// Each worker thread's stack: parsers are depth-limited, but deep recursion should never be
    /// what stops a job.
    public static var threadStackSize: Int { 8 << 20 }

    /// The index of the next input to start; events are delivered holding it.
    private let next = Mutex(0)
    /// Apart from `next`, so `cancel()` works from anywhere, also from an event.
    private let cancelled = Atomic(false)

    /// - Parameter jobs: the most inputs in flight at once (at least 1).
    public init(inputs: [BatchInput], jobs: Int) {
        self.inputs = inputs
        self.jobs = max(1, jobs)
    }

    /// Works through the inputs and returns when every started input is done (or, after
    /// `cancel()`, when the inputs in flight are done; no new one starts). `events` is called
    /// on the worker threads, never concurrently with itself.
    public func run(_ work: @escaping @Sendable (BatchInput) -> Output, events: @escaping @Sendable (Event) -> Void) {
        let group = DispatchGroup()
        let threads = min(jobs, inputs.count)
        for number in 0..<threads {
            group.enter()
            let thread = Thread { [self] in
                defer { group.leave() }
                while let (index, input) = claim(events) {
                    let output = work(input)
                    next.withLock { _ in events(.finished(index: index, input: input, output: output)) }
                }
            }
            thread.name = "ipawrap batch \(number + 1)"
            thread.stackSize = Self.threadStackSize
            thread.start()
        }
        group.wait()
    }

    /// Stops starting new inputs; the ones in flight go on. Safe from any thread, and from an event.
    public func cancel() {
        cancelled.store(true, ordering: .sequentiallyConsistent)
    }

    public var isCancelled: Bool {
        cancelled.load(ordering: .sequentiallyConsistent)
    }

    /// The next input to work on, announced with `.started`, or nil when there is none.
    private func claim(_ events: (Event) -> Void) -> (Int, BatchInput)? {
        next.withLock { next -> (Int, BatchInput)? in
            guard !isCancelled, next < inputs.count else { return nil }
            let index = next
            next += 1
            events(.started(index: index, input: inputs[index]))
            return (index, inputs[index])
        }
    }
}

/// Releases values in index order as they arrive in any order, so output can follow the order of
/// the inputs while they finish out of order.
public struct OrderedDelivery<Value> {
    private var pending: [Int: Value] = [:]
    /// The index of the next value to release.
    public private(set) var nextIndex = 0

    public init() {}

    /// Adds the value for `index` and returns every value now releasable, in order.
    public mutating func add(_ value: Value, at index: Int) -> [Value] {
        pending[index] = value
        var released: [Value] = []
        while let value = pending.removeValue(forKey: nextIndex) {
            released.append(value)
            nextIndex += 1
        }
        return released
    }

    /// Every value still held (their earlier neighbours never arrived), in index order.
    public mutating func drain() -> [Value] {
        let values = pending.sorted { $0.key < $1.key }.map(\.value)
        pending.removeAll()
        return values
    }

    /// How many values are held back waiting for an earlier one.
    public var heldBack: Int { pending.count }
}
