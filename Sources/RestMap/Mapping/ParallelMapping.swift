import Foundation
import RestMapJSON
import RestMapSchema

extension Mapper {
    /// The smallest body `MappingOptions.jobs` splits across threads.
    static let parallelBodyBytes = 1 << 20

    /// Maps a body that is one large JSON array of a descriptor's representations on `jobs`
    /// threads, giving what one thread gives: the same records in the same order, merged by
    /// identification and with relationships assigned as one session would, and the same errors.
    ///
    /// The array is cut into parts of whole elements; each part is parsed and mapped on a thread
    /// with a plan of its own, into a session of its own, so the threads share no document and no
    /// plan. The sessions are then taken into the first one in input order
    /// (`MappingSession.absorb`). An array of objects is cut where one object ends and the next
    /// begins (`ParsedParts`), without scanning it element by element first; otherwise
    /// `JSONElementStream` splits it.
    ///
    /// - Returns: the session holding every record, and the roots; `nil` when the body is not one
    ///   it can split — the caller then maps it on one thread, which also reports malformed JSON
    ///   the way whole-body mapping does.
    func mapArrayInParallel(_ body: [UInt8], entity: Int, metadata: Metadata, jobs: Int) -> (session: MappingSession, roots: [Int])? {
        guard jobs > 1, body.count >= Self.parallelBodyBytes, isSplittable(entity) else { return nil }
        let workers = [self] + (1..<jobs).map { _ in withOwnPlan() }
        // More parts than threads, so a thread that finishes early takes another, and the
        // absorbing of the last parts, after the threads finish, is short.
        let partCount = 8 * jobs
        var absorbed = Absorbed()
        do {
            if let parts = ParsedParts(body, count: partCount) {
                absorbed.elementCount = parts.elementCount
                let pipeline = BatchPipeline(workers: workers) { (worker: Mapper, part: ParsedParts.Part) in
                    worker.mapElements(part.nodes, firstIndex: part.firstIndex, entity: entity, metadata: metadata)
                }
                var iterator = parts.makeIterator()
                try pipeline.run(next: { iterator.next() }, take: { absorbed.take($0) })
            } else {
                guard body.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[") else { return nil }
                let pipeline = BatchPipeline(workers: workers) { worker, batch in
                    worker.mapElements(of: batch, entity: entity, metadata: metadata)
                }
                var stream = JSONElementStream(bytes: body, layout: .array(keys: []))
                let batchBytes = max(body.count / partCount, 1 << 16)
                try pipeline.run(next: { () throws(JSONStreamError) in try stream.nextBatch(targetBytes: batchBytes) },
                                 take: { absorbed.take($0) })
            }
        } catch {
            return nil
        }
        guard !absorbed.malformed, let session = absorbed.session else { return nil }
        return (session, absorbed.roots)
    }

    /// The sessions of the parts taken so far, in order, absorbed into the first.
    private struct Absorbed {
        var session: MappingSession?
        var roots: [Int] = []
        var malformed = false
        /// The elements of the whole array, when known before mapping (0: not known).
        var elementCount = 0

        mutating func take(_ run: MappedRun?) {
            guard !malformed, let run else {
                malformed = true
                return
            }
            if let session {
                roots += session.absorb(run.session, roots: run.roots)
            } else {
                session = run.session
                roots = run.roots
                roots.reserveCapacity(elementCount)
                // The first part tells how many records and identities an element brings: room
                // for the whole array's at once, instead of rehashing as each part is absorbed.
                if elementCount > run.roots.count, !run.roots.isEmpty {
                    run.session.reserve(scaledBy: Double(elementCount) / Double(run.roots.count))
                }
            }
        }
    }

    /// Whether an entity's records come out the same when the elements are mapped in separate
    /// sessions and merged: nothing it reaches needs the whole document (`connect`, `@root`),
    /// and no relationship both extends its list (`assign: union`) and is cleared when missing
    /// (whose merge would depend on the order of clears and unions across sessions).
    private func isSplittable(_ entity: Int) -> Bool {
        guard (try? checkStreamable(entity)) != nil else { return false }
        return !plan.entities.contains { entityPlan in
            entityPlan.assignsNilForMissingRelationships && entityPlan.relationships.contains { $0.assignment == .union }
        }
    }

    /// Parses a batch and maps its elements in a session of its own; `nil` when an element is
    /// not valid JSON.
    private func mapElements(of batch: JSONElementBatch, entity: Int, metadata: Metadata) -> MappedRun? {
        var nodes: [JSONNode] = []
        for document in batch.documents() {
            guard case .success(let node) = document else { return nil }
            nodes.append(node)
        }
        return mapElements(nodes, firstIndex: batch.firstIndex, entity: entity, metadata: metadata)
    }

    /// Maps consecutive elements of the array, the first at `firstIndex`, in a session of their own.
    private func mapElements(_ nodes: [JSONNode], firstIndex: Int, entity: Int, metadata: Metadata) -> MappedRun? {
        guard let root = nodes.first else { return nil }
        // The scope's root is never read: entities reading '@root' are not split.
        let session = MappingSession(plan: plan, root: root, metadata: metadata)
        var roots: [Int] = []
        for (position, node) in nodes.enumerated() {
            let index = firstIndex + position
            session.path = [.index(index)]
            if let record = session.map(node, entity: entity, collectionIndex: index) { roots.append(record) }
        }
        session.path = []
        return MappedRun(session: session, roots: roots)
    }
}

/// A body that is one JSON array of objects, cut into parts of whole elements and parsed on
/// several threads, without scanning the array element by element first.
///
/// Each cut is placed at a `}` `,` `{` near an even share of the bytes, and each part is parsed as
/// an array of its own. A cut that is not between two elements of the array (inside a string, or
/// inside a nested array) leaves the part before it unparsable: every part starts where an element
/// starts (the first after the `[`, each next one after a cut that was right), so a part ending
/// inside a string or a nested container cannot close its `[`. So when every part parses, the parts
/// are the array's elements exactly, and the body is valid JSON (whitespace, `[`, parts joined by
/// `,`, `]`, whitespace); otherwise there are no parts and the caller splits another way.
struct ParsedParts: Sequence {
    struct Part: Sendable {
        /// The part's elements (its document is kept alive by them).
        var nodes: [JSONNode]
        /// The array index of the first.
        var firstIndex: Int
    }

