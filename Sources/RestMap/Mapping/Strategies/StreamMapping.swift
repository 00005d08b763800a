import FoundationEssentials
import Synchronization
import RestMapJSON
import RestMapSchema

/// What a streamed input holds (see `Mapper.mapStream`).
public enum StreamInput: Sendable, Equatable {
    /// One JSON body: the array at the matched response descriptor's key path (or the whole body)
    /// is mapped element by element, as `map` maps it.
    case array
    /// NDJSON, each line a whole response body, mapped as `map` maps one response.
    case bodies
    /// NDJSON, each line one representation of the named entity, mapped as the elements of an
    /// array of them would be.
    case representations(entity: String)
}

/// Options of a streamed mapping.
public struct StreamOptions: Sendable {
    public var input: StreamInput
    /// Threads that map batches side by side; records keep input order.
    public var jobs: Int
    /// About how many input bytes one batch holds, with one job; with several, up to `2 × jobs`
    /// batches of half this size are in flight (memory is bounded by `jobs × batchBytes` of input).
    public var batchBytes: Int
    /// The most bytes one element (or line) may have: a longer one ends the stream with an error
    /// as soon as that many of its bytes are read (`StreamingFailure.malformed`, whose error is not
    /// `isMalformed`). At most, and by default, `JSONDocument.maximumByteCount`.
    public var maximumElementBytes: Int
    /// Where CPU time goes, per stage and thread (`nil`: not measured).
    public var profile: StageProfile?
    /// The format `RecordWriter.writeStream` renders in, on the mapping threads; the rendered
    /// batches let go of their records there (`nil`: batches keep their records).
    var renderFormat: StreamOutputFormat?

    public init(input: StreamInput, jobs: Int = 1, batchBytes: Int = 1 << 20,
                maximumElementBytes: Int = JSONDocument.maximumByteCount, profile: StageProfile? = nil) {
        self.input = input
        self.maximumElementBytes = maximumElementBytes
        self.jobs = max(jobs, 1)
        self.batchBytes = max(batchBytes, 1)
        self.profile = profile
    }
}

/// Records mapped from consecutive elements or lines, in input order.
public struct StreamedBatch: Sendable {
    /// The root records.
    public var records: [Record]
    /// The next output bytes, when a format was asked for (the JSON array's brackets included).
    public var output: [UInt8]
    /// Elements or lines that failed, or records that failed in them; the others are in `records`.
    public var errors: [StreamedError]
}

/// An element or line that failed, or a record in it, and where.
public struct StreamedError: Error, Sendable, CustomStringConvertible {
    /// NDJSON: the 1-based line.
    public var line: Int?
    /// What failed; array errors name the element as `[index]` (or `key.path[index]`), as `map` does.
    public var message: String

    public var description: String { (line.map { "line \($0): " } ?? "") + message }
}

/// Why a stream could not be mapped (or could not be mapped to the end).
public enum StreamingFailure: Error, Sendable, CustomStringConvertible {
    /// The schema or the request needs the whole document; the message names what and why.
    case needsWholeDocument(String)
    /// The response cannot be mapped at all (no descriptor matches, …).
    case mapping(MappingFailure)
    /// The framing of the input is broken; everything before it was delivered.
    case malformed(JSONStreamError)

    public var description: String {
        switch self {
        case .needsWholeDocument(let reason): "cannot stream: \(reason)"
        case .mapping(let failure): failure.description
        case .malformed(let error): error.description
        }
    }
}

extension Mapper {
    /// Maps a stream in bounded memory, delivering records in input order as they are mapped.
    ///
    /// Each element (or line) is mapped on its own: identity merging happens within it. Records
    /// with the same identification in different elements are compared; when they differ (so
    /// whole-document mapping would have merged them into something else) the later element
    /// fails with an error saying so, and nothing different from `map` is printed silently.
    /// `connect` and `@root` need every record / the whole document: a schema reaching them
    /// from the streamed entity is refused up front (`.needsWholeDocument`), except for
    /// `.bodies`, where each line is a whole response.
    ///
    /// To write the records as JSON or NDJSON, use `RecordWriter.writeStream`, which renders each
    /// batch on the thread that mapped it.
    ///
    /// - Parameters:
    ///   - request: the request and response metadata (its `body` is ignored).
    ///   - handle: called with each batch, in order.
    public func mapStream(_ request: Response, from source: some JSONByteSource, options: StreamOptions,
                          handle: (StreamedBatch) -> Void) throws(StreamingFailure) {
        var options = options
        options.renderFormat = nil
        try streamBatches(request, from: source, options: options) { batch in
            var delivered = StreamedBatch(records: [], output: [], errors: [])
            for element in batch.elements {
                delivered.errors += element.errors
                if !element.isLeftOut { delivered.records += element.records }
            }
            handle(delivered)
        }
    }

