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

    @Test("map gives every batch's output in the batches' order, each made with the worker of the pool thread that took it")
    func mapAllBatches() {
        for threads in [1, 2, 5] {
            let pool = OrderedWorkers(workers: Array(0..<threads)) { (worker: Int, batch: Int) -> (square: Int, worker: Int, thread: UInt) in
                // Later batches finish first now and then: order must come from the pool.
                if batch % 7 == 0 { usleep(2000) }
                return (batch * batch, worker, UInt(pthread_self()))
            }
            let outputs = pool.map(Array(0..<300))
            #expect(outputs.map(\.square) == (0..<300).map { $0 * $0 }, "\(threads) threads")
            #expect(Set(outputs.map(\.worker)).isSubset(of: Set(0..<threads)))
            // Each thread works with one worker of its own.
            let workersOfThreads = Dictionary(grouping: outputs, by: \.thread).mapValues { Set($0.map(\.worker)) }
            #expect(workersOfThreads.values.allSatisfy { $0.count == 1 }, "\(threads) threads")
            #expect(!workersOfThreads.keys.contains(UInt(pthread_self())), "\(threads) threads: map ran on the calling thread")
            #expect(pool.map([]).isEmpty)
            // The pool is still whole afterwards.
            #expect(pool.map([3, 4]).map(\.square) == [9, 16])
        }
    }

    @Test("A thread whose body returned takes the next body; a second body at once gets a thread of its own; prepared threads wait idle")
    func idleThreadsAreReused() async throws {
        let idle = IdleThreads(lifetime: .seconds(60))
        let first = await Self.threadOfABody(idle)
        try await Self.waitUntil(idle, has: 1)
        #expect(idle.count == 1)
        let second = await Self.threadOfABody(idle)
        #expect(second.thread == first.thread, "the idle thread ran the second body")
        try await Self.waitUntil(idle, has: 1)
        // Two bodies at once while one thread is idle: the second gets a new thread, not a queue
        // behind the first (each waits, at most 5 s, for the other to start).
        let started = Mutex(0)
        let bothRan = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            let finished = Mutex(0)
            for _ in 0..<2 {
                SystemThread.start({
                    started.withLock { $0 += 1 }
                    var waited = 0
                    while started.withLock({ $0 }) < 2, waited < 5000 { usleep(1000); waited += 1 }
                    let both = started.withLock { $0 } == 2
                    if finished.withLock({ $0 += 1; return $0 }) == 2 { done.resume(returning: both) }
                }, idle: idle)
            }
        }
        #expect(bothRan, "both bodies ran at once")
        try await Self.waitUntil(idle, has: 2)
        // Prepared threads wait idle before any pool asks for them.
        idle.prepare(5)
        try await Self.waitUntil(idle, has: 5)
        #expect(idle.count == 5)
    }

    @Test("An idle thread ends after its lifetime without a body")
    func idleThreadsEnd() async throws {
        let idle = IdleThreads(lifetime: .milliseconds(100))
        let body = await Self.threadOfABody(idle)
        // The thread's task leaves the process (10 s at most).
        #expect(body.task.contains("/task/"), "\(body.task)")
        for _ in 0..<1000 where access("/proc/\(body.task)", F_OK) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(access("/proc/\(body.task)", F_OK) != 0, "thread \(body.task) still runs")
        #expect(idle.count == 0)
    }

    /// The thread (`pthread_self`) and kernel task (`process/task/thread` under /proc) a body
    /// started in `idle` ran on.
    static func threadOfABody(_ idle: IdleThreads) async -> (thread: UInt, task: String) {
        await withCheckedContinuation { (done: CheckedContinuation<(thread: UInt, task: String), Never>) in
            let started = SystemThread.start({
                var path = [UInt8](repeating: 0, count: 64)
                let count = path.withUnsafeMutableBytes { readlink("/proc/thread-self", $0.baseAddress!, $0.count) }
                done.resume(returning: (UInt(pthread_self()), String(decoding: path.prefix(max(count, 0)), as: UTF8.self)))
            }, idle: idle)
            #expect(started)
        }
    }

    /// Waits (10 s at most) until `count` threads wait in `idle`.
    static func waitUntil(_ idle: IdleThreads, has count: Int) async throws {
        for _ in 0..<1000 where idle.count != count { try await Task.sleep(for: .milliseconds(10)) }
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
