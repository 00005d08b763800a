import RestMapJSON

/// The order-dependent part of cutting an array in a regular file on the mapping threads
/// (`JSONPositionalArrayChunks`): the nesting at each chunk's first byte, and the cursor each
/// chunk's elements are read from, both passed from chunk to chunk in input order.
///
/// A thread cutting chunk `k`:
/// 1. with several jobs, summarizes its chunk, then waits for the nesting at its first byte (one
///    step per chunk before it, taken by whichever thread has the summary it needs), claims where
///    its elements begin and cuts them from there;
/// 2. waits for the cursor where chunk `k − 1`'s cut stopped and the number of elements before it;
///    keeps its own cut when its claim was that cursor, and cuts again from it otherwise (never
///    for valid JSON);
/// 3. publishes where its cut stopped for chunk `k + 1`.
///
/// Chunks are handed out in order and every thread publishes before it waits for later chunks,
/// so waits are only for cuts already running. With one job nothing is guessed: each chunk is
/// cut once, from the cursor the one before stopped at.
final class ArrayChunkChain: Sendable {
    private struct State {
        /// Summaries of chunks whose nesting is not known yet (`nil`: a chunk that could not be read).
        var summaries: [Int: JSONArrayChunkSummary?] = [:]
        /// The nesting at the first byte of chunk `nested` (`nil`: not known, from a chunk unread).
        var nested = 0
        var nesting: JSONArrayNesting? = .elementLevel
        /// The nesting at the first byte of chunks not yet told theirs.
        var nestings: [Int: JSONArrayNesting?] = [:]
        /// Where each chunk's cut stopped, and the elements before that place.
        var exits: [Int: (cursor: JSONArrayCursor, elementsBefore: Int)] = [:]
    }

    private let state = Monitor(State())
    private let entry: JSONArrayCursor
    private let speculates: Bool

    /// - Parameters:
    ///   - entry: the cursor after the array's `[`, where chunk 0's elements begin.
    ///   - speculates: whether chunks are cut before the one before them is (several jobs).
    init(entry: JSONArrayCursor, speculates: Bool) {
        self.entry = entry
        self.speculates = speculates
    }

    /// Chunk `number`'s elements, numbered in the whole array, and the error that ends the stream
    /// after them.
    func cut(chunk number: Int, of chunks: JSONPositionalArrayChunks, profile: StageProfile?) -> (batch: JSONElementBatch?, failure: JSONStreamError?) {
        var guess: (claim: JSONArrayChunkClaim, cut: JSONArrayChunkCut?)?
        if speculates {
            let summary = profile.measure(.scan) { chunks.summarize(chunk: number) }
            let nesting = publish(summary, of: number, profile: profile)
            if number > 0, let nesting, let summary {
                let claim = profile.measure(.scan) { chunks.claim(chunk: number, nesting: nesting, summary: summary) }
                if case .cursor(let cursor) = claim {
                    guess = (claim, profile.measure(.split) { chunks.cut(chunk: number, from: cursor) })
                } else {
                    guess = (claim, nil)
                }
            }
        }
        let (cursor, elementsBefore) = number == 0 ? (entry, 0) : state.wait(until: { $0.exits.removeValue(forKey: number - 1) },
                                                                             waited: profile?.addWait)
        var cut: JSONArrayChunkCut
        switch guess {
        case (.cursor(let claimed), let guessed?)? where claimed == cursor:
            cut = guessed
        case (.noElementStarts, _)? where Self.lies(cursor, atOrAfter: chunks.range(of: number).upperBound):
            cut = JSONArrayChunkCut(batch: nil, exit: cursor)
        default:
            cut = profile.measure(.split) { chunks.cut(chunk: number, from: cursor) }
        }
        state.update { $0.exits[number] = (cut.exit, elementsBefore + cut.elementCount) }
        cut.batch?.firstIndex = elementsBefore
        if let element = cut.failure?.element { cut.failure?.element = elementsBefore + element }
        return (cut.batch, cut.failure)
    }

    private static func lies(_ cursor: JSONArrayCursor, atOrAfter offset: Int) -> Bool {
        switch cursor {
        case .ended: true
        case .element(let element): element.offset >= offset
        }
    }

    /// Publishes a chunk's summary, takes every step it makes possible, and waits for the nesting
    /// at the chunk's own first byte.
    private func publish(_ summary: JSONArrayChunkSummary?, of number: Int, profile: StageProfile?) -> JSONArrayNesting? {
        state.update { state in
            state.summaries[number] = .some(summary)
            while let next = state.summaries.removeValue(forKey: state.nested) {
                state.nestings[state.nested] = .some(state.nesting)
                state.nesting = next.flatMap { summary in state.nesting.map { summary.nesting(after: $0) } }
                state.nested += 1
            }
        }
        return state.wait(until: { $0.nestings.removeValue(forKey: number) }, waited: profile?.addWait)
    }
}
