/// State shared between threads, guarded by one lock, with a condition to wait on until the
/// state allows going on: the one synchronization primitive of the library's thread pool
/// (`OrderedWorkers`) and of what its workers share (`ArrayParts`).
///
/// Every read and write of the state happens inside `withLock`, `update` or `wait(until:)`;
/// that is what makes the unchecked `Sendable` conformance sound.
///
/// Threads waiting for different things can wait on different conditions (`wait(on:)`), so that
/// an update wakes only those it may concern (`updateAndWake`).
final class Monitor<State>: @unchecked Sendable {
    private let condition: ConditionLock
    private var state: State

    /// Whom an update wakes.
    enum Waking {
        /// One thread waiting on the condition.
        case one(Int)
        /// Every thread waiting on the condition.
        case all(Int)
    }

    init(_ state: State, conditions: Int = 1) {
        self.state = state
        condition = ConditionLock(conditions: conditions)
    }

    /// Reads or changes the state without waking anyone.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Changes the state and wakes every thread waiting on it.
    @discardableResult
    func update<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcastAll()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Changes the state and wakes the threads the change concerns, which `body` names (`nil`:
    /// none, as when a later change is the one a waiting thread needs), under one lock.
    func updateAndWake(_ body: (inout State) -> Waking?) {
        condition.lock()
        defer { condition.unlock() }
        switch body(&state) {
        case .one(let index): condition.signal(index)
        case .all(let index): condition.broadcast(index)
        case nil: break
        }
    }

    /// Waits as `wait(on:until:waited:)` does, until `ready` gives a value and, with it, whom its
    /// change of the state wakes (as `updateAndWake`), under the same lock: a thread taking one of
    /// several jobs wakes the next thread for the rest, instead of whoever queued them waking every thread.
    func waitAndWake<Result>(on conditionIndex: Int = 0, until ready: (inout State) -> (Result, Waking?)?,
                             waited: ((Duration) -> Void)? = nil) -> Result {
        wait(on: conditionIndex, until: { state in
            guard let (result, waking) = ready(&state) else { return nil }
            switch waking {
            case .one(let index)?: condition.signal(index)
            case .all(let index)?: condition.broadcast(index)
            case nil: break
            }
            return result
        }, waited: waited)
    }

    /// Waits on a condition until `ready` gives a value (it runs with the lock held, first at
    /// once, then each time another thread updates the state and wakes this one), and returns
    /// that value; `waited` learns the wall time spent waiting, for the stage profile.
    func wait<Result>(on conditionIndex: Int = 0, until ready: (inout State) -> Result?, waited: ((Duration) -> Void)? = nil) -> Result {
        condition.lock()
        defer { condition.unlock() }
        if let result = ready(&state) { return result }
        let clock = ContinuousClock()
        let start = clock.now
        defer { waited?(clock.now - start) }
        while true {
            condition.wait(on: conditionIndex)
            if let result = ready(&state) { return result }
        }
    }
}
