import Glibc
import FoundationEssentials
import Synchronization

/// Where a mapping's CPU time goes, per stage and per thread: what `restmap map --profile`
/// prints (see Docs/Pipelines.md).
///
/// Stages are timed per batch or part, not per record, with each thread's own CPU clock, so a
/// profile costs next to nothing. Time no stage claims is `other` in `report(totalCPU:)` (starting
/// the process, loading the schema, allocation the operating system reclaims at exit), except a
/// worker thread's, which it reports as its work ends (`threadEnds(since:)`): that is `untimed`,
/// parallel work (making its worker, freeing what earlier parts left), not on the path every
/// worker waits for.
public final class StageProfile: Sendable {
    /// A stage of mapping.
    public enum Stage: String, Sendable, CaseIterable {
        /// Reading the input (system calls) on the calling thread.
        case read
        /// Reading and cutting a range of a regular file (NDJSON), on the mapping thread that maps it.
        case pread
        /// Cutting the input into elements, chunks of lines or parts (on the calling thread).
        case cut
        /// Splitting a chunk into its elements, on the mapping threads: NDJSON into its lines, an
        /// array in a regular file into the elements that begin in the chunk.
        case split
        /// Working out where a chunk of an array in a regular file begins (`ArrayChunkChain`), on
        /// the mapping threads; only with several jobs.
        case scan
        /// Parsing JSON into a document.
        case parse
        /// Mapping representations into records.
        case map
        /// The calling thread's share of merging a split body's parts (counting between the merge's
        /// phases, gathering roots and errors); leaving out a stream's elements whose records conflict.
        case merge
        /// Checking identities across a stream's elements (the ledger's shards), or merging a split
        /// body's parts by identification, on the mapping threads.
        case claim
        /// Handing batches to the workers and taking them back in order.
        case order
        /// Rendering records as JSON, NDJSON or CSV.
        case render
        /// Writing the output (system calls).
        case write

        /// Whether the stage runs on the calling thread, which every worker waits for: the serial
        /// part of a mapping on several threads. The others run on the workers.
        public var isSerial: Bool {
            switch self {
            case .read, .cut, .merge, .order, .write: true
            case .pread, .split, .scan, .parse, .map, .claim, .render: false
            }
        }
    }

    private struct Thread {
        var cpu: [Stage: Duration] = [:]
        var waiting: Duration = .zero
        /// All the CPU time of a worker thread's work, reported as it ends.
        var total: Duration?

        /// The part of a worker's CPU time no stage claims.
        var untimed: Duration { total.map { max($0 - cpu.values.reduce(.zero, +), .zero) } ?? .zero }
    }

    private struct State {
        /// Thread 0 is the calling thread; the others (workers, a reading thread) follow in the order they first report.
        var threads: [Thread] = []
        var ordinals: [UInt: Int] = [:]
    }

    private let state = Mutex(State())

    /// A profile whose calling thread is the current one.
    public init() {
        _ = ordinal()
    }

    /// Runs `body` and adds the CPU time the current thread spent in it to `stage`.
    @inlinable
    public func measure<Result, Failure: Error>(_ stage: Stage, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let start = Self.threadCPU()
        defer { add(stage, Self.threadCPU() - start) }
        return try body()
    }

    /// Adds CPU time the current thread spent in `stage`.
    public func add(_ stage: Stage, _ cpu: Duration) {
        let thread = ordinal()
        state.withLock { $0.threads[thread].cpu[stage, default: .zero] += cpu }
    }

    /// Adds wall time the current thread spent waiting for another.
    public func addWait(_ wall: Duration) {
        let thread = ordinal()
        state.withLock { $0.threads[thread].waiting += wall }
    }

    /// Reports the CPU time the current thread used for a worker's whole work, which began when
    /// its CPU clock (`threadCPU()`) read `start`: what no stage claimed of it is `untimed`, not
    /// serial. A thread that works for several pools in turn (`IdleThreads`), or a thread
    /// started after another ended and given its identifier, has one column: their times add up.
    public func threadEnds(since start: Duration) {
        let total = Self.threadCPU() - start
        let thread = ordinal()
        state.withLock { $0.threads[thread].total = ($0.threads[thread].total ?? .zero) + total }
    }