    private var parts: [Part]

    init?(_ body: [UInt8], count: Int) {
        guard let open = body.firstIndex(where: { !isJSONWhitespace($0) }), body[open] == UInt8(ascii: "["),
              let close = body.lastIndex(where: { !isJSONWhitespace($0) }), close > open, body[close] == UInt8(ascii: "]") else { return nil }
        // The content between the brackets, cut at commas between objects.
        var found = [open]
        let share = Swift.max((close - open) / count, 1)
        for target in stride(from: open + share, to: close, by: share) {
            guard let comma = Self.objectBoundary(in: body, from: Swift.max(target, found[found.count - 1] + 1), before: close) else { break }
            found.append(comma)
        }
        found.append(close)
        guard found.count > 2 else { return nil }
        let cuts = found
        var documents = [JSONDocument?](repeating: nil, count: cuts.count - 1)
        documents.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: slots.count) { part in
                // The part's elements, read in place: its first and last bytes (the `[`, `]` or
                // the cut commas) stand for its brackets.
                slots[part] = try? JSONDocument(elementsIn: body, range: cuts[part]...cuts[part + 1])
            }
        }
        var parts: [Part] = []
        var index = 0
        for document in documents {
            guard let root = document?.root else { return nil }
            let nodes = Array(root.elements)
            parts.append(Part(nodes: nodes, firstIndex: index))
            index += nodes.count
        }
        self.parts = parts
    }

    /// The first `,` at or after `start` with a `}` before it and a `{` after it (whitespace
    /// around it allowed).
    private static func objectBoundary(in body: [UInt8], from start: Int, before end: Int) -> Int? {
        var position = start
        while position < end {
            guard body[position] == UInt8(ascii: ",") else {
                position += 1
                continue
            }
            var before = position - 1
            while before > 0, isJSONWhitespace(body[before]) { before -= 1 }
            var after = position + 1
            while after < end, isJSONWhitespace(body[after]) { after += 1 }
            if body[before] == UInt8(ascii: "}"), after < end, body[after] == UInt8(ascii: "{") { return position }
            position += 1
        }
        return nil
    }

    /// The elements of all parts.
    var elementCount: Int { parts.last.map { $0.firstIndex + $0.nodes.count } ?? 0 }

    func makeIterator() -> IndexingIterator<[Part]> { parts.makeIterator() }
}

/// A session filled by one thread and handed to the thread that absorbs it; never used by two
/// threads at once.
struct MappedRun: @unchecked Sendable {
    var session: MappingSession
    var roots: [Int]
}

extension MappingSession {
    /// Makes room for `factor` times the records and identities the session holds.
    func reserve(scaledBy factor: Double) {
        records.reserveCapacity(Int(Double(records.count) * factor))
        for entity in identities.indices where !identities[entity].isEmpty {
            identities[entity].reserveCapacity(Int(Double(identities[entity].count) * factor))
        }
    }

    /// Takes the records and errors of a session that mapped the elements after this one's,
    /// merging records by identification as `store` does and assigning their relationships as
    /// `assign` does, in the other session's record order: what mapping those elements in this
    /// session would have given. Returns the other session's roots as records of this one.
    func absorb(_ other: MappingSession, roots: [Int]) -> [Int] {
        // Room for the other session's records and identities at once (at least doubling, so
        // absorbing many parts stays linear), not by regrowing record by record.
        let recordsNeeded = records.count + other.records.count
        if recordsNeeded > records.capacity { records.reserveCapacity(Swift.max(recordsNeeded, 2 * records.capacity)) }
        for (entity, absorbed) in other.identities.enumerated() {
            let needed = identities[entity].count + absorbed.count
            if needed > identities[entity].capacity { identities[entity].reserveCapacity(Swift.max(needed, 2 * identities[entity].capacity)) }
        }
        var local = [Int](repeating: 0, count: other.records.count)
        var merged = [Bool](repeating: false, count: other.records.count)
        for (index, record) in other.records.enumerated() {
            let count = records.count
            local[index] = store(record.values, entity: plan.entities[record.entity])
            merged[index] = local[index] < count
        }
        // Relationships once every record has its index here.
        for (index, record) in other.records.enumerated() {
            let relationships = plan.entities[record.entity].relationships
            for (slot, related) in record.relations.enumerated() {
                guard let related else { continue }
                let translated = related.map { local[$0] }
                if merged[index] {
                    assign(translated, to: local[index], slot: slot, policy: relationships[slot].assignment)
                } else {
                    records[local[index]].relations[slot] = translated
                }
            }
        }
        errors += other.errors
        return roots.map { local[$0] }
    }
}
