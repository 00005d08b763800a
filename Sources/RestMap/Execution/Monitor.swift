/// State shared between threads, guarded by one lock, with a condition to wait on until the
/// state allows going on: the one synchronization primitive of the library's thread pool
/// (`OrderedWorkers`) and of what its workers share (`ArrayParts`).
///
/// Every read and write of the state happens inside `withLock`, `update` or `wait(until:)`;
/// that is what makes the unchecked `Sendable` conformance sound.
final class Monitor<State>: @unchecked Sendable {
    private let condition = ConditionLock()
    private var state: State

    init(_ state: State) {
        self.state = state
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
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Waits until `ready` gives a value (it runs with the lock held, first at once, then each
    /// time another thread updates the state), and returns that value; `waited` learns the wall
    /// time spent waiting, for the stage profile.
    func wait<Result>(until ready: (inout State) -> Result?, waited: ((Duration) -> Void)? = nil) -> Result {
        condition.lock()
        defer { condition.unlock() }
        if let result = ready(&state) { return result }
        let clock = ContinuousClock()
        let start = clock.now
        defer { waited?(clock.now - start) }
        while true {
            condition.wait()
            if let result = ready(&state) { return result }
        }
    }
}
