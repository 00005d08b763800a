import FoundationEssentials
import Synchronization

/// The library's thread pool: turns batches into outputs on one thread per worker while the
/// calling thread reads the next batches and takes the outputs in input order.
///
/// Every parallel part of the engine runs on it: the parts of a split body
/// (`SplitBodyMapping`), the batches of a stream (`StreamMapping`) and the runs of a large
/// output (`RecordWriter.write`). Its one primitive is `Monitor`.
///
/// - Each thread has a worker of its own (a `Mapper` with its own plan, a graph of its own), so
///   threads never update the reference counts of one shared object; each thread makes its own
///   as it starts (`init(threads:worker:work:)`), beside the others.
/// - The threads and the calling thread wait on conditions of their own: the batch the calling
///   thread waits for wakes it (not every batch finished before it); whoever queues jobs wakes one
///   thread, and a thread taking a job while more wait wakes the next.
/// - Back-pressure: at most `2 × threads` batches are in flight (read and not yet taken), so a
///   thread that finishes early takes the next batch instead of waiting for the slowest, and the
///   bytes held stay bounded (`run`). Work whose outputs are all kept anyway goes over at once
///   (`map`: the parts of a split body).
/// - After `run` or `map`, the same threads can do work that needs every output first
///   (`forEach`: merging a split body's parts).
/// - Threads are plain POSIX threads (`SystemThread`), taken with the pool and given back when it
///   is released (after its last use), to wait a while for the next pool (`IdleThreads`): the
///   engine is synchronous, and blocking Swift concurrency's cooperative threads on a condition
///   would starve the caller's tasks.
final class OrderedWorkers<Worker: Sendable, Batch: Sendable, Output: Sendable>: Sendable {
    private struct State {
        var queued: [(sequence: Int, batch: Batch)] = []
        var done: [Int: Output] = [:]
        /// `forEach`'s and `map`'s calls not yet started, and those not yet finished.
        var chores: [@Sendable (Worker) -> Void] = []
        var choresLeft = 0
        var closed = false
        var running = 0
        /// The output the calling thread waits for, if it waits for one: only its batch wakes it.
        var awaited: Int?
    }

    private enum Job {
        case batch(sequence: Int, batch: Batch)
        case chore(@Sendable (Worker) -> Void)
    }

    /// The pool's threads wait on one condition (for batches and chores), the calling thread on
    /// another (for outputs, chores done, threads ended): an update wakes only whom it concerns,
    /// not every thread of the pool.
    private let state = Monitor(State(), conditions: 2)
    private typealias Waking = Monitor<State>.Waking
    private static var threadsCondition: Int { 0 }
    private static var callerCondition: Int { 1 }
    /// `2 ×` the threads that started.
    private let inFlightLimit: Int
    /// Turns a batch into its output, on the thread that took it.
    private let work: @Sendable (Worker, Batch) -> Output
    /// Works on the calling thread when no thread could be started.
    private let fallback: Worker?
    private let profile: StageProfile?

    /// Starts one thread per worker; each turns a batch into an `Output` with `work`.
    ///
    /// A thread the system refuses to create (too many threads, no memory for its stack) is not
    /// waited for: the threads that did start do the work, and when none did, `run` works on the
    /// calling thread.
    convenience init(workers: [Worker], profile: StageProfile? = nil, work: @escaping @Sendable (Worker, Batch) -> Output) {
        self.init(threads: workers.count, profile: profile, worker: { workers[$0] }, work: work)
    }

    /// Starts `threads` threads; each makes its worker with `worker(i)` (`i` from 0) as it starts,
    /// beside the others, instead of the calling thread making them all first (a plan compiled,
    /// a record list copied per thread).
    init(threads: Int, profile: StageProfile? = nil, worker makeWorker: @escaping @Sendable (Int) -> Worker,
         work: @escaping @Sendable (Worker, Batch) -> Output) {
        self.profile = profile
        self.work = work
        state.withLock { $0.running = threads }
        let started = SystemThread.start(threads) { [state, profile] index in
            let start = profile == nil ? .zero : StageProfile.threadCPU()
            let worker = makeWorker(index)
            // A thread taking a job while more wait, or leaving a closed pool, wakes the next
            // thread: whoever queues jobs or closes the pool wakes one.
            while let job = state.waitAndWake(on: Self.threadsCondition, until: { state -> (Job?, Waking?)? in
                let next: Waking? = .one(Self.threadsCondition)
                if let chore = state.chores.popLast() { return (.chore(chore), state.chores.isEmpty ? nil : next) }
                // At most `2 × workers` batches are queued: removing the first is cheap.
                if !state.queued.isEmpty {
                    let (sequence, batch) = state.queued.removeFirst()
                    return (.batch(sequence: sequence, batch: batch), state.queued.isEmpty ? nil : next)
                }
                return state.closed ? (nil, next) : nil
            }, waited: profile?.addWait) {
                switch job {
                case .batch(let sequence, let batch):
                    let output = work(worker, batch)
                    // Only the batch the calling thread waits for wakes it.
                    state.updateAndWake { state in
                        state.done[sequence] = output
                        return state.awaited == sequence ? .one(Self.callerCondition) : nil
                    }
                case .chore(let chore):
                    chore(worker)
                    // Only the last chore wakes the thread waiting for them all.
                    state.updateAndWake { state in
                        state.choresLeft -= 1
                        return state.choresLeft == 0 ? .one(Self.callerCondition) : nil
                    }
                }
            }
            profile?.threadEnds(since: start)
            // Only the last thread to finish wakes the caller, which waits for them all.
            state.updateAndWake { state in
                state.running -= 1
                return state.running == 0 ? .one(Self.callerCondition) : nil
            }
        }
        // Threads end only once the pool is closed: none can have ended yet.
        if started < threads { state.withLock { $0.running -= threads - started } }
        inFlightLimit = 2 * max(started, 1)
        fallback = started == 0 && threads > 0 ? makeWorker(0) : nil
    }