    /// The CPU time of worker threads that no stage claimed.
    public var untimedOnWorkers: Duration { state.withLock { $0.threads.reduce(.zero) { $0 + $1.untimed } } }

    private func ordinal() -> Int {
        let id = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
        return state.withLock { state in
            if let known = state.ordinals[id] { return known }
            state.ordinals[id] = state.threads.count
            state.threads.append(Thread())
            return state.threads.count - 1
        }
    }

    /// The CPU time the current thread has used (on the calling thread: `callerCPU` for `report`
    /// and `serialFraction`).
    public static func threadCPU() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The CPU time the whole process has used (every thread, user and system).
    public static func processCPU() -> Duration {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }

    /// The CPU time of each stage on each thread (thread 0 is the calling thread).
    public var cpuByThread: [[Stage: Duration]] { state.withLock { $0.threads.map(\.cpu) } }

    /// The wall time each thread spent waiting for another.
    public var waitingByThread: [Duration] { state.withLock { $0.threads.map(\.waiting) } }

    /// The share of `totalCPU` spent where every worker waits: the serial stages, and what no
    /// stage claims (`totalCPU` minus every stage and the workers' untimed time). Measured with one
    /// job, it is the serial fraction `s` of Amdahl's law.
    ///
    /// With `callerCPU` (the calling thread's whole CPU time, `threadCPU()` read on it), only the
    /// calling thread's unclaimed time is `other`; what is left (threads starting and ending,
    /// outside their own accounting) runs on those threads and is not serial.
    public func serialFraction(totalCPU: Duration, callerCPU: Duration? = nil) -> Double {
        let threads = cpuByThread
        let serial = threads.reduce(Duration.zero) { sum, thread in
            sum + thread.filter { $0.key.isSerial }.values.reduce(.zero, +)
        }
        return Self.seconds(serial + unclaimed(totalCPU: totalCPU, callerCPU: callerCPU).other) / max(Self.seconds(totalCPU), 1e-9)
    }

    /// The CPU time no stage claims: on the calling thread (`other`, serial), and on threads
    /// outside their own accounting (`threads`; known only with `callerCPU`).
    private func unclaimed(totalCPU: Duration, callerCPU: Duration?) -> (other: Duration, threads: Duration) {
        let threads = cpuByThread
        let claimed = threads.reduce(Duration.zero) { $0 + $1.values.reduce(.zero, +) }
        let outside = max(totalCPU - claimed - untimedOnWorkers, .zero)
        guard let callerCPU else { return (outside, .zero) }
        let other = min(max(callerCPU - threads[0].values.reduce(.zero, +), .zero), outside)
        return (other, outside - other)
    }

    /// The speed-up Amdahl's law predicts with `jobs` threads for a serial fraction.
    public static func predictedSpeedUp(serialFraction: Double, jobs: Int) -> Double {
        1 / (serialFraction + (1 - serialFraction) / Double(jobs))
    }

