/// Values the threads publish for numbered chunks in any order, folded in chunk order: each chunk
/// learns the fold of every chunk before it once those are published (the line numbers of NDJSON
/// chunks, the nesting at the start of an array file's chunks).
///
/// Chunks are handed out in order and each thread publishes before it waits, so a wait is only
/// for chunks already being worked on.
final class InOrderFold<Value: Sendable, Total: Sendable>: Sendable {
    private struct State {
        /// Values published ahead of a chunk not yet published.
        var pending: [Int: Value] = [:]
        /// Chunks `0..<folded` are folded into `total`.
        var folded = 0
        var total: Total
        /// The fold before each folded chunk not yet told it.
        var before: [Int: Total] = [:]
    }

    private let state: Monitor<State>
    private let combine: @Sendable (Total, Value) -> Total

    /// A fold that starts at `initial` and adds each chunk's value with `combine`.
    init(_ initial: Total, combine: @escaping @Sendable (Total, Value) -> Total) {
        state = Monitor(State(total: initial))
        self.combine = combine
    }

    /// Publishes chunk `number`'s value; the fold of the chunks before it, once they are all
    /// published. `waited` learns the time spent waiting.
    func publish(_ value: Value, of number: Int, waited: ((Duration) -> Void)?) -> Total {
        state.update { state in
            state.pending[number] = value
            while let next = state.pending.removeValue(forKey: state.folded) {
                state.before[state.folded] = state.total
                state.total = combine(state.total, next)
                state.folded += 1
            }
        }
        return state.wait(until: { $0.before.removeValue(forKey: number) }, waited: waited)
    }

    /// The fold of every chunk published so far, once at least the first `count` are folded.
    func total(ofAtLeast count: Int) -> Total {
        state.wait { $0.folded >= count ? $0.total : nil }
    }
}
