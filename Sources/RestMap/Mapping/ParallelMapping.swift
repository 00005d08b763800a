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
    /// begins (`ArrayParts`), without scanning it element by element first; otherwise, or when a
    /// cut turns out to be inside an element, `JSONElementStream` splits it.
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
        if let parts = ArrayParts(body, count: partCount) {
            var absorbed = Absorbed()
            // The first part tells how many records and identities the whole body brings.
            absorbed.scale = Double(body.count) / Double(parts.byteCount(ofPart: 0))
            let pipeline = BatchPipeline(workers: workers) { (worker: Mapper, part: Int) -> MappedRun? in
                guard let (nodes, firstIndex) = parts.elements(ofPart: part) else { return nil }
                return worker.mapElements(nodes, firstIndex: firstIndex, entity: entity, metadata: metadata)
            }
            var next = 0
            pipeline.run(next: {
                defer { next += 1 }
                return next < parts.count ? next : nil
            }, take: { absorbed.take($0) })
            // A part that does not parse was cut inside an element (or the body is malformed):
            // the stream below splits it element by element.
            if !absorbed.malformed, let session = absorbed.session { return (session, absorbed.roots) }
        }
        guard body.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[") else { return nil }
        var absorbed = Absorbed()
        let pipeline = BatchPipeline(workers: workers) { worker, batch in
            worker.mapElements(of: batch, entity: entity, metadata: metadata)
        }
        var stream = JSONElementStream(bytes: body, layout: .array(keys: []))
        let batchBytes = max(body.count / partCount, 1 << 16)
        do {
            try pipeline.run(next: { () throws(JSONStreamError) in try stream.nextBatch(targetBytes: batchBytes) },
                             take: { absorbed.take($0) })
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
        /// How many times the first part the whole body is, when known before mapping (0: not known).
        var scale = 0.0

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
                // Room for the whole body's roots, records and identities at once, instead of
                // rehashing as each part is absorbed.
                if scale > 1, !run.roots.isEmpty {
                    roots.reserveCapacity(Int(Double(run.roots.count) * scale))
                    run.session.reserve(scaledBy: scale)
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
    /// The session holds no node afterwards, so the elements' document ends with the nodes.
    private func mapElements(_ nodes: [JSONNode], firstIndex: Int, entity: Int, metadata: Metadata) -> MappedRun? {
        guard let root = nodes.first else { return nil }
        // The scope's root is never read: entities reading '@root' are not split.
        let session = MappingSession(plan: plan, root: root, metadata: metadata)
        // Room for the part's records and identities at once, not by regrowing.
        session.records.reserveCapacity(nodes.count)
        session.identities[entity].reserveCapacity(nodes.count)
        var roots: [Int] = []
        roots.reserveCapacity(nodes.count)
        for (position, node) in nodes.enumerated() {
            let index = firstIndex + position
            session.path = [.index(index)]
            if let record = session.map(node, entity: entity, collectionIndex: index) { roots.append(record) }
        }
        session.path = []
        session.releaseDocument()
        return MappedRun(session: session, roots: roots)
    }
}

/// A body that is one JSON array of objects, cut into parts of whole elements without scanning
/// it element by element first; each part is parsed by the thread that maps it, so only the
/// parts being mapped have a tape, and a tape's memory goes to the next part (`HugePages.recycle`).
///
/// Each cut is placed at a `}` `,` `{` near an even share of the bytes, and each part is parsed as
/// an array of its own. A cut that is not between two elements of the array (inside a string, or
/// inside a nested array) leaves the part before it unparsable: every part starts where an element
/// starts (the first after the `[`, each next one after a cut that was right), so a part ending
/// inside a string or a nested container cannot close its `[`. So when every part parses, the parts
/// are the array's elements exactly, and the body is valid JSON (whitespace, `[`, parts joined by
/// `,`, `]`, whitespace); when one does not, `elements(ofPart:)` gives `nil` for it and every part
/// after it, and the caller splits another way.
final class ArrayParts: @unchecked Sendable {
    private let body: [UInt8]
    /// The `[`, the cut commas and the `]`: part `i` is `cuts[i]...cuts[i + 1]`.
    private let cuts: [Int]
    // Below `condition`: read and written only while holding it.
    private let condition = NSCondition()
    /// The element count of each part parsed so far.
    private var elementCounts: [Int?]
    private var failed = false

    /// `nil` when the body is not an array whose elements can be cut at `}` `,` `{`.
    init?(_ body: [UInt8], count: Int) {
        guard let open = body.firstIndex(where: { !isJSONWhitespace($0) }), body[open] == UInt8(ascii: "["),
              let close = body.lastIndex(where: { !isJSONWhitespace($0) }), close > open, body[close] == UInt8(ascii: "]") else { return nil }
        let firstKey = Self.firstKey(in: body, after: open)
        var found = [open]
        let share = Swift.max((close - open) / count, 1)
        for target in stride(from: open + share, to: close, by: share) {
            guard let comma = Self.objectBoundary(in: body, from: Swift.max(target, found[found.count - 1] + 1), before: close, firstKey: firstKey)
            else { break }
            found.append(comma)
        }
        found.append(close)
        guard found.count > 2 else { return nil }
        self.body = body
        cuts = found
        elementCounts = Array(repeating: nil, count: found.count - 1)
    }

    /// The number of parts.
    var count: Int { cuts.count - 1 }

    /// The bytes of a part.
    func byteCount(ofPart part: Int) -> Int { cuts[part + 1] - cuts[part] + 1 }

    /// Parses a part: its elements and the array index of the first, known once every part before
    /// it has been parsed (by other threads; parts are taken in order, so this waits only for
    /// parses already running). `nil` when this part or one before it does not parse.
    func elements(ofPart part: Int) -> (nodes: [JSONNode], firstIndex: Int)? {
        // The part's elements, read in place: its first and last bytes (the `[`, `]` or the cut
        // commas) stand for its brackets.
        // Once a part failed, the parts after it are not parsed: the caller splits another way.
        guard !condition.withLock({ failed }) else { return nil }
        let nodes = (try? JSONDocument(elementsIn: body, range: cuts[part]...cuts[part + 1])).map { Array($0.root.elements) }
        condition.lock()
        defer { condition.unlock() }
        if let nodes { elementCounts[part] = nodes.count } else { failed = true }
        condition.broadcast()
        while !failed, elementCounts[..<part].contains(where: { $0 == nil }) { condition.wait() }
        guard !failed, let nodes else { return nil }
        return (nodes, elementCounts[..<part].reduce(0) { $0 + $1! })
    }

    /// The first `,` at or after `start` with a `}` before it and a `{` after it (whitespace
    /// around them allowed), and after the `{` the array's first key when it is known.
    ///
    /// Arrays that a service lists are of objects written alike, each beginning with the same key
    /// (`"id"`), while objects in a nested array (`"tags": [{"label": …}, {"label": …}]`) begin
    /// with another: requiring the first key keeps most cuts out of nested arrays, which the
    /// parse of the parts would catch, but only after mapping what came before.
    private static func objectBoundary(in body: [UInt8], from start: Int, before end: Int, firstKey: ArraySlice<UInt8>?) -> Int? {
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
            if body[before] == UInt8(ascii: "}"), after < end, body[after] == UInt8(ascii: "{"),
               firstKey.map({ Self.firstKey(in: body, after: after) == $0 }) ?? true {
                return position
            }
            position += 1
        }
        return nil
    }

    /// The quoted key (escapes and all) that begins the object whose `{` is at `position`, or, for
    /// the array's `[`, that begins its first element; `nil` when there is none.
    private static func firstKey(in body: [UInt8], after position: Int) -> ArraySlice<UInt8>? {
        var start = position + 1
        while start < body.count, isJSONWhitespace(body[start]) { start += 1 }
        guard start < body.count else { return nil }
        if body[position] == UInt8(ascii: "[") {
            return body[start] == UInt8(ascii: "{") ? firstKey(in: body, after: start) : nil
        }
        guard body[start] == UInt8(ascii: "\"") else { return nil }
        var end = start + 1
        while end < body.count, body[end] != UInt8(ascii: "\"") {
            end += body[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        return end < body.count ? body[start...end] : nil
    }
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
        // Merging the other session's records may change this one's: what it remembers of the
        // representations it mapped no longer tells their records.
        forgetRepresentations()
        // Room for the other session's records and identities at once (at least doubling, so
        // absorbing many parts stays linear), not by regrowing record by record.
        let recordsNeeded = records.count + other.records.count
        if recordsNeeded > records.capacity { records.reserveCapacity(Swift.max(recordsNeeded, 2 * records.capacity)) }
        for (entity, absorbed) in other.identities.enumerated() where !absorbed.isEmpty {
            identities[entity].reserveCapacity(identities[entity].count + absorbed.count)
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
