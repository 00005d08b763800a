import Foundation
import RestMapJSON

/// Maps batches (of a `JSONElementStream`, or parsed parts of a body) on one thread per worker
/// mapper while the calling thread reads the next batches and takes the mapped ones in input order.
///
/// Each worker has a plan of its own (`Mapper.withOwnPlan()`), so the threads never update the
/// reference counts of one shared plan. Up to `2 × workers` batches are in flight (read and not yet
/// taken), so a thread that finishes early takes the next batch instead of waiting for the slowest,
/// and the bytes held stay bounded.
final class BatchPipeline<Batch: Sendable, Output: Sendable>: @unchecked Sendable {
    // Everything below `condition` is read and written only while holding it.
    private let condition = NSCondition()
    private var queued: [(sequence: Int, batch: Batch)] = []
    private var mapped: [Int: Output] = [:]
    private var closed = false
    private var running: Int
    private let inFlightLimit: Int

    /// Starts one thread per worker; each turns a batch into an `Output` with `work`.
    init(workers: [Mapper], work: @escaping @Sendable (Mapper, Batch) -> Output) {
        running = workers.count
        inFlightLimit = 2 * workers.count
        for worker in workers {
            Thread { [self] in
                while let (sequence, batch) = nextQueued() {
                    let output = work(worker, batch)
                    condition.lock()
                    mapped[sequence] = output
                    condition.broadcast()
                    condition.unlock()
                }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }.start()
        }
    }

    /// Takes batches from `next` until it gives `nil`, handing each batch's output to `take` in
    /// input order, then stops the threads. An error from `next` stops reading; the batches read
    /// before it are still taken, then it is thrown.
    func run<Failure: Error>(next: () throws(Failure) -> Batch?, take: (Output) -> Void) throws(Failure) {
        defer { close() }
        var read = 0, taken = 0
        var endOfInput = false
        var failure: Failure?
        while true {
            while !endOfInput, read - taken < inFlightLimit {
                do {
                    if let batch = try next() {
                        submit(batch, sequence: read)
                        read += 1
                    } else {
                        endOfInput = true
                    }
                } catch {
                    failure = error
                    endOfInput = true
                }
                // Take what is already mapped before reading on.
                while let output = takeIfMapped(taken) {
                    take(output)
                    taken += 1
                }
            }
            if taken == read { break }
            take(waitForMapped(taken))
            taken += 1
        }
        if let failure { throw failure }
    }

    private func submit(_ batch: Batch, sequence: Int) {
        condition.lock()
        queued.append((sequence, batch))
        condition.broadcast()
        condition.unlock()
    }

    private func takeIfMapped(_ sequence: Int) -> Output? {
        condition.lock()
        defer { condition.unlock() }
        return mapped.removeValue(forKey: sequence)
    }

    private func waitForMapped(_ sequence: Int) -> Output {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let output = mapped.removeValue(forKey: sequence) { return output }
            condition.wait()
        }
    }

    /// Lets the threads finish and waits for them.
    private func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// The oldest queued batch; `nil` once closed and drained.
    private func nextQueued() -> (Int, Batch)? {
        condition.lock()
        defer { condition.unlock() }
        while queued.isEmpty {
            if closed { return nil }
            condition.wait()
        }
        // At most `2 × workers` batches are queued: removing the first is cheap.
        return queued.removeFirst()
    }
}
