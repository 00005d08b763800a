import RestMapJSON
import Synchronization

/// `SplitBodyMapping` for a body that is a regular file (`Mapper.map(_:bodyIn:options:)`): the
/// parts are the chunks of `JSONPositionalArrayChunks`, each read from the file and parsed where
/// it lies by the thread that maps it, so the body is never held whole and no thread reads it all.
///
/// - With one job, the chunks are cut one after another on the calling thread, each from where
///   the one before stopped (`ArrayChunkChain`, guessing nothing), and mapped into one session
///   (`OneSession`), as a body in memory is.
/// - With several, each thread cuts its own chunk (`ArrayChunkChain`, as a streamed array in a
///   file is cut), maps it into a session of its own, and the sessions are merged (`MappingSession.merge`).
///
/// Either way the records, their order, the merges and the errors are those of the same bytes
/// mapped from memory. A chunk that does not read or parse (the body is malformed, or not an
/// array) makes the whole mapping give way: the caller reads the body and maps it from memory,
/// which reports what is wrong exactly as before.
extension SplitBodyMapping {
    /// The file's array mapped part by part; `nil` when a part does not read or parse.
    func mapFile(_ file: JSONPositionalBytes, response: MatchedResponse, options: MappingOptions) throws(MappingFailure) -> MappingResult? {
        guard let (session, roots) = mapFileParts(file, response: response, options: options) else { return nil }
        return try result(of: session, roots: roots, response: response, options: options)
    }

    private func mapFileParts(_ file: JSONPositionalBytes, response: MatchedResponse,
                              options: MappingOptions) -> (session: MappingSession, roots: [Int])? {
        let profile = options.profile
        let layout = JSONStreamLayout.array(keys: [])
        var header = JSONElementStream(source: JSONPositionalReader(file), layout: layout, bufferSize: 64 << 10)
        guard let entry = try? profile.measureCut({ () throws(JSONStreamError) in try header.arrayEntry() }) else { return nil }
        let byteCount = file.count()
        let jobs = options.jobs
        // About a megabyte a part with one job; with several, more parts than threads, so a
        // thread that finishes early takes another (as for a body in memory).
        let partBytes = jobs == 1 ? Self.partBytes : max(byteCount / (8 * jobs), 1 << 16)
        var chunks = JSONPositionalArrayChunks(bytes: file, layout: layout, entry: entry, chunkBytes: partBytes)
        let chain = ArrayChunkChain(entry: entry, chunks: chunks, speculates: jobs > 1)
        if jobs == 1 {
            var mapped = OneSession(mapper: mapper, entity: entity, metadata: response.metadata, bodyByteCount: byteCount)
            while let number = chunks.nextChunk() {
                let (batch, failure) = chain.cut(chunk: number, profile: profile)
                guard failure == nil else { return nil }
                guard let batch else { continue }
                guard let nodes = profile.measure(.parse, { batch.nodes() }) else { return nil }
                profile.measure(.map) { mapped.map(nodes, firstIndex: batch.firstIndex, partByteCount: partBytes) }
            }
            guard let session = mapped.session else { return nil }
            return (session, mapped.roots)
        }
        let mapper = mapper
        let (entity, metadata) = (entity, response.metadata)
        let shardCount = MappedParts.shardCount(jobs: jobs)
        // After a part that failed, the parts are still cut (a later chunk's cut may be waiting
        // for this one's), not mapped: the body is mapped from memory then.
        let failed = FailedPart()
        let pool = OrderedWorkers(threads: jobs, profile: profile, worker: { mapper.forThread($0, profile: profile) }) { (worker: Mapper, number: Int) -> MappedPart in
            let (batch, failure) = chain.cut(chunk: number, profile: profile)
            guard failure == nil, !failed.happened else {
                failed.happened = true
                return .failed
            }
            guard let batch else { return .empty }
            return MappedPart(Self.map(batch, entity: entity, metadata: metadata, with: worker, shardCount: shardCount, profile: profile))
        }
        // The chunks go to the threads in input order, so a chunk's cut waits only for cuts running.
        let numbers = profile.measure(.cut) { Array(sequence(state: chunks) { $0.nextChunk() }) }
        var mapped = MappedParts()
        for part in pool.map(numbers) { mapped.take(part) }
        return mapped.merged(plan: mapper.plan, on: pool, profile: profile)
    }
}

/// Whether a part of a split file has failed, for the threads cutting the parts after it.
private final class FailedPart: Sendable {
    private let flag = Atomic(false)

    var happened: Bool {
        get { flag.load(ordering: .relaxed) }
        set { flag.store(newValue, ordering: .relaxed) }
    }
}
