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
    private var running = 0
    // Set by `init` once the threads are started and read by `run` only, on the calling thread.
    /// `2 ×` the threads that started.
    private var inFlightLimit = 2
    /// Maps on the calling thread when no thread could be started.
    private var fallback: (worker: Mapper, work: @Sendable (Mapper, Batch) -> Output)?

    /// Starts one thread per worker; each turns a batch into an `Output` with `work`.
    ///
    /// A thread the system refuses to create (too many threads, no memory for its stack) is not
    /// waited for: the threads that did start do the work, and when none did, `run` maps on the
    /// calling thread.
    init(workers: [Mapper], work: @escaping @Sendable (Mapper, Batch) -> Output) {
        var started = 0
        for worker in workers {
            condition.lock()
            running += 1
            condition.unlock()
            let didStart = Self.startThread { [self] in
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
            }
            if !didStart {
                condition.lock()
                running -= 1
                condition.unlock()
                break
            }
            started += 1
        }
        inFlightLimit = 2 * max(started, 1)
        fallback = started == 0 ? workers.first.map { ($0, work) } : nil
    }

    /// Starts a detached thread running `body`; `false` when the system refuses to create it.
    /// (Foundation's `Thread.start()` ignores that refusal, and waiting for such a thread hangs.)
    private static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// Takes batches from `next` until it gives `nil`, handing each batch's output to `take` in
    /// input order, then stops the threads. An error from `next` stops reading; the batches read
    /// before it are still taken, then it is thrown.
    func run<Failure: Error>(next: () throws(Failure) -> Batch?, take: (Output) -> Void) throws(Failure) {
        defer { close() }
        if let fallback {
            while let batch = try next() { take(fallback.work(fallback.worker, batch)) }
            return
        }
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

/// The closure a thread started by `BatchPipeline` runs.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
