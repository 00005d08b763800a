import Synchronization

/// Values the calling thread is done with, freed by the worker threads (`free`, before their
/// next item) rather than by the calling thread, which every worker waits for: a stream's
/// delivered batches.
final class Retired<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func retire(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    /// Frees the values retired so far, outside the lock.
    func free() {
        _ = values.withLock { values in
            var taken: [Value] = []
            swap(&taken, &values)
            return taken
        }
    }
}
