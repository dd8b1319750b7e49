import Dispatch
import Synchronization

/// Independent jobs on several threads, results in the jobs' order. Each worker is set up once
/// (its own compressor, its own opening of an archive) and takes the next job until none is left,
/// in `order` (callers give largest first, so no core is left with a big job at the end).
///
/// A failure is reported as one thread working in index order would report it: once a job fails,
/// no job after it (by index) is started, those before it still run, and the error of the first
/// failing job by index is thrown. The same input gives the same error whatever the scheduling.
public enum ConcurrentJobs {
    /// `perform` applied to jobs `0..<count` on up to `workers` threads (each with the state
    /// `setUp` made), taken in `order` when it is a permutation of them, else in index order.
    public static func run<Worker, Result: Sendable>(
        count: Int, workers: Int, order: [Int]? = nil,
        setUp: @Sendable () throws -> Worker,
        _ perform: @Sendable (inout Worker, Int) throws -> Result
    ) throws -> [Result] {
        guard count > 0 else { return [] }
        let order = order.flatMap { $0.count == count && Set($0) == Set(0..<count) ? $0 : nil } ?? Array(0..<count)
        let box = Box<Result>(order: order)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, count))) { _ in
            var worker: Worker
            do {
                worker = try setUp()
            } catch {
                box.fail(at: -1, error)
                return
            }
            while let index = box.nextJob() {
                do {
                    box.store(index, try perform(&worker, index))
                } catch {
                    box.fail(at: index, error)
                }
            }
        }
        return try box.finish()
    }

    /// The workers' shared state: the next job, the results and the first failure by index.
    private final class Box<Result: Sendable>: Sendable {
        private struct State {
            var next = 0
            var results: [Result?]
            var failure: (index: Int, error: any Error)?
        }

        private let order: [Int]
        private let state: Mutex<State>

        init(order: [Int]) {
            self.order = order
            state = Mutex(State(results: Array(repeating: nil, count: order.count)))
        }

        /// The next job to run: none after a failed one.
        func nextJob() -> Int? {
            state.withLock { state in
                while state.next < order.count {
                    let index = order[state.next]
                    state.next += 1
                    if let failure = state.failure, index > failure.index { continue }
                    return index
                }
                return nil
            }
        }

        func store(_ index: Int, _ result: Result) {
            state.withLock { $0.results[index] = result }
        }

        func fail(at index: Int, _ error: any Error) {
            state.withLock { state in
                if state.failure.map({ index < $0.index }) ?? true { state.failure = (index, error) }
            }
        }

        /// Every job's result once the workers are done, or the first failure.
        func finish() throws -> [Result] {
            try state.withLock { state in
                if let failure = state.failure { throw failure.error }
                let results = state.results.compactMap { $0 }
                // Without a failure, every job of the permutation was taken and stored.
                precondition(results.count == state.results.count, "a job was left without a result")
                return results
            }
        }
    }
}
