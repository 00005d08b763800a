import Foundation
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

/// How streamed records are rendered for output.
public enum StreamOutputFormat: Sendable {
    /// One JSON array, byte for byte what `RecordWriter.json` writes for the same records, then a newline.
    case json
    /// One JSON object per line.
    case ndjson
}

/// Options of a streamed mapping.
public struct StreamOptions: Sendable {
    public var input: StreamInput
    /// Render records into `StreamedBatch.output`; `nil` leaves rendering to the caller.
    public var format: StreamOutputFormat?
    /// Threads that map batches side by side; output keeps input order.
    public var jobs: Int
    /// About how many input bytes one batch holds, with one job; with several, up to `2 × jobs`
    /// batches of half this size are in flight (memory is bounded by `jobs × batchBytes` of input).
    public var batchBytes: Int
    /// Whether `StreamedBatch.records` holds the records; with a `format`, `false` keeps only the
    /// rendered output, and the records are let go on the thread that mapped them (with several
    /// jobs, freeing a batch's records on the calling thread held up its reading and writing).
    public var keepsRecords: Bool
    /// The most bytes one element (or line) may have: a longer one ends the stream with an error
    /// as soon as that many of its bytes are read (`StreamingFailure.malformed`, whose error is not
    /// `isMalformed`). At most, and by default, `JSONDocument.maximumByteCount`.
    public var maximumElementBytes: Int

