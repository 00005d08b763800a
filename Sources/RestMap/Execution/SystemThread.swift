import Glibc

/// A detached thread of the system's own, started with `pthread_create`, and kept for the next
/// body a while after its own returns (`IdleThreads`).
///
/// Foundation's `Thread.start()` ignores the system's refusal to create a thread (and waiting for
/// such a thread hangs), and linking Foundation costs every process start; this is the one place
/// the library and the CLI start threads outside the thread pool.
package enum SystemThread {
    /// Runs `body` on a thread of its own: one of `idle`'s when one waits there, else a new one,
    /// which waits in `idle` for another body when `body` returns. `false` when no thread was
    /// idle and the system refuses to create one.
    ///
    /// Handing a body to an idle thread costs the calling thread a lock and a wake-up instead of
    /// creating a thread (its stack mapped, the kernel's task made): what the pools of a mapping
    /// and of its output, one after the other, would otherwise pay for every thread twice.
    @discardableResult
    package static func start(_ body: @escaping @Sendable () -> Void, idle: IdleThreads = .shared) -> Bool {
        start(1, idle: idle) { _ in body() } == 1
    }

    /// Runs `body(0)`, `body(1)`, … `body(count - 1)`, each on a thread of its own, as
    /// `start(_:idle:)` does: idle threads take theirs under one lock, waking one another, and the
    /// calling thread creates the rest. Returns how many started: fewer than `count` when the
    /// system refuses a thread (the bodies with the lowest indices are the ones that started).
    @discardableResult
    package static func start(_ count: Int, idle: IdleThreads = .shared, _ body: @escaping @Sendable (Int) -> Void) -> Int {
        var started = idle.handOver(count: count, body)
        while started < count, create({ [started] in body(started) }, idle: idle) { started += 1 }
        return started
    }

    /// Runs `body` on a new thread, which then waits in `idle` for another body.
    fileprivate static func create(_ body: @escaping @Sendable () -> Void, idle: IdleThreads) -> Bool {
        let context = Unmanaged.passRetained(ThreadBody { [idle] in
            body()
            while let next = idle.nextBody() { next() }
        }).toOpaque()
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
}

/// Threads whose body has returned, each waiting up to `lifetime` for another
/// (`SystemThread.start`); a thread that waited that long ends.
package final class IdleThreads: @unchecked Sendable {
    /// The process's idle threads: they end after five seconds without work, so a program that
    /// maps now and then holds no threads between, and one that maps body after body starts its
    /// threads once.
    package static let shared = IdleThreads(lifetime: .seconds(5))

    private let lifetime: Duration
    private let condition = ConditionLock()
    /// Threads waiting for a body (guarded by `condition`, as is every property below).
    private var idle = 0
    /// Bodies handed over and not yet taken; never more than `idle`.
    private var handedOver: [@Sendable () -> Void] = []

    /// Idle threads that wait up to `lifetime` for a body before they end.
    package init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// The threads waiting for a body now.
    package var count: Int { condition.withLock { idle - handedOver.count } }

    /// Creates threads on a thread of its own until about `count` wait here, and returns at once:
    /// a pool started soon after (`OrderedWorkers`) takes them instead of creating its own, and
    /// the calling thread goes on meanwhile (`restmap map` loads its schema).
    package func prepare(_ count: Int) {
        let missing = count - self.count
        guard missing > 0 else { return }
        // A new thread, which waits here too once it returns, creates the others.
        _ = SystemThread.create({ [self] in
            for _ in 1..<missing where !SystemThread.create({}, idle: self) { break }
        }, idle: self)
    }

    /// Hands `body(0)`, `body(1)`, … to as many waiting threads as there are, up to `count`, and
    /// wakes one of them (each wakes the next); returns how many were handed over.
    func handOver(count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Int {
        condition.withLock {
            let handed = min(idle - handedOver.count, count)
            guard handed > 0 else { return 0 }
            handedOver += (0..<handed).map { index in { body(index) } }
            condition.signal()
            return handed
        }
    }

    /// Waits for a body handed over, on the current thread whose body has returned; `nil` after
    /// `lifetime` without one: the thread ends.
    func nextBody() -> (@Sendable () -> Void)? {
        condition.withLock {
            idle += 1
            defer { idle -= 1 }
            let deadline = ConditionLock.deadline(after: lifetime)
            while handedOver.isEmpty {
                // A thread that timed out still takes a body handed over meanwhile.
                if !condition.wait(until: deadline) && handedOver.isEmpty { return nil }
            }
            let body = handedOver.removeFirst()
            if !handedOver.isEmpty { condition.signal() }
            return body
        }
    }
}

/// The closure a thread started by `SystemThread` runs.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// A mutex with condition variables (`pthread_mutex_t` and `pthread_cond_t`), the primitive
/// `Monitor` is built on. Several conditions let threads waiting for different things be woken
/// apart (condition 0 unless said).
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let conditionCount: Int

    package init(conditions: Int = 1) {
        conditionCount = max(conditions, 1)
        self.conditions = .allocate(capacity: conditionCount)
        pthread_mutex_init(mutex, nil)
        for index in 0..<conditionCount { pthread_cond_init(self.conditions + index, nil) }
    }

    deinit {
        for index in 0..<conditionCount { pthread_cond_destroy(conditions + index) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal on `condition`; the lock must be held, and is held again on return.
    package func wait(on condition: Int = 0) { pthread_cond_wait(conditions + condition, mutex) }

    /// Waits for a signal on `condition` until `deadline` (`deadline(after:)`); `false` when the
    /// deadline passed. The lock must be held, and is held again on return.
    package func wait(on condition: Int = 0, until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(conditions + condition, mutex, &deadline) != ETIMEDOUT
    }

    /// The time `duration` from now on the clock `wait(on:until:)` measures deadlines with.
    package static func deadline(after duration: Duration) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        return timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    }
    /// Wakes one thread waiting on `condition`.
    package func signal(_ condition: Int = 0) { pthread_cond_signal(conditions + condition) }
    /// Wakes every thread waiting on `condition`.
    package func broadcast(_ condition: Int = 0) { pthread_cond_broadcast(conditions + condition) }
    /// Wakes every thread waiting on any condition.
    package func broadcastAll() {
        for index in 0..<conditionCount { pthread_cond_broadcast(conditions + index) }
    }

    /// Runs `body` with the lock held.
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