    /// Why `mapStream(_:from:options:handle:)` would refuse `request` before reading anything
    /// (the descriptor, the status, the media type, an entity reaching `connect` or `@root`);
    /// `nil` when it can stream it. A conflict between elements is found only while streaming.
    public func streamingRefusal(for request: Response, input: StreamInput = .array) -> StreamingFailure? {
        do throws(StreamingFailure) {
            _ = try streamTarget(for: request, input: input)
            return nil
        } catch {
            return error
        }
    }

    /// The stream strategy: batches of elements are cut from the source, mapped (and, with
    /// `options.renderFormat`, rendered) on `options.jobs` threads of the pool (`OrderedWorkers`),
    /// checked against the identities of earlier elements by the same threads (`IdentityLedger`)
    /// and handed to `take` in input order.
    ///
    /// Arrays are cut into batches on the calling thread (`JSONElementStream`). NDJSON from a
    /// regular file is read and cut by the mapping threads, each the lines beginning in its own
    /// range of the file (`JSONPositionalLineChunks`); from a pipe it is read in chunks of whole
    /// lines on the calling thread (`JSONLineChunks`: only the last newline of each is found
    /// there). Each mapping thread splits its chunk into lines; the line numbers and element
    /// indices come from the chunks before it (`LineCounts`).
    func streamBatches(_ request: Response, from source: some JSONByteSource, options: StreamOptions,
                       take: (MappedBatch) -> Void) throws(StreamingFailure) {
        let target = try streamTarget(for: request, input: options.input)
        let profile = options.profile
        let ledger = IdentityLedger()
        /// Batches already delivered, freed by the mapping threads.
        let delivered = Retired<MappedBatch>()
        let render = options.renderFormat
        /// What ends the stream after the batch a mapping thread found it in (NDJSON read by the threads).
        var failure: JSONStreamError?
        func deliver(_ batch: consuming MappedBatch) {
            // The batches issued after the one that failed are not delivered.
            guard failure == nil else { return }
            if let verdict = batch.verdict {
                let conflicts = verdict.conflicts(waited: profile?.addWait)
                if !conflicts.isEmpty { profile.measure(.merge) { batch.leaveOut(conflicts, plan: plan) } }
            }
            failure = batch.failure
            take(batch)
            // The batch (its bytes, what is left of its elements) is freed by a mapping thread.
            profile.measure(.order) { delivered.retire(batch) }
        }
        // With several jobs, two batches per thread are in flight: half the size keeps the bytes held the same.
        let batchBytes = options.jobs == 1 ? options.batchBytes : max(options.batchBytes / 2, 1)
        /// Maps what `next` gives on the calling thread (one job) or the pool, checks its
        /// identities there and delivers the batches in order; `work` learns each item's number.
        func run<Item: Sendable>(next: () throws(JSONStreamError) -> Item?,
                                 work: @escaping @Sendable (Mapper, Item, Int) -> MappedBatch) throws(JSONStreamError) {
            var issued = 0
            func numbered() throws(JSONStreamError) -> (sequence: Int, item: Item)? {
                guard failure == nil, let item = try next() else { return nil }
                defer { issued += 1 }
                return (issued, item)
            }
            let mapAndCheck: @Sendable (Mapper, (sequence: Int, item: Item)) -> MappedBatch = { worker, numbered in
                profile.measure(.map) { delivered.free() }
                var mapped = work(worker, numbered.item, numbered.sequence)
                mapped.noteElements()
                mapped.verdict = profile.measure(.claim) { ledger.submit(mapped, sequence: numbered.sequence) }
                return mapped
            }
            if options.jobs == 1 {
                // What the stages inside leave unclaimed is still theirs: taking the next item is
                // cutting, a batch's work is the mapping threads' with more jobs (`map`, not
                // `other`), and delivering it is taking batches back in order.
                while let item = try profile.measureRemainder(.cut, { () throws(JSONStreamError) in try numbered() }) {
                    let mapped = profile.measureRemainder(.map) { mapAndCheck(self, item) }
                    profile.measureRemainder(.order) { deliver(mapped) }
                }
            } else {
                let mapper = self
                try OrderedWorkers(threads: options.jobs, profile: profile, worker: { mapper.forThread($0, profile: profile) },
                                   work: mapAndCheck).run(next: numbered, take: deliver)
            }
        }
        do {
            if target.layout == .lines, let positional = source.positional {
                let buffers = JSONChunkBuffers()
                var chunks = JSONPositionalLineChunks(bytes: positional, chunkBytes: batchBytes,
                                                      maximumElementBytes: options.maximumElementBytes, buffers: buffers)
                let reader = chunks
                let numbering = LineCounts.numbering()
                try run(next: { chunks.nextChunk() }, work: { worker, number, _ in
                    var (chunk, failure) = profile.measure(.pread) { reader.read(chunk: number) }
                    var (mapped, elementsThrough) = worker.mapLines(chunk, sequence: number, numbering: numbering, buffers: buffers,
                                                                    target: target, request: request, render: render, profile: profile)
                    // What failed (a line over the limit, a read) comes after the chunk's lines.
                    failure?.element = elementsThrough
                    mapped.failure = failure
                    return mapped
                })
            } else if target.layout == .lines {
                let buffers = JSONChunkBuffers()
                var chunks = JSONLineChunks(source: ProfiledSource(source, profile: profile), chunkBytes: batchBytes,
                                            maximumElementBytes: options.maximumElementBytes, buffers: buffers)
                let numbering = LineCounts.numbering()
                var read = 0
                try run(next: { () throws(JSONStreamError) -> JSONLineChunk? in
                    do throws(JSONStreamError) {
                        guard let chunk = try profile.measureCut({ () throws(JSONStreamError) in try chunks.next() }) else { return nil }
                        read += 1
                        return chunk
                    } catch {
                        // A line over the limit is the element after those of every chunk before it.
                        var failure = error
                        if chunks.failedOnOversizedLine { failure.element = numbering.total(ofAtLeast: read).elements }
                        throw failure
                    }
                }, work: { worker, chunk, sequence in
                    worker.mapLines(chunk, sequence: sequence, numbering: numbering, buffers: buffers,
                                    target: target, request: request, render: render, profile: profile).batch
                })
            } else if let positional = source.positional {
                var header = JSONElementStream(source: JSONPositionalReader(positional), layout: target.layout, bufferSize: 64 << 10,
                                               maximumElementBytes: options.maximumElementBytes)
                let entry = try profile.measureCut { () throws(JSONStreamError) in try header.arrayEntry() }
                var chunks = JSONPositionalArrayChunks(bytes: positional, layout: target.layout, entry: entry, chunkBytes: batchBytes,
                                                       maximumElementBytes: options.maximumElementBytes)
                let chain = ArrayChunkChain(entry: entry, chunks: chunks, speculates: options.jobs > 1)
                try run(next: { chunks.nextChunk() }, work: { worker, number, _ in
                    let (batch, failure) = chain.cut(chunk: number, profile: profile)
                    var mapped = batch.map { worker.mapBatch($0, target: target, request: request, render: render, profile: profile) } ?? MappedBatch()
                    mapped.failure = failure
                    return mapped
                })
            } else {
                var stream = JSONElementStream(source: ProfiledSource(source, profile: profile), layout: target.layout,
                                               bufferSize: min(options.batchBytes, 1 << 20), maximumElementBytes: options.maximumElementBytes)
                try run(next: { () throws(JSONStreamError) in
                    try profile.measureCut { () throws(JSONStreamError) in try stream.nextBatch(targetBytes: batchBytes) }
                }, work: { worker, batch, _ in
                    worker.mapBatch(batch, target: target, request: request, render: render, profile: profile)
                })
            }
        } catch {
            throw .malformed(error)
        }
        if let failure { throw .malformed(failure) }
    }