    /// Takes batches from `next` until it gives `nil`, handing each batch's output to `take` in
    /// input order, until every batch is taken. An error from `next` stops reading; the batches read
    /// before it are still taken, then it is thrown. The calling thread's CPU time outside `next`
    /// and `take` (handing batches over and back) is the profile's `order` stage.
    func run<Failure: Error>(next: () throws(Failure) -> Batch?, take: (Output) -> Void) throws(Failure) {
        guard let profile else { return try runUnprofiled(next: next, take: take) }
        let start = StageProfile.threadCPU()
        var inside = Duration.zero
        defer { profile.add(.order, StageProfile.threadCPU() - start - inside) }
        try runUnprofiled(next: { () throws(Failure) -> Batch? in
            let before = StageProfile.threadCPU()
            defer { inside += StageProfile.threadCPU() - before }
            return try next()
        }, take: { output in
            let before = StageProfile.threadCPU()
            defer { inside += StageProfile.threadCPU() - before }
            take(output)
        })
    }

    private func runUnprofiled<Failure: Error>(next: () throws(Failure) -> Batch?, take: (Output) -> Void) throws(Failure) {
        if let fallback {
            while let batch = try next() { take(work(fallback, batch)) }
            return
        }
        var read = 0, taken = 0
        var endOfInput = false
        var failure: Failure?
        while true {
            while !endOfInput, read - taken < inFlightLimit {
                do {
                    if let batch = try next() {
                        let sequence = read
                        state.updateAndWake { state in
                            state.queued.append((sequence, batch))
                            return .one(Self.threadsCondition)
                        }
                        read += 1
                    } else {
                        endOfInput = true
                    }
                } catch {
                    failure = error
                    endOfInput = true
                }
                // Take what is already done before reading on.
                while let output = state.withLock({ $0.done.removeValue(forKey: taken) }) {
                    take(output)
                    taken += 1
                }
            }
            if taken == read { break }
            let sequence = taken
            take(state.wait(on: Self.callerCondition, until: { state in
                guard let output = state.done.removeValue(forKey: sequence) else {
                    state.awaited = sequence
                    return nil
                }
                state.awaited = nil
                return output
            }, waited: profile?.addWait))
            taken += 1
        }
        if let failure { throw failure }
    }

    /// The outputs of `batches`, in their order, each made on whichever thread of the pool takes
    /// it first (on the calling thread when no thread started).
    ///
    /// For work whose outputs are all kept until the last one is done (the parts of a split
    /// body): the calling thread hands the batches over at once and sleeps until they are all done,
    /// instead of handing them over and taking them back one by one as `run` does to bound
    /// what is in flight. Its CPU time is the profile's `order` stage.
    func map(_ batches: [Batch]) -> [Output] {
        if let fallback { return batches.map { work(fallback, $0) } }
        let outputs = profile.measure(.order) { OutputSlots<Output>(count: batches.count) }
        let makeOutput = work
        perform(batches.indices.map { index in
            { worker in outputs.fill(index, with: makeOutput(worker, batches[index])) }
        }, measured: .order)
        return profile.measure(.order) { outputs.taken() }
    }

    /// Calls `body` with every index of `0..<count` on the pool's threads, in any order, and
    /// returns when every call has returned (on the calling thread when no thread started).
    /// What one call writes, the calls of a later `forEach` read safely: the pool's lock orders them.
    func forEach(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        if fallback != nil {
            for index in 0..<count { body(index) }
            return
        }
        perform((0..<count).map { index in { _ in body(index) } }, measured: nil)
    }

    /// Hands `chores` to the pool's threads, the first ones first, and waits until every one has
    /// returned; the calling thread's CPU time for handing them over goes to `stage`.
    private func perform(_ chores: [@Sendable (Worker) -> Void], measured stage: StageProfile.Stage?) {
        guard !chores.isEmpty else { return }
        let handOver = {
            self.state.updateAndWake { state in
                // Taken from the end: the first chores first.
                state.chores += chores.reversed()
                state.choresLeft += chores.count
                return .one(Self.threadsCondition)
            }
        }
        if let stage { profile.measure(stage, handOver) } else { handOver() }
        state.wait(on: Self.callerCondition, until: { $0.choresLeft == 0 ? () : nil }, waited: profile?.addWait)
    }

    /// Lets the threads finish the pool's work and waits until they have left it (they wait in
    /// `IdleThreads` for the next pool).
    deinit {
        state.updateAndWake { state in
            state.closed = true
            return .one(Self.threadsCondition)
        }
        state.wait(on: Self.callerCondition) { $0.running == 0 ? () : nil }
    }
}

/// The outputs of `OrderedWorkers.map`, each filled once by the thread that made it.
private final class OutputSlots<Output: Sendable>: Sendable {
    private let slots: Mutex<[Output?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func fill(_ index: Int, with output: Output) {
        slots.withLock { $0[index] = output }
    }

    /// Every output, once every slot is filled.
    func taken() -> [Output] {
        slots.withLock { slots in slots.map { $0! } }
    }
}
