import RestMapJSON
import RestMapSchema

extension Mapper {
    /// The smallest body `MappingOptions.jobs` splits across threads.
    static let parallelBodyBytes = 1 << 20

    /// Maps a body that is one large JSON array of a descriptor's representations on `jobs`
    /// threads, giving what one thread gives: the same records in the same order, merged by
    /// identification and with relationships assigned as one session would, and the same errors.
    ///
    /// The array is split into batches of whole elements (`JSONElementStream`); each batch is
    /// parsed and mapped on a thread with a plan of its own, into a session of its own, so the
    /// threads share no document and no plan. The sessions are then taken into the first one in
    /// input order (`MappingSession.absorb`).
    ///
    /// - Returns: the session holding every record, and the roots; `nil` when the body is not one
    ///   it can split — the caller then maps it on one thread, which also reports malformed JSON
    ///   the way whole-body mapping does.
    func mapArrayInParallel(_ body: [UInt8], entity: Int, metadata: Metadata, jobs: Int) -> (session: MappingSession, roots: [Int])? {
        guard jobs > 1, body.count >= Self.parallelBodyBytes, body.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "["),
              isSplittable(entity) else { return nil }
        let workers = [self] + (1..<jobs).map { _ in withOwnPlan() }
        let pipeline = BatchPipeline(workers: workers) { worker, batch in
            worker.mapElements(of: batch, entity: entity, metadata: metadata)
        }
        var stream = JSONElementStream(bytes: body, layout: .array(keys: []))
        var session: MappingSession?
        var roots: [Int] = []
        var malformed = false
        do {
            // More batches than threads, so a thread that finishes early takes another.
            try pipeline.run(&stream, batchBytes: max(body.count / (4 * jobs), 1 << 16)) { run in
                guard !malformed, let run else {
                    malformed = true
                    return
                }
                if let session {
                    roots += session.absorb(run.session, roots: run.roots)
                } else {
                    session = run.session
                    roots = run.roots
                }
            }
        } catch {
            return nil
        }
        guard !malformed, let session else { return nil }
        return (session, roots)
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
        let documents = batch.documents()
        var nodes: [JSONNode] = []
        nodes.reserveCapacity(documents.count)
        for document in documents {
            guard case .success(let node) = document else { return nil }
            nodes.append(node)
        }
        guard let root = nodes.first else { return nil }
        // The scope's root is never read: entities reading '@root' are not split.
        let session = MappingSession(plan: plan, root: root, metadata: metadata)
        var roots: [Int] = []
        for (position, node) in nodes.enumerated() {
            let index = batch.firstIndex + position
            session.path = [.index(index)]
            if let record = session.map(node, entity: entity, collectionIndex: index) { roots.append(record) }
        }
        session.path = []
        return MappedRun(session: session, roots: roots)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// A session filled by one thread and handed to the thread that absorbs it; never used by two
/// threads at once.
struct MappedRun: @unchecked Sendable {
    var session: MappingSession
    var roots: [Int]
}

extension MappingSession {
    /// Takes the records and errors of a session that mapped the elements after this one's,
    /// merging records by identification as `store` does and assigning their relationships as
    /// `assign` does, in the other session's record order: what mapping those elements in this
    /// session would have given. Returns the other session's roots as records of this one.
    func absorb(_ other: MappingSession, roots: [Int]) -> [Int] {
        var local = [Int](repeating: 0, count: other.records.count)
        var merged = [Bool](repeating: false, count: other.records.count)
        for (index, record) in other.records.enumerated() {
            let entityPlan = plan.entities[record.entity]
            let key = identityKey(record.values, slots: entityPlan.identification)
            if let key, let existing = identities[record.entity][key] {
                for (slot, value) in record.values.enumerated() where value != nil { records[existing].values[slot] = value }
                local[index] = existing
                merged[index] = true
            } else {
                if let key { identities[record.entity][key] = records.count }
                local[index] = records.count
                records.append(RecordData(entity: record.entity, values: record.values, relations: record.relations))
            }
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