    /// Splits a chunk of NDJSON into its lines, numbers them after the chunks before it, and maps
    /// them as a batch; also the number of elements up to the end of the chunk. The chunk's buffer
    /// goes back to `buffers` once copied into the batch.
    fileprivate func mapLines(_ chunk: JSONLineChunk, sequence: Int, numbering: InOrderFold<LineCounts, LineCounts>, buffers: JSONChunkBuffers,
                              target: StreamTarget, request: Response, render: StreamOutputFormat?,
                              profile: StageProfile?) -> (batch: MappedBatch, elementsThrough: Int) {
        let (elements, lineCount) = profile.measure(.split) { chunk.lines() }
        let before = numbering.publish(LineCounts(lines: lineCount, elements: elements.count), of: sequence, waited: profile?.addWait)
        let (firstLine, firstIndex) = (before.lines + 1, before.elements)
        let batch = profile.measure(.split) {
            defer { chunk.recycle(into: buffers) }
            return chunk.batch(elements, firstIndex: firstIndex, firstLine: firstLine)
        }
        return (mapBatch(batch, target: target, request: request, render: render, profile: profile), firstIndex + elements.count)
    }

    // MARK: Target

    /// What is streamed and how each element maps.
    struct StreamTarget: Sendable {
        var layout: JSONStreamLayout
        /// `nil` for `.bodies`: each line maps as a whole response.
        var entity: Int?
        var keyPath: String
        var metadata: Metadata?
    }

