import RestMapJSON

/// The strategy for a large body that is one JSON array of one descriptor's representations:
/// it is cut into parts of whole elements, so that only the parts being mapped have a document.
///
/// - With several jobs, each part is parsed and mapped on a thread of the pool (`OrderedWorkers`)
///   with a plan of its own, into a session of its own, so the threads share no document and no
///   plan; the sessions are then merged on the same threads (`MappingSession.merge`).
/// - With one job, the parts (about a megabyte each) are parsed one after another on the calling
///   thread and mapped into one session: one part's document at a time, its memory reused by the
///   next, instead of a document of the whole body, whose fresh pages the kernel had to clear
///   (measured: two fifths of the time of a 20 MB body went to clearing pages).
///
/// Either way the result is what `WholeDocumentMapping` gives: the same records in the same order,
/// merged by identification, with relationships assigned as one session would, and the same errors.
///
/// An array of objects is cut where one object ends and the next begins (`ArrayParts`), without
/// scanning it element by element first; otherwise, or when a cut turns out to be inside an
/// element, `JSONElementStream` splits it element by element. A body it cannot split at all
/// (malformed JSON among others) is mapped by `WholeDocumentMapping`, which reports malformed JSON.
struct SplitBodyMapping: MappingStrategy {
    /// The smallest body `MappingOptions.jobs` splits across threads.
    static let smallestBody = 1 << 20

    let mapper: Mapper
    let entity: Int

    /// The bytes of a part mapped on the calling thread, with one job.
    static let partBytes = 1 << 20

    /// `nil` unless the response is one to split: no value limit, a JSON success body of at least
    /// `smallestBody` bytes (`bodyByteCount`: in `response.body`, or in a file), one descriptor
    /// mapping the whole body, and an entity whose records come out the same when mapped in
    /// separate sessions (or, with one job, part by part).
    init?(_ response: MatchedResponse, bodyByteCount: Int, mapper: Mapper, options: MappingOptions) {
        guard options.maximumValueCount == .max, !response.isError, response.descriptors.count == 1,
              bodyByteCount >= Self.smallestBody, mapper.nonJSONMediaType(of: response.response) == nil,
              let descriptor = response.descriptors.first?.descriptor, descriptor.keyPath == nil, descriptor.keyedBy.isEmpty,
              // Total: MappingPlan.init refuses a descriptor naming an undefined entity.
              let entity = mapper.plan.entityIndex[descriptor.entity.value],
              Self.isSplittable(entity, mapper: mapper, intoSessions: options.jobs > 1)
        else { return nil }
        self.mapper = mapper
        self.entity = entity
    }

    func map(_ response: MatchedResponse, options: MappingOptions) throws(MappingFailure) -> MappingResult {
        guard let (session, roots) = mapParts(response, options: options) else {
            return try WholeDocumentMapping(mapper: mapper).map(response, options: options)
        }
        return try result(of: session, roots: roots, response: response, options: options)
    }

    /// The result of a body mapped part by part into `session`, whose roots are `roots`.
    func result(of session: MappingSession, roots: [Int], response: MatchedResponse,
                options: MappingOptions) throws(MappingFailure) -> MappingResult {
        if options.strict, !session.errors.isEmpty { throw .invalidRecords(session.errors) }
        let graph = RecordGraph(plan: mapper.plan, records: session.records)
        let records = roots.map { Record(graph: graph, index: $0) }
        return MappingResult(keyPaths: [("", records)], records: records, errors: session.errors,
                             routingParameters: response.parameters, graph: graph)
    }

