import FormatSupport
import Synchronization
import Testing

/// `ConcurrentJobs`: results in the jobs' order whatever order they are taken in, and a failure
/// told as one thread working in index order would tell it.
@Suite struct ConcurrentJobsTests {
    struct Failed: Error, Equatable {
        let index: Int
    }

    @Test(arguments: [1, 2, 4])
    func resultsComeInTheJobsOrder(workers: Int) throws {
        let results = try ConcurrentJobs.run(count: 50, workers: workers, order: Array((0..<50).reversed()), setUp: {}) { _, index in
            index * index
        }
        #expect(results == (0..<50).map { $0 * $0 })
    }

    /// Jobs 3 and 7 fail, taken last to first: 7 fails first in time, 3 is still run and is the
    /// error thrown, on one worker or several.
    @Test(arguments: [1, 2, 4])
    func theFirstFailingJobByIndexIsThrown(workers: Int) {
        #expect(throws: Failed(index: 3)) {
            try ConcurrentJobs.run(count: 10, workers: workers, order: Array((0..<10).reversed()), setUp: {}) { _, index in
                if index == 3 || index == 7 { throw Failed(index: index) }
                return index
            }
        }
    }

    /// After a failure no job after it is started: on one worker taking them in index order,
    /// exactly the jobs up to the failing one run.
    @Test func noJobAfterAFailureIsStarted() {
        let ran = Mutex<[Int]>([])
        #expect(throws: Failed(index: 2)) {
            try ConcurrentJobs.run(count: 10, workers: 1, setUp: {}) { _, index in
                ran.withLock { $0.append(index) }
                if index == 2 { throw Failed(index: index) }
                return index
            }
        }
        #expect(ran.withLock { $0 } == [0, 1, 2])
    }

    /// Each worker is set up once and keeps its state; a worker that cannot be set up fails the run.
    @Test func workersAreSetUpOnceEach() throws {
        let setUps = Mutex(0)
        let results = try ConcurrentJobs.run(count: 40, workers: 2, setUp: { setUps.withLock { $0 += 1 }; return 0 }) { done, _ in
            done += 1
            return done
        }
        #expect(setUps.withLock { $0 } <= 2)
        #expect(results.count == 40 && results.allSatisfy { $0 >= 1 })
        #expect(throws: Failed(index: -1)) {
            try ConcurrentJobs.run(count: 3, workers: 2, setUp: { throw Failed(index: -1) }) { (_: inout Int, index) in index }
        }
    }

    /// An order that is not a permutation of the jobs is not followed: every job still runs once.
    @Test func anOrderThatIsNotAPermutationIsIgnored() throws {
        let results = try ConcurrentJobs.run(count: 5, workers: 2, order: [0, 0, 1], setUp: {}) { _, index in index }
        #expect(results == [0, 1, 2, 3, 4])
    }
}
