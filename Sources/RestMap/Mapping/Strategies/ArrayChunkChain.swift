import RestMapJSON

/// The order-dependent part of cutting an array in a regular file on the mapping threads
/// (`JSONPositionalArrayChunks`): the nesting at each chunk's first byte, and the cursor each
/// chunk's elements are read from, both passed from chunk to chunk in input order.
///
/// A thread cutting chunk `k`:
/// 1. with several jobs, claims where its elements begin and cuts them from there
///    (`JSONPositionalArrayChunks.guess`). An array of objects that begin with one key (a
///    listing: `[{"id": …}, {"id": …}]`) is claimed by the elements' shape near the chunk's start
///    (`claimByShape`); any other array by its nesting: the thread summarizes its chunk, then
///    waits for the nesting at its first byte (one step per chunk before it, `InOrderFold`);
/// 2. waits for the cursor where chunk `k − 1`'s cut stopped and the number of elements before it;
///    keeps its own cut when its claim was that cursor, and cuts again from it otherwise (`settle`;
///    never for valid JSON);
/// 3. publishes where its cut stopped for chunk `k + 1`.
///
/// Chunks are handed out in order and every thread publishes before it waits for later chunks,
/// so waits are only for cuts already running. With one job nothing is guessed: each chunk is
/// cut once, from the cursor the one before stopped at.
final class ArrayChunkChain: Sendable {
    /// The nesting at each chunk's first byte (`nil`: not known, after a chunk that could not be summarized).
    private let nestings = InOrderFold<JSONArrayChunkSummary?, JSONArrayNesting?>(.elementLevel) { nesting, summary in
        summary.flatMap { summary in nesting.map { summary.nesting(after: $0) } }
    }
    /// Where each chunk's cut stopped, and the elements before that place.
    private let exits = Monitor([Int: (cursor: JSONArrayCursor, elementsBefore: Int)]())
    private let entry: JSONArrayCursor
    private let chunks: JSONPositionalArrayChunks
    private let speculates: Bool
    /// The key every element is expected to begin with, when chunks are claimed by shape.
    private let leadingKey: [UInt8]?

    /// - Parameters:
    ///   - entry: the cursor after the array's `[`, where chunk 0's elements begin.
    ///   - chunks: the chunks cut.
    ///   - speculates: whether chunks are cut before the one before them is (several jobs); they
    ///     are claimed by shape when the array's first element begins with a key
    ///     (`JSONPositionalArrayChunks.leadingKey()`), by nesting otherwise.
    init(entry: JSONArrayCursor, chunks: JSONPositionalArrayChunks, speculates: Bool) {
        self.entry = entry
        self.chunks = chunks
        self.speculates = speculates
        leadingKey = speculates ? chunks.leadingKey() : nil
    }

    /// Chunk `number`'s elements, numbered in the whole array, and the error that ends the stream
    /// after them.
    func cut(chunk number: Int, profile: StageProfile?) -> (batch: JSONElementBatch?, failure: JSONStreamError?) {
        let guess = speculates ? self.guess(chunk: number, profile: profile) : nil
        let (truth, elementsBefore) = number == 0 ? (entry, 0) : exits.wait(until: { $0.removeValue(forKey: number - 1) },
                                                                            waited: profile?.addWait)
        var (cut, _) = profile.measure(.split) { chunks.settle(chunk: number, guess: guess, truth: truth) }
        exits.update { $0[number] = (cut.exit, elementsBefore + cut.elementCount) }
        cut.batch?.firstIndex = elementsBefore
        if let element = cut.failure?.element { cut.failure?.element = elementsBefore + element }
        return (cut.batch, cut.failure)
    }

    /// Chunk `number`'s elements cut from where it claims they begin, before the chunk before it
    /// is cut; `nil` for chunk 0 (it begins at the entry) and when nothing can be claimed.
    private func guess(chunk number: Int, profile: StageProfile?) -> JSONArrayChunkGuess? {
        let claim: JSONArrayChunkClaim
        if let leadingKey {
            guard number > 0 else { return nil }
            claim = profile.measure(.scan) { chunks.claimByShape(chunk: number, key: leadingKey) }
        } else {
            // Every chunk's summary is published, chunk 0's included, for the nestings after it.
            let summary = profile.measure(.scan) { chunks.summarize(chunk: number) }
            let nesting = nestings.publish(summary, of: number, waited: profile?.addWait)
            guard number > 0, let nesting, let summary else { return nil }
            claim = profile.measure(.scan) { chunks.claim(chunk: number, nesting: nesting, summary: summary) }
        }
        return profile.measure(.split) { chunks.guess(chunk: number, claim: claim) }
    }
}