    private func streamTarget(for request: Response, input: StreamInput) throws(StreamingFailure) -> StreamTarget {
        switch input {
        case .bodies:
            return StreamTarget(layout: .lines, entity: nil, keyPath: "", metadata: nil)
        case .representations(let name):
            guard let entity = plan.entityIndex[name] else {
                throw .needsWholeDocument("the schema defines no entity named '\(name)'")
            }
            try checkStreamable(entity)
            return StreamTarget(layout: .lines, entity: entity, keyPath: "", metadata: metadata(of: request, path: matchedPath(of: request)))
        case .array:
            let matched = match(request)
            if matched.isError { throw .needsWholeDocument("error responses (status \(request.status)) map the whole body") }
            if let mediaType = nonJSONMediaType(of: request) {
                throw .needsWholeDocument("only JSON bodies stream; the body is \(mediaType)")
            }
            guard let descriptor = matched.descriptors.first?.descriptor else {
                throw .mapping(.noResponseDescriptor(method: request.method, path: matched.path, status: request.status))
            }
            if matched.descriptors.count > 1 {
                let keyPaths = matched.descriptors.map { $0.descriptor.keyPath.map { "'\($0.text)'" } ?? "the whole body" }
                throw .needsWholeDocument("\(matched.descriptors.count) response descriptors match (\(keyPaths.joined(separator: ", "))); a stream maps one array")
            }
            if !descriptor.keyedBy.isEmpty { throw .needsWholeDocument("the response descriptor maps an object keyed by its keys ('keyedBy'), not an array") }
            var keys: [String] = []
            for segment in descriptor.keyPath?.segments ?? [] {
                guard case .key(let key, index: nil) = segment else {
                    throw .needsWholeDocument("the descriptor's key path '\(descriptor.keyPath?.text ?? "")' is not a path of object keys")
                }
                keys.append(key)
            }
            // Total: MappingPlan.init refuses a descriptor naming an undefined entity.
            let entity = plan.entityIndex[descriptor.entity.value]!
            try checkStreamable(entity)
            return StreamTarget(layout: .array(keys: keys), entity: entity, keyPath: descriptor.keyPath?.text ?? "", metadata: matched.metadata)
        }
    }

    /// Refuses entities reaching `connect` or `@root`, which need the whole document.
    func checkStreamable(_ entity: Int) throws(StreamingFailure) {
        var pending = [entity]
        var seen: Set<Int> = [entity]
        while let index = pending.popLast() {
            let entityPlan = plan.entities[index]
            var keyPaths = entityPlan.attributes.map { ("attribute '\($0.name)'", $0.source) }
            var reached: [Int] = []
            for matcher in entityPlan.dynamic?.matchers ?? [] {
                keyPaths += matcher.conditions.map { ("a 'dynamic' condition", $0.keyPath) }
                reached.append(matcher.entity)
            }
            if case .entity(let fallback)? = entityPlan.dynamic?.otherwise { reached.append(fallback) }
            for relationship in entityPlan.relationships {
                if !relationship.connections.isEmpty {
                    throw .needsWholeDocument("relationship '\(relationship.name)' of entity '\(entityPlan.name)' uses 'connect', "
                        + "which needs every record of the document: map the whole body (without --stream)")
                }
                if let source = relationship.source { keyPaths.append(("relationship '\(relationship.name)'", source)) }
                reached.append(relationship.target)
            }
            if let (what, _) = keyPaths.first(where: { $0.1.segments.contains(.root) }) {
                throw .needsWholeDocument("\(what) of entity '\(entityPlan.name)' reads '@root', which needs the whole document: "
                    + "map the whole body (without --stream)")
            }
            for next in reached where seen.insert(next).inserted { pending.append(next) }
        }
    }

