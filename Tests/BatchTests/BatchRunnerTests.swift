import Batch
import Foundation
import Synchronization
import Testing

/// Counters shared with the runner's threads.
final class Tally: Sendable {
    private struct State {
        var inFlight = 0
        var peak = 0
        var runs: [String: Int] = [:]
        var started: [Int] = []
        var finished: [Int] = []
        var inEvent = false
        var overlappingEvents = 0
    }

    private let state = Mutex(State())

    var peak: Int { state.withLock { $0.peak } }
    var runs: [String: Int] { state.withLock { $0.runs } }
    var started: [Int] { state.withLock { $0.started } }
    var finished: [Int] { state.withLock { $0.finished } }
    var overlappingEvents: Int { state.withLock { $0.overlappingEvents } }

    func begin(_ name: String) {
        state.withLock {
            $0.inFlight += 1
            $0.peak = max($0.peak, $0.inFlight)
            $0.runs[name, default: 0] += 1
        }
    }

    func end() {
        state.withLock { $0.inFlight -= 1 }
    }

    func event(_ body: () -> Void) {
        state.withLock {
            if $0.inEvent { $0.overlappingEvents += 1 }
            $0.inEvent = true
        }
        body()
        // Give another thread the chance to enter if the runner let it.
        usleep(200)
        state.withLock { $0.inEvent = false }
    }

    func record(started index: Int) { state.withLock { $0.started.append(index) } }
    func record(finished index: Int) { state.withLock { $0.finished.append(index) } }
}

@Suite struct BatchRunnerTests {
    private func inputs(_ count: Int) -> [BatchInput] {
        (0..<count).map { BatchInput(path: "/in/\($0).ipa", name: "\($0).ipa") }
    }

    @Test(arguments: [1, 3, 8])
    func everyInputRunsOnceWithAtMostJobsInFlight(jobs: Int) {
        let tally = Tally()
        let runner = BatchRunner<String>(inputs: inputs(40), jobs: jobs)
        runner.run({ input in
            tally.begin(input.name)
            usleep(UInt32.random(in: 200...3000))
            tally.end()
            return input.name.uppercased()
        }, events: { event in
            tally.event {
                switch event {
                case .started(let index, _): tally.record(started: index)
                case .finished(let index, let input, let output):
                    #expect(output == input.name.uppercased())
                    tally.record(finished: index)
                }
            }
        })
        #expect(tally.runs.count == 40)
        #expect(tally.runs.values.allSatisfy { $0 == 1 })
        #expect(tally.peak <= jobs)
        if jobs > 1 { #expect(tally.peak > 1, "the jobs never overlapped") }
        // Inputs start in their order; every one finishes.
        #expect(tally.started == Array(0..<40))
        #expect(tally.finished.sorted() == Array(0..<40))
        #expect(tally.overlappingEvents == 0)
    }

    @Test func cancelStopsNewInputsAndLetsTheRunningOnesFinish() {
        let tally = Tally()
        let runner = BatchRunner<Int>(inputs: inputs(100), jobs: 3)
        runner.run({ input in
            tally.begin(input.name)
            usleep(2000)
            tally.end()
            return 0
        }, events: { event in
            if case .started(let index, _) = event {
                tally.record(started: index)
                if index == 5 { runner.cancel() }
            }
            if case .finished(let index, _, _) = event { tally.record(finished: index) }
        })
        #expect(runner.isCancelled)
        #expect(tally.started == Array(0...5))
        #expect(tally.finished.sorted() == tally.started)
    }

    @Test func noInputsIsNoWork() {
        let runner = BatchRunner<Int>(inputs: [], jobs: 4)
        runner.run({ _ in Issue.record("work on no input"); return 0 }, events: { _ in Issue.record("an event") })
    }

    @Test func orderedDeliveryReleasesInIndexOrder() {
        var delivery = OrderedDelivery<String>()
        #expect(delivery.add("c", at: 2) == [])
        #expect(delivery.add("b", at: 1) == [])
        #expect(delivery.heldBack == 2)
        #expect(delivery.add("a", at: 0) == ["a", "b", "c"])
        #expect(delivery.add("e", at: 4) == [])
        #expect(delivery.add("g", at: 6) == [])
        #expect(delivery.nextIndex == 3)
        #expect(delivery.drain() == ["e", "g"])
        #expect(delivery.heldBack == 0)
    }
}
