import Dispatch
import Foundation
import Synchronization

/// Work on many entries of one archive on several cores: each worker opens the archive on its
/// own (a `ZipArchive` reads through its own file handle) and takes the next job, so inflating
/// and hashing overlap on as many entries as there are workers. Verification and signing both
/// hash entries this way; callers order the jobs largest first so the last one does not leave
/// a core idle.
public enum ParallelEntryWork {
    /// `perform` applied to every job, results in the jobs' order; the first error stops the
    /// workers and is thrown. Each worker opens `archive`'s file again under its name and limits.
    public static func run<Job: Sendable, Result: Sendable>(
        _ jobs: [Job], archive: ZipArchive, workers: Int,
        _ perform: @escaping @Sendable (Job, ZipArchive) throws -> Result
    ) throws -> [Result] {
        let (reopening, archivePath) = (archive.reopening, archive.path)
        let box = ResultBox<Result>(count: jobs.count)
        let workerCount = max(1, min(workers, jobs.count))
        DispatchQueue.concurrentPerform(iterations: workerCount) { _ in
            let zip: ZipArchive
            do {
                zip = try reopening.open()
            } catch {
                box.fail(error)
                return
            }
            while let index = box.nextJob() {
                do {
                    box.store(index, try perform(jobs[index], zip))
                } catch {
                    box.fail(error)
                    return
                }
            }
        }
        if let error = box.firstError { throw error }
        return try box.results.map { result in
            guard let result else {
                throw ArchiveError.dataError(archive: archivePath, entry: "", reason: "a worker stopped before its job")
            }
            return result
        }
    }
}

/// The workers' shared state: the next job, the results and the first error.
private final class ResultBox<Result: Sendable>: Sendable {
    private struct State {
        var next = 0
        var results: [Result?]
        var firstError: (any Error)?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(results: Array(repeating: nil, count: count)))
    }

    /// The results so far (all of them once the workers are done).
    var results: [Result?] { state.withLock { $0.results } }
    var firstError: (any Error)? { state.withLock { $0.firstError } }

    func nextJob() -> Int? {
        state.withLock { state in
            guard state.firstError == nil, state.next < state.results.count else { return nil }
            state.next += 1
            return state.next - 1
        }
    }

    func store(_ index: Int, _ result: Result) {
        state.withLock { $0.results[index] = result }
    }

    func fail(_ error: any Error) {
        state.withLock { state in
            if state.firstError == nil { state.firstError = error }
        }
    }
}