    // MARK: Mapping batches

    /// Maps a batch on a worker, and renders its records there when `render` is given.
    fileprivate func mapBatch(_ batch: JSONElementBatch, target: StreamTarget, request: Response, render: StreamOutputFormat?,
                              profile: StageProfile?) -> MappedBatch {
        var mapped = mapBatch(batch, target: target, request: request, profile: profile)
        if let render {
            profile.measure(.render) { mapped.render(as: render) }
            // The records are let go here, on the thread that mapped them: with several jobs,
            // freeing them on the calling thread held up its reading and writing.
            profile.measure(.map) {
                for index in mapped.elements.indices { mapped.elements[index].records = [] }
            }
        }
        return mapped
    }

    private func mapBatch(_ batch: JSONElementBatch, target: StreamTarget, request: Response, profile: StageProfile?) -> MappedBatch {
        if let entity = target.entity, let metadata = target.metadata {
            let documents = profile.measure(.parse) { batch.documents() }
            return profile.measure(.map) { mapRepresentations(documents, of: batch, entity: entity, keyPath: target.keyPath, metadata: metadata) }
        }
        var mapped = MappedBatch()
        for (position, range) in batch.ranges.enumerated() {
            let line = batch.lines[position]
            var response = request
            response.body = Array(batch.bytes[range])
            do {
                let result = try map(response, options: MappingOptions(profile: profile))
                mapped.elements.append(MappedElement(records: result.records, errors: result.errors.map { StreamedError(line: line, message: $0.description) }))
            } catch {
                mapped.elements.append(MappedElement(records: [], errors: [StreamedError(line: line, message: error.description)]))
            }
        }
        return mapped
    }

    /// Maps the elements of a batch (parsed into `documents`) as the elements of one array,
    /// identity merging within each.
    private func mapRepresentations(_ documents: [Result<JSONNode, JSONParseError>], of batch: JSONElementBatch, entity: Int,
                                    keyPath: String, metadata: Metadata) -> MappedBatch {
        var mapped = MappedBatch()
        // The scope's root is never read: entities reading '@root' are refused before streaming.
        let sessionForBatch = documents.lazy.compactMap { try? $0.get() }.first.map { MappingSession(plan: plan, root: $0, metadata: metadata) }
        sessionForBatch?.scope.rootKeyPath = keyPath
        var elements: [(roots: [Int], errors: [StreamedError], identities: [IdentityClaim], line: Int?, place: String)] = []
        for (position, parsed) in documents.enumerated() {
            let index = batch.firstIndex + position
            let line = batch.lines.isEmpty ? nil : batch.lines[position]
            let node: JSONNode
            let session: MappingSession
            switch parsed {
            case .success(let parsedNode):
                node = parsedNode
                // Total: a session exists when any element parsed.
                session = sessionForBatch!
            case .failure(let error):
                elements.append(([], Self.malformed(error, batch: batch, position: position, keyPath: keyPath).errors, [], line, ""))
                continue
            }
            session.forgetIdentities()
            session.path = line != nil ? [] : (keyPath.isEmpty ? [] : [.key(keyPath)]) + [.index(index)]
            let firstError = session.errors.count
            let root = session.map(node, entity: entity, collectionIndex: index)
            var claims: [IdentityClaim] = []
            for (entityIndex, identities) in session.identities.enumerated() where !identities.isEmpty {
                identities.forEach { key, record in
                    claims.append(IdentityClaim(entity: entityIndex, key: key, fingerprint: fingerprint(of: record, in: session)))
                }
            }
            let errors = session.errors[firstError...].map { StreamedError(line: line, message: $0.description) }
            elements.append((root.map { [$0] } ?? [], errors, claims, line, line == nil ? "\(keyPath)[\(index)]: " : ""))
        }
        let graph = RecordGraph(plan: plan, records: sessionForBatch?.records ?? [])
        for element in elements {
            mapped.elements.append(MappedElement(records: element.roots.map { Record(graph: graph, index: $0) }, errors: element.errors,
                                                 identities: element.identities, line: element.line, place: element.place))
        }
        return mapped
    }