    /// A table of CPU milliseconds per stage (rows) and thread (columns), the waiting per thread,
    /// the serial fraction over `totalCPU` and the speed-ups it predicts.
    public func report(totalCPU: Duration, callerCPU: Duration? = nil) -> String {
        let threads = cpuByThread
        let waits = waitingByThread
        let names = threads.indices.map { $0 == 0 ? "caller" : "thread \($0)" }
        func ms(_ duration: Duration) -> String { Self.format("%.1f", Self.seconds(duration) * 1000) }
        func row(_ label: String, _ cells: [String]) -> String {
            label.prefix(10) + String(repeating: " ", count: max(0, 10 - label.count)) + cells.map { String(repeating: " ", count: max(0, 10 - $0.count)) + $0 }.joined(separator: " ")
        }
        var lines = [row("ms CPU", names + ["total", "share"])]
        let claimed = threads.reduce(Duration.zero) { $0 + $1.values.reduce(.zero, +) }
        let total = max(totalCPU, claimed)
        func share(_ duration: Duration) -> String { Self.format("%.1f%%", Self.seconds(duration) / max(Self.seconds(total), 1e-9) * 100) }
        for stage in Stage.allCases {
            let cells = threads.map { $0[stage] ?? .zero }
            let sum = cells.reduce(.zero, +)
            guard sum > .zero else { continue }
            lines.append(row(stage.rawValue + (stage.isSerial ? " *" : ""), cells.map(ms) + [ms(sum), share(sum)]))
        }
        let untimed = state.withLock { $0.threads.map(\.untimed) }
        let untimedSum = untimed.reduce(.zero, +)
        if untimedSum > .zero {
            lines.append(row("untimed", untimed.enumerated().map { $0.offset == 0 ? "" : ms($0.element) } + [ms(untimedSum), share(untimedSum)]))
        }
        let (other, threadsOutside) = unclaimed(totalCPU: total, callerCPU: callerCPU)
        if threadsOutside > .zero {
            lines.append(row("threads", names.map { _ in "" } + [ms(threadsOutside), share(threadsOutside)]))
        }
        lines.append(row("other *", (callerCPU == nil ? names.map { _ in "" } : [ms(other)] + names.dropFirst().map { _ in "" }) + [ms(other), share(other)]))
        lines.append(row("total", names.map { _ in "" } + [ms(total), share(total)]))
        lines.append(row("waiting", waits.map(ms) + ["(wall)", ""]))
        let fraction = serialFraction(totalCPU: total, callerCPU: callerCPU)
        let predictions = [2, 4, 8, 12, 16].map { "\($0): " + Self.format("%.1f×", Self.predictedSpeedUp(serialFraction: fraction, jobs: $0)) }
        lines.append(Self.format("serial fraction (* stages over all CPU) %.2f%%; Amdahl predicts ", fraction * 100)
            + predictions.joined(separator: ", ") + " (meaningful when measured with --jobs 1)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `number` written by C's `printf` `format` (one floating-point conversion).
    static func format(_ format: String, _ number: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let count = withVaList([number]) { vsnprintf(&buffer, buffer.count, format, $0) }
        return String(decoding: buffer.prefix(max(0, min(Int(count), buffer.count - 1))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension StageProfile {
    /// The CPU time the current thread has spent reading so far.
    private func readCPU() -> Duration {
        let thread = ordinal()
        return state.withLock { $0.threads[thread].cpu[.read] ?? .zero }
    }

    /// The CPU time the current thread's stages have claimed so far.
    private func claimedCPU() -> Duration {
        let thread = ordinal()
        return state.withLock { $0.threads[thread].cpu.values.reduce(.zero, +) }
    }

    /// Runs `body`, whose stages are timed inside it, and adds what they did not claim of its CPU
    /// time to `stage`: the glue of work that runs on a mapping thread (batches put together and
    /// taken apart), which belongs to that work and not to `other`.
    func measureRemainder<Result, Failure: Error>(_ stage: Stage, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let claimedBefore = claimedCPU()
        let start = Self.threadCPU()
        defer { add(stage, max(Self.threadCPU() - start - (claimedCPU() - claimedBefore), .zero)) }
        return try body()
    }

    /// Runs `body`, which cuts the input and reads it as needed, as the `cut` stage, less the time
    /// its reads took (timed as the `read` stage).
    func measureCut<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let readBefore = readCPU()
        let start = Self.threadCPU()
        defer { add(.cut, Self.threadCPU() - start - (readCPU() - readBefore)) }
        return try body()
    }
}

extension Optional<StageProfile> {
    /// Runs `body`, timing it as `stage` when there is a profile.
    @inline(__always)
    package func measure<Result, Failure: Error>(_ stage: StageProfile.Stage, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let profile = self else { return try body() }
        return try profile.measure(stage, body)
    }

    /// `StageProfile.measureRemainder` when there is a profile.
    @inline(__always)
    func measureRemainder<Result, Failure: Error>(_ stage: StageProfile.Stage, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let profile = self else { return try body() }
        return try profile.measureRemainder(stage, body)
    }

    /// `StageProfile.measureCut` when there is a profile.
    @inline(__always)
    func measureCut<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        guard let profile = self else { return try body() }
        return try profile.measureCut(body)
    }
}
