import Foundation
@testable import RestMap
import Synchronization
import Testing

/// The library's thread pool: outputs come back in input order whatever order the threads finish
/// in, each thread works with its own worker, the batches in flight stay bounded, and an error
/// from the input still delivers what was read before it.
@Suite("The thread pool")
struct OrderedWorkersTests {
    struct Failure: Error, Equatable {}

    @Test("Outputs come back in input order, each thread uses its own worker, and at most two batches per thread are in flight")
    func orderWorkersAndBackPressure() {
        for threads in [1, 2, 3, 8] {
            let inFlight = Mutex((now: 0, most: 0))
            let usedWorkers = Mutex(Set<Int>())
            let pool = OrderedWorkers(workers: Array(0..<threads)) { (worker: Int, batch: Int) -> (batch: Int, worker: Int) in
                // Later batches finish first now and then: order must come from the pool.
                if batch % 5 == 0 { usleep(2000) }
                usedWorkers.withLock { _ = $0.insert(worker) }
                return (batch * batch, worker)
            }
            var next = 0
            var outputs: [Int] = []
            pool.run(next: { () -> Int? in
                guard next < 200 else { return nil }
                defer { next += 1 }
                inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                return next
            }, take: { output in
                inFlight.withLock { $0.now -= 1 }
                outputs.append(output.batch)
            })
            #expect(outputs == (0..<200).map { $0 * $0 }, "\(threads) threads")
            #expect(inFlight.withLock { $0.most } <= 2 * threads, "\(threads) threads")
            #expect(usedWorkers.withLock { $0.isSubset(of: Set(0..<threads)) && !$0.isEmpty })
        }
    }

    @Test("An error from the input stops reading; the batches read before it are still taken, then it is thrown")
    func errorFromInput() {
        var taken: [Int] = []
        var next = 0
        #expect(throws: Failure.self) {
            try OrderedWorkers(workers: [(), ()]) { _, batch in batch + 1000 }.run(next: { () throws(Failure) -> Int? in
                defer { next += 1 }
                if next == 37 { throw Failure() }
                return next
            }, take: { taken.append($0) })
        }
        #expect(taken == (0..<37).map { $0 + 1000 })
    }

    /// The outputs of `batches` worked through on `threads` threads, in the order taken.
    func outputs(of batches: [Int], threads: Int) -> [Int] {
        var remaining = batches.makeIterator()
        var outputs: [Int] = []
        OrderedWorkers(workers: Array(repeating: (), count: threads)) { _, batch in batch * batch }
            .run(next: { remaining.next() }, take: { outputs.append($0) })
        return outputs
    }

    @Test("A list of batches gives each batch's output in order, and with no batches nothing")
    func mapInOrder() {
        let squares = outputs(of: Array(0..<50), threads: 3)
        #expect(squares == (0..<50).map { $0 * $0 })
        #expect(outputs(of: [], threads: 1).isEmpty)
    }

    @Test("After a run, forEach calls its body once for every index, on the pool's threads, and returns when all have returned")
    func forEachAfterARun() {
        for threads in [1, 3] {
            let pool = OrderedWorkers(workers: Array(repeating: (), count: threads)) { (_: Void, batch: Int) -> Int in batch }
            var outputs: [Int] = []
            var next = 0
            pool.run(next: { () -> Int? in
                defer { next += 1 }
                return next < 20 ? next : nil
            }, take: { outputs.append($0) })
            #expect(outputs == Array(0..<20))
            let calls = Mutex([Int](repeating: 0, count: 100))
            let choreThreads = Mutex(Set<UInt>())
            // A slow index now and then: forEach must wait for it.
            pool.forEach(100) { index in
                if index % 17 == 0 { usleep(3000) }
                choreThreads.withLock { _ = $0.insert(UInt(pthread_self())) }
                calls.withLock { $0[index] += 1 }
            }
            #expect(calls.withLock { $0 } == Array(repeating: 1, count: 100), "\(threads) threads")
            let caller = UInt(pthread_self())
            #expect(!choreThreads.withLock { $0 }.contains(caller), "\(threads) threads: forEach ran on the calling thread")
            #expect(choreThreads.withLock { $0.count } <= threads, "\(threads) threads: only the pool's threads")
            pool.forEach(0) { _ in Issue.record("no index, no call") }
        }
    }

    @Test("Waiting time is reported to the profile: a worker with nothing to do waits for the reader")
    func waitsAreProfiled() {
        let profile = StageProfile()
        var next = 0
        OrderedWorkers(workers: [(), ()], profile: profile) { _, batch in batch }.run(next: { () -> Int? in
            defer { next += 1 }
            usleep(3000)
            return next < 10 ? next : nil
        }, take: { _ in })
        #expect(profile.waitingByThread.dropFirst().contains { $0 > .milliseconds(1) }, "\(profile.waitingByThread)")
    }
}