    public init(input: StreamInput, format: StreamOutputFormat? = nil, jobs: Int = 1, batchBytes: Int = 1 << 20,
                keepsRecords: Bool = true, maximumElementBytes: Int = JSONDocument.maximumByteCount) {
        self.input = input
        self.maximumElementBytes = maximumElementBytes
        self.format = format
        self.jobs = max(jobs, 1)
        self.batchBytes = max(batchBytes, 1)
        self.keepsRecords = keepsRecords || format == nil
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
    /// - Parameters:
    ///   - request: the request and response metadata (its `body` is ignored).
    ///   - handle: called with each batch, in order, and once more at the end for a closing `]`.
    public func mapStream(_ request: Response, from source: some JSONByteSource, options: StreamOptions,
                          handle: (StreamedBatch) -> Void) throws(StreamingFailure) {
        let target = try streamTarget(for: request, input: options.input)
        var stream = JSONElementStream(source: source, layout: target.layout, bufferSize: min(options.batchBytes, 1 << 20),
                                       maximumElementBytes: options.maximumElementBytes)
        var emitter = StreamEmitter(plan: plan, format: options.format)
        var failure: StreamingFailure?
        if options.jobs == 1 {
            while failure == nil {
                let batch: JSONElementBatch
                do {
                    guard let next = try stream.nextBatch(targetBytes: options.batchBytes) else { break }
                    batch = next
                } catch {
                    failure = .malformed(error)
                    break
                }
                handle(emitter.emit(mapBatch(batch, target: target, request: request, render: options.format, keepsRecords: options.keepsRecords)))
            }
        } else {
            // Reading the input and emitting (the identity ledger, the output) run on this
            // thread while `jobs` threads map and render.
            let workers = [self] + (1..<options.jobs).map { _ in withOwnPlan() }
            let pipeline = BatchPipeline(workers: workers) { worker, batch in
                worker.mapBatch(batch, target: target, request: request, render: options.format, keepsRecords: options.keepsRecords)
            }
            do {
                let batchBytes = max(options.batchBytes / 2, 1)
                try pipeline.run(next: { () throws(JSONStreamError) in try stream.nextBatch(targetBytes: batchBytes) }) { handle(emitter.emit($0)) }
            } catch {
                failure = .malformed(error)
            }
        }
        handle(emitter.finish())
        if let failure { throw failure }
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
        let path = matchedPath(of: request)
        switch input {
        case .bodies:
            return StreamTarget(layout: .lines, entity: nil, keyPath: "", metadata: nil)
        case .representations(let name):
            guard let entity = plan.entityIndex[name] else {
                throw .needsWholeDocument("the schema defines no entity named '\(name)'")
            }
            try checkStreamable(entity)
            return StreamTarget(layout: .lines, entity: entity, keyPath: "", metadata: metadata(of: request, path: path))
        case .array:
            if request.status >= 400 { throw .needsWholeDocument("error responses (status \(request.status)) map the whole body") }
            if let mediaType = nonJSONMediaType(of: request) {
                throw .needsWholeDocument("only JSON bodies stream; the body is \(mediaType)")
            }
            let matched = matchingDescriptors(method: request.method, path: path, status: request.status)
            guard let descriptor = matched.first?.descriptor else {
                throw .mapping(.noResponseDescriptor(method: request.method, path: path, status: request.status))
            }
            if matched.count > 1 {
                let keyPaths = matched.map { $0.descriptor.keyPath.map { "'\($0.text)'" } ?? "the whole body" }
                throw .needsWholeDocument("\(matched.count) response descriptors match (\(keyPaths.joined(separator: ", "))); a stream maps one array")
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
            return StreamTarget(layout: .array(keys: keys), entity: entity, keyPath: descriptor.keyPath?.text ?? "",
                                metadata: metadata(of: request, path: path, parameters: routingParameters(of: request, matched: matched)))
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

    /// Maps a batch, and renders its records when `render` (so rendering runs on the mapping thread too).
    fileprivate func mapBatch(_ batch: JSONElementBatch, target: StreamTarget, request: Response, render: StreamOutputFormat?,
                              keepsRecords: Bool) -> MappedBatch {
        var mapped = mapBatch(batch, target: target, request: request)
        if let render { mapped.render(as: render) }
        if !keepsRecords {
            for index in mapped.elements.indices { mapped.elements[index].records = [] }
        }
        return mapped
    }

    private func mapBatch(_ batch: JSONElementBatch, target: StreamTarget, request: Response) -> MappedBatch {
        if let entity = target.entity, let metadata = target.metadata {
            return mapRepresentations(batch, entity: entity, keyPath: target.keyPath, metadata: metadata)
        }
        var mapped = MappedBatch()
        for (position, range) in batch.ranges.enumerated() {
            let line = batch.lines[position]
            var response = request
            response.body = Array(batch.bytes[range])
            do {
                let result = try map(response)
                mapped.add(MappedElement(records: result.records, errors: result.errors.map { StreamedError(line: line, message: $0.description) }))
            } catch {
                mapped.add(MappedElement(records: [], errors: [StreamedError(line: line, message: error.description)]))
            }
        }
        return mapped
    }

    /// Maps the elements of a batch as the elements of one array, identity merging within each.
    private func mapRepresentations(_ batch: JSONElementBatch, entity: Int, keyPath: String, metadata: Metadata) -> MappedBatch {
        var mapped = MappedBatch()
        let documents = batch.documents()
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
            mapped.add(MappedElement(records: element.roots.map { Record(graph: graph, index: $0) }, errors: element.errors,
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

/// A record with an identification seen in one element, to compare with other elements.
struct IdentityClaim: Sendable {
    var entity: Int
    var key: IdentityKey
    var fingerprint: Int
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
}

/// The elements of one batch, in order.
struct MappedBatch: Sendable {
    var elements: [MappedElement] = []
    /// The rendered records of every element in the output format: separated by `,` for JSON,
    /// each followed by a newline for NDJSON.
    var bytes: [UInt8] = []

    mutating func add(_ element: MappedElement) { elements.append(element) }

    /// Renders every record into `bytes`.
    mutating func render(as format: StreamOutputFormat) {
        var writer = JSONWriter()
        for index in elements.indices {
            elements[index].rendered = elements[index].records.map { record in
                if format == .json, writer.byteCount > 0 { writer.comma() }
                let start = writer.byteCount
                RecordWriter.write(record, to: &writer)
                defer { if format == .ndjson { writer.endLine() } }
                return start..<writer.byteCount
            }
        }
        bytes = writer.bytes
    }
}

/// Puts mapped batches out in order: checks identities across elements and renders records.
struct StreamEmitter {
    let plan: MappingPlan
    let format: StreamOutputFormat?
    /// Fingerprints of every identified record so far, by a hash of entity and identification.
    private var ledger: [Int: Int] = [:]
    private var wroteRecord = false
    private var started = false

    init(plan: MappingPlan, format: StreamOutputFormat?) {
        self.plan = plan
        self.format = format
    }

    mutating func emit(_ batch: MappedBatch) -> StreamedBatch {
        var result = StreamedBatch(records: [], output: [], errors: [])
        start(&result.output)
        var leftOut = Set<Int>()
        for (index, element) in batch.elements.enumerated() {
            result.errors += element.errors
            if let conflict = element.identities.first(where: { !claim($0) }) {
                let entity = plan.entities[conflict.entity].name
                result.errors.append(StreamedError(
                    line: element.line,
                    message: "\(element.place)a record of entity '\(entity)' with identification \(Self.describe(conflict.key)) differs "
                        + "from one with the same identification in an earlier element; mapping the whole body would merge "
                        + "them, so this element is left out: map the whole body (restmap map --no-stream) to merge them"))
                leftOut.insert(index)
                continue
            }
            result.records += element.records
        }
        guard let format, !batch.bytes.isEmpty else { return result }
        if leftOut.isEmpty {
            // The usual case: the batch's rendering goes out as it is.
            if format == .json, wroteRecord { result.output.append(UInt8(ascii: ",")) }
            if result.output.isEmpty { result.output = batch.bytes } else { result.output += batch.bytes }
            wroteRecord = true
            return result
        }
        for (index, element) in batch.elements.enumerated() where !leftOut.contains(index) {
            for range in element.rendered {
                if format == .json, wroteRecord { result.output.append(UInt8(ascii: ",")) }
                result.output += batch.bytes[range]
                if format == .ndjson { result.output.append(0x0A) }
                wroteRecord = true
            }
        }
        return result
    }

    /// The output closing the stream.
    mutating func finish() -> StreamedBatch {
        var output: [UInt8] = []
        start(&output)
        if format == .json { output += Array("]\n".utf8) }
        return StreamedBatch(records: [], output: output, errors: [])
    }

    private mutating func start(_ output: inout [UInt8]) {
        guard !started else { return }
        started = true
        if format == .json { output.append(UInt8(ascii: "[")) }
    }

    /// Records the claim; `false` when an earlier element claimed the identification with a different record.
    private mutating func claim(_ claim: IdentityClaim) -> Bool {
        var hasher = Hasher()
        hasher.combine(claim.entity)
        hasher.combine(claim.key)
        let key = hasher.finalize()
        if let earlier = ledger[key] { return earlier == claim.fingerprint }
        ledger[key] = claim.fingerprint
        return true
    }

    private static func describe(_ key: IdentityKey) -> String {
        switch key {
        case .single(let value): ValueText.short(value)
        case .composite(let values): "(" + values.map(ValueText.short).joined(separator: ", ") + ")"
        }
    }
}