    /// The session holding every record, and the roots; `nil` when the body cannot be split.
    func mapParts(_ response: MatchedResponse, options: MappingOptions) -> (session: MappingSession, roots: [Int])? {
        let body = response.response.body
        let jobs = options.jobs
        let profile = options.profile
        if jobs == 1 { return mapPartsInOneSession(response, profile: profile) }
        let mapper = mapper
        let worker: @Sendable (Int) -> Mapper = { mapper.forThread($0, profile: profile) }
        let (entity, metadata) = (entity, response.metadata)
        // More parts than threads, so a thread that finishes early takes another.
        let partCount = 8 * jobs
        let shardCount = MappedParts.shardCount(jobs: jobs)
        let plan = mapper.plan
        if let parts = profile.measure(.cut, { ArrayParts(body, count: partCount) }) {
            var mapped = MappedParts()
            let pool = OrderedWorkers(threads: jobs, profile: profile, worker: worker) { (worker: Mapper, part: Int) -> MappedRun? in
                guard let (nodes, firstIndex) = profile.measure(.parse, { parts.elements(ofPart: part, profile: profile) }) else { return nil }
                return Self.map(nodes, firstIndex: firstIndex, entity: entity, metadata: metadata, with: worker,
                                shardCount: shardCount, profile: profile)
            }
            for run in pool.map(Array(0..<parts.count)) { mapped.take(MappedPart(run)) }
            // A part that does not parse was cut inside an element (or the body is malformed):
            // the stream below splits it element by element.
            if let merged = mapped.merged(plan: plan, on: pool, profile: profile) { return merged }
        }
        guard body.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[") else { return nil }
        var mapped = MappedParts()
        let pool = OrderedWorkers(threads: jobs, profile: profile, worker: worker) { worker, batch in
            Self.map(batch, entity: entity, metadata: metadata, with: worker, shardCount: shardCount, profile: profile)
        }
        var stream = JSONElementStream(bytes: body, layout: .array(keys: []))
        let batchBytes = max(body.count / partCount, 1 << 16)
        do {
            try pool.run(next: { () throws(JSONStreamError) in
                try profile.measure(.cut) { () throws(JSONStreamError) in try stream.nextBatch(targetBytes: batchBytes) }
            }, take: { mapped.take(MappedPart($0)) })
        } catch {
            return nil
        }
        return mapped.merged(plan: plan, on: pool, profile: profile)
    }

    /// One job: the parts parsed one after another and mapped into one session, each part's
    /// document let go before the next is parsed. `nil` when a part does not parse (the body is
    /// malformed, or a cut is inside an element): `WholeDocumentMapping` maps it then.
    private func mapPartsInOneSession(_ response: MatchedResponse, profile: StageProfile?) -> (session: MappingSession, roots: [Int])? {
        let body = response.response.body
        guard let parts = profile.measure(.cut, { ArrayParts(body, count: max(body.count / Self.partBytes, 2)) }) else { return nil }
        var mapped = OneSession(mapper: mapper, entity: entity, metadata: response.metadata, bodyByteCount: body.count)
        for part in 0..<parts.count {
            guard let (nodes, firstIndex) = profile.measure(.parse, { parts.elements(ofPart: part) }) else { return nil }
            profile.measure(.map) { mapped.map(nodes, firstIndex: firstIndex, partByteCount: parts.byteCount(ofPart: part)) }
        }
        guard let session = mapped.session else { return nil }
        return (session, mapped.roots)
    }

    /// The parts of a body mapped one after another into one session (one job).
    struct OneSession {
        let mapper: Mapper
        let entity: Int
        let metadata: Metadata
        let bodyByteCount: Int
        private(set) var session: MappingSession?
        private(set) var roots: [Int] = []

        init(mapper: Mapper, entity: Int, metadata: Metadata, bodyByteCount: Int) {
            self.mapper = mapper
            self.entity = entity
            self.metadata = metadata
            self.bodyByteCount = bodyByteCount
        }

        /// Maps a part's elements, the first at `firstIndex`; the part has `partByteCount` bytes.
        mutating func map(_ nodes: [JSONNode], firstIndex: Int, partByteCount: Int) {
            guard let root = nodes.first else { return }
            let session = session ?? {
                // The scope's root is never read: entities reading '@root' are not split.
                let created = MappingSession(plan: mapper.plan, root: root, metadata: metadata)
                // Room for the whole body's records and identities, scaled from the first part.
                let expected = Int(Double(nodes.count) * Double(bodyByteCount) / Double(max(partByteCount, 1)))
                created.records.reserveCapacity(expected)
                created.identities[entity].reserveCapacity(expected)
                roots.reserveCapacity(expected)
                self.session = created
                return created
            }()
            SplitBodyMapping.map(nodes, firstIndex: firstIndex, entity: entity, into: session, roots: &roots)
        }
    }

    /// What a thread made of one part.
    enum MappedPart: Sendable {
        case mapped(MappedRun)
        /// A part in which no element begins (a chunk of a file inside one long element).
        case empty
        /// A part that did not parse, or could not be read: the body is split another way.
        case failed

        init(_ run: MappedRun?) {
            self = run.map { .mapped($0) } ?? .failed
        }
    }

    /// The sessions of the parts mapped so far, in input order, merged once all are mapped.
    struct MappedParts {
        private var runs: [MappedRun] = []
        private(set) var malformed = false

        mutating func take(_ part: MappedPart) {
            guard !malformed else { return }
            switch part {
            case .mapped(let run): runs.append(run)
            case .empty: return
            case .failed: malformed = true
            }
        }

        /// The shards a merge on `jobs` threads cuts identified records into: enough that the
        /// threads share the work evenly; few enough that each part's claims stay cheap to cut.
        static func shardCount(jobs: Int) -> Int { min(4 * jobs, 64) }

        /// The parts merged into one session on the threads of `pool` (`MappingSession.merge`);
        /// `nil` when a part did not parse, or none was mapped.
        func merged<Worker, Batch, Output>(plan: MappingPlan, on pool: OrderedWorkers<Worker, Batch, Output>,
                                           profile: StageProfile?) -> (session: MappingSession, roots: [Int])? {
            guard !malformed, !runs.isEmpty else { return nil }
            return MappingSession.merge(runs, plan: plan, on: pool, profile: profile)
        }
    }

    /// Whether an entity's records come out the same when the elements are mapped part by part:
    /// nothing it reaches needs the whole document (`connect`, `@root`), and, when the parts go to
    /// separate sessions to be merged, no relationship both extends its list (`assign: union`)
    /// and is cleared when missing (whose merge would depend on the order of clears and unions
    /// across sessions; one session keeps that order).
    private static func isSplittable(_ entity: Int, mapper: Mapper, intoSessions: Bool) -> Bool {
        guard (try? mapper.checkStreamable(entity)) != nil else { return false }
        guard intoSessions else { return true }
        return !mapper.plan.entities.contains { entityPlan in
            entityPlan.assignsNilForMissingRelationships && entityPlan.relationships.contains { $0.assignment == .union }
        }
    }

    /// Parses a batch and maps its elements in a session of its own; `nil` when an element is
    /// not valid JSON.
    static func map(_ batch: JSONElementBatch, entity: Int, metadata: Metadata, with worker: Mapper,
                    shardCount: Int, profile: StageProfile?) -> MappedRun? {
        guard let nodes = profile.measure(.parse, { batch.nodes() }) else { return nil }
        return map(nodes, firstIndex: batch.firstIndex, entity: entity, metadata: metadata, with: worker,
                   shardCount: shardCount, profile: profile)
    }

    /// Maps consecutive elements of the array, the first at `firstIndex`, in a session of their
    /// own, and cuts its identified records into `shardCount` shards for the merge (`claim`).
    /// The session holds no node afterwards, so the elements' document ends with the nodes.
    static func map(_ nodes: [JSONNode], firstIndex: Int, entity: Int, metadata: Metadata, with worker: Mapper,
                    shardCount: Int, profile: StageProfile?) -> MappedRun? {
        guard let root = nodes.first else { return nil }
        // The scope's root is never read: entities reading '@root' are not split.
        let session = MappingSession(plan: worker.plan, root: root, metadata: metadata)
        // Room for the part's records and identities at once, not by regrowing.
        session.records.reserveCapacity(nodes.count)
        session.identities[entity].reserveCapacity(nodes.count)
        var roots: [Int] = []
        roots.reserveCapacity(nodes.count)
        profile.measure(.map) { map(nodes, firstIndex: firstIndex, entity: entity, into: session, roots: &roots) }
        let claims = profile.measure(.claim) { MergeClaims(of: session, shardCount: shardCount) }
        return MappedRun(session: session, roots: roots, claims: claims)
    }

    /// Maps consecutive elements of the array, the first at `firstIndex`, into `session`, adding
    /// their records to `roots`; then the session lets go of what it remembers of their nodes, so
    /// their document can end.
    static func map(_ nodes: [JSONNode], firstIndex: Int, entity: Int, into session: MappingSession, roots: inout [Int]) {
        for (position, node) in nodes.enumerated() {
            let index = firstIndex + position
            session.path = [.index(index)]
            if let record = session.map(node, entity: entity, collectionIndex: index) { roots.append(record) }
        }
        session.path = []
        session.releaseDocument()
    }
}

/// A session filled by one thread and handed to the merge (`MappingSession.merge`), whose phases
/// never use one session on two threads at once. A class: the merge takes its claims out, so that
/// it frees them on the pool's threads rather than the last holder of a copy on the calling thread.
final class MappedRun: @unchecked Sendable {
    let session: MappingSession
    let roots: [Int]
    /// Taken by the merge (`takeClaims()`).
    private var claims: MergeClaims?

    init(session: MappingSession, roots: [Int], claims: MergeClaims) {
        self.session = session
        self.roots = roots
        self.claims = claims
    }

    /// The claims, which the run holds no more.
    func takeClaims() -> MergeClaims {
        defer { claims = nil }
        return claims!
    }
}