    private static func malformed(_ error: JSONParseError, batch: JSONElementBatch, position: Int, keyPath: String) -> MappedElement {
        let message = "malformed JSON at column \(error.column) of the element (byte \(error.offset)): \(error.message)"
        if batch.lines.isEmpty {
            let place = "\(keyPath)[\(batch.firstIndex + position)]"
            return MappedElement(records: [], errors: [StreamedError(line: nil, message: "\(place): \(message)")])
        }
        let lineMessage = "malformed JSON at column \(error.column): \(error.message)"
        return MappedElement(records: [], errors: [StreamedError(line: batch.lines[position], message: lineMessage)])
    }

    /// A hash of what a record prints: its values and, through relationships, the records it
    /// holds (identified ones by their identification, which is compared on its own).
    private func fingerprint(of record: Int, in session: MappingSession) -> Int {
        var hasher = Hasher()
        let data = session.records[record]
        hasher.combine(data.entity)
        hasher.combine(data.values)
        for relation in data.relations {
            hasher.combine(relation?.count ?? -1)
            for related in relation ?? [] {
                let relatedPlan = plan.entities[session.records[related].entity]
                if let key = session.identityKey(session.records[related].values, slots: relatedPlan.identification) {
                    hasher.combine(relatedPlan.index)
                    hasher.combine(key)
                } else {
                    hasher.combine(fingerprint(of: related, in: session))
                }
            }
        }
        return hasher.finalize()
    }
}

/// A source whose reads count as the `read` stage of a profile.
private struct ProfiledSource<Source: JSONByteSource>: JSONByteSource {
    var source: Source
    let profile: StageProfile?

    init(_ source: Source, profile: StageProfile?) {
        self.source = source
        self.profile = profile
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        guard let profile else { return try source.read(into: buffer) }
        return try profile.measure(.read) { () throws(JSONStreamError) in try source.read(into: buffer) }
    }
}

/// The lines and elements of NDJSON chunks, summed in chunk order (`InOrderFold`) as each chunk
/// is split: the sum before a chunk gives its first line number and element index.
struct LineCounts: Sendable {
    var lines = 0
    var elements = 0

    /// The numbering of chunks split on several threads.
    static func numbering() -> InOrderFold<LineCounts, LineCounts> {
        InOrderFold(LineCounts()) { LineCounts(lines: $0.lines + $1.lines, elements: $0.elements + $1.elements) }
    }
}

/// What one element (or line) gave.
struct MappedElement: Sendable {
    var records: [Record]
    var errors: [StreamedError]
    var identities: [IdentityClaim] = []
    /// Each record's JSON in `MappedBatch.bytes`, once rendered (without separators).
    var rendered: [Range<Int>] = []
    /// NDJSON: the element's line.
    var line: Int? = nil
    /// Arrays: `key.path[index]: `, to begin an error message.
    var place = ""
    /// Whether the element is left out because a record in it differs from one with the same
    /// identification in an earlier element (`IdentityLedger`).
    var isLeftOut = false
}

/// The elements of one batch, in order, and their rendering once rendered.
struct MappedBatch: Sendable {
    var elements: [MappedElement] = []
    /// The rendered records of every element (`RecordWriter`'s stream rendering).
    var bytes: [UInt8] = []
    /// The identity ledger's check of the batch, given once every shard has done it.
    var verdict: LedgerVerdict?
    /// What ends the stream after this batch (a line over the limit, a read that failed).
    var failure: JSONStreamError?
    /// Whether an element has errors, or is left out: found by the thread that mapped the batch
    /// (`noteElements()`) and kept by `leaveOut`, so that delivering a batch, on the thread every
    /// worker waits for, need not look at each element.
    private(set) var hasErrors = false
    private(set) var hasLeftOut = false

    /// Notes whether any element has errors (none is left out yet: only the ledger's verdict,
    /// on delivery, leaves elements out).
    mutating func noteElements() {
        hasErrors = elements.contains { !$0.errors.isEmpty }
    }

    /// Notes that an element was left out, with an error.
    mutating func noteLeftOut() {
        hasErrors = true
        hasLeftOut = true
    }
}
