import Glibc

/// A detached thread of the system's own, started with `pthread_create`.
///
/// Foundation's `Thread.start()` ignores the system's refusal to create a thread (and waiting for
/// such a thread hangs), and linking Foundation costs every process start; this is the one place
/// the library and the CLI start threads outside the thread pool.
package enum SystemThread {
    /// Starts a detached thread running `body`; `false` when the system refuses to create it.
    @discardableResult
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
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
