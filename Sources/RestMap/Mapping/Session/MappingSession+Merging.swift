import RestMapJSON

extension MappingSession {
    /// Merges the sessions of a split body's parts (in input order) into the first, on the
    /// pool's threads, as mapping their elements one after another in one session would have:
    /// records merged by identification (a later part's values written over an earlier one's,
    /// its relationships assigned by their policy), each record where it was first mapped, and
    /// the errors in input order. Returns the merged session and the parts' roots in it.
    ///
    /// The parts give their records up. The merged session's identities are not merged: it
    /// holds a result, and nothing more is mapped into it.
    static func merge<Worker, Batch, Output>(_ parts: [MappedRun], plan: MappingPlan, on pool: OrderedWorkers<Worker, Batch, Output>,
                                             profile: StageProfile?) -> (session: MappingSession, roots: [Int]) {
        guard parts.count > 1 else { return (parts[0].session, parts[0].roots) }
        return SessionMerge(parts, plan: plan, profile: profile).run(on: pool)
    }
}

/// A part's identified records, cut into shards by entity and identification as the part is
/// mapped, on the thread that maps it: what the merge of the parts begins with.
struct MergeClaims: Sendable {
    fileprivate let shards: [[SessionMerge.Claim]]

    /// The identified records of `session`, in `shardCount` shards (the parts one merge takes
    /// are cut into the same number).
    init(of session: MappingSession, shardCount: Int) {
        var shards = Array(repeating: [SessionMerge.Claim](), count: shardCount)
        for (entity, identified) in session.identities.enumerated() where !identified.isEmpty {
            identified.forEach { key, record in
                shards[SessionMerge.shard(of: key, entity: entity, count: shardCount)].append(.init(entity: entity, key: key, record: record))
            }
        }
        self.shards = shards
    }
}

/// Merging parts' sessions in phases, each on every thread of the pool and each after the one
/// before has finished; the calling thread only counts between two of them and gathers the
/// roots and errors:
///
/// 1. **claim** (per part, as the part is mapped: `MergeClaims`): the part's identified records,
///    cut into shards by identification;
/// 2. **resolve** (per shard): the shard's claims, part after part in input order, against the
///    identifications before them: a record whose identification an earlier part has is a
///    duplicate of that part's record (each part's own records are merged already);
/// 3. **number** (per part): the part's new records are numbered after those of the parts before
///    it (their counts summed on the calling thread), each duplicate as its earlier record;
/// 4. **place** (per part): relationships translated to those numbers, new records moved into the
///    merged array, roots translated;
/// 5. **merge** (per shard): each duplicate merged into its record, in input order;
/// 6. **free** (per part and shard): what is left of the part (its duplicates, its identities)
///    and of the shard.
///
/// A record is merged by one shard only, so no two threads change one record. Phases touch
/// shared state only as above (a part's state by the part's call, a merged record by its
/// shard's call; everything else read-only), and the pool's lock orders each phase before the
/// next: that is what makes the unchecked `Sendable` conformances below sound.
private struct SessionMerge: Sendable {
    /// An identified record of a part's session.
    struct Claim: Sendable {
        var entity: Int
        var key: IdentityKey
        var record: Int
    }

    /// A part's record whose identification an earlier part's record has.
    struct Duplicate: Sendable {
        var part: Int
        var record: Int
        var earlierPart: Int
        var earlierRecord: Int
    }

    final class Part: @unchecked Sendable {
        let session: MappingSession
        var roots: [Int]
        /// Per shard, the part's identified records (phases 1–3).
        var claims: [[Claim]]
        /// Each record's number in the merged array (phases 3–6).
        var numbers: [Int] = []
        /// Where its new records begin in the merged array.
        var offset = 0

        init(_ run: MappedRun) {
            session = run.session
            roots = run.roots
            claims = run.takeClaims().shards
        }

        /// Phase 6: frees what is left of the part once it is merged (its records given up, its
        /// identities, claims and numbers).
        func free() {
            session.records = []
            session.identities = session.identities.map { _ in IdentityIndex() }
            claims = []
            numbers = []
            roots = []
        }
    }

    final class Shard: @unchecked Sendable {
        /// The shard's duplicates, part after part.
        var duplicates: [Duplicate] = []
        /// `ends[part]`: where the part's duplicates end in `duplicates`.
        var ends: [Int] = []

        func duplicates(of part: Int) -> ArraySlice<Duplicate> {
            duplicates[(part == 0 ? 0 : ends[part - 1])..<ends[part]]
        }
    }

    /// The merged array while it is filled (phases 4 and 5).
    struct MergedRecords: @unchecked Sendable {
        let base: UnsafeMutablePointer<RecordData>
    }

    let parts: [Part]
    let shards: [Shard]
    let entityCount: Int
    /// Per entity, each relationship's assignment policy: read by every thread of phase 5,
    /// without the reference counting of the plan's shared entity objects.
    let assignments: [[AssignmentPolicy]]
    let profile: StageProfile?

    init(_ runs: [MappedRun], plan: MappingPlan, profile: StageProfile?) {
        parts = runs.map(Part.init)
        shards = parts[0].claims.map { _ in Shard() }
        entityCount = plan.entities.count
        assignments = plan.entities.map { $0.relationships.map(\.assignment) }
        self.profile = profile
    }

    /// The shard of an identification: the top bits of a multiplicative hash of the whole number
    /// (the common case) or of `Hasher`'s hash. Numbers chosen to fall in one shard only make one
    /// thread merge them all; the shard's table (`IdentityIndex`) bounds its own probes.
    static func shard(of key: IdentityKey, entity: Int, count: Int) -> Int {
        let hash: UInt64 = if case .single(.integer(let number)) = key {
            UInt64(bitPattern: number) &+ UInt64(entity) << 56
        } else {
            UInt64(bitPattern: Int64(key.hashValue)) &+ UInt64(entity)
        }
        return Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 32) % count
    }

    func run<Worker, Batch, Output>(on pool: OrderedWorkers<Worker, Batch, Output>) -> (session: MappingSession, roots: [Int]) {
        let (parts, shards, profile) = (parts, shards, profile)
        /// One phase: `body` for each part or shard on the pool's threads, timed as `claim`.
        func phase(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
            pool.forEach(count) { index in profile.measure(.claim) { body(index) } }
        }
        phase(shards.count) { shard in resolve(shard) }
        let total = profile.measure(.merge) { () -> Int in
            var total = 0
            for (index, part) in parts.enumerated() {
                part.offset = total
                total += part.session.records.count - shards.reduce(0) { $0 + $1.duplicates(of: index).count }
            }
            return total
        }
        phase(parts.count) { part in number(part) }
        let records = [RecordData](unsafeUninitializedCapacity: total) { buffer, initialized in
            // No records at all (every element failed): nothing to place or merge.
            guard let base = buffer.baseAddress, total > 0 else { return }
            let merged = MergedRecords(base: base)
            phase(parts.count) { part in place(part, into: merged) }
            phase(shards.count) { shard in mergeDuplicates(of: shard, into: merged) }
            initialized = total
        }
        let (roots, errors) = profile.measure(.merge) { () -> ([Int], [MappingError]) in
            var roots = parts[0].roots, errors = parts[0].session.errors
            for part in parts.dropFirst() {
                roots += part.roots
                errors += part.session.errors
            }
            return (roots, errors)
        }
        // What the parts and shards hold is freed on the pool's threads, not one by one on the calling thread.
        phase(max(parts.count, shards.count)) { index in
            if index < parts.count { parts[index].free() }
            if index < shards.count { shards[index].duplicates = [] }
        }
        let session = parts[0].session
        session.records = records
        session.errors = errors
        return (session, roots)
    }

    /// Phase 2: the shard's claims in input order against those before them.
    private func resolve(_ shard: Int) {
        var identities = Array(repeating: IdentityIndex(), count: entityCount)
        var claimCounts = Array(repeating: 0, count: entityCount)
        for part in parts {
            for claim in part.claims[shard] { claimCounts[claim.entity] += 1 }
        }
        for entity in identities.indices where claimCounts[entity] > 0 { identities[entity].reserveCapacity(claimCounts[entity]) }
        var duplicates: [Duplicate] = []
        var ends: [Int] = []
        ends.reserveCapacity(parts.count)
        for (index, part) in parts.enumerated() {
            for claim in part.claims[shard] {
                // A part has fewer than 2^32 records, and fewer than 2^31 parts make a body.
                guard let earlier = identities[claim.entity].positionOrInsert(claim.key, index << 32 | claim.record) else { continue }
                duplicates.append(Duplicate(part: index, record: claim.record, earlierPart: earlier >> 32, earlierRecord: earlier & 0xFFFF_FFFF))
            }
            ends.append(duplicates.count)
        }
        shards[shard].duplicates = duplicates
        shards[shard].ends = ends
    }

    /// Phase 3: numbers for the part's new records, after those of the parts before it
    /// (duplicates are numbered in phase 4, once their earlier parts are numbered).
    private func number(_ index: Int) {
        let part = parts[index]
        part.claims = []
        var numbers = Array(repeating: 0, count: part.session.records.count)
        for shard in shards {
            for duplicate in shard.duplicates(of: index) { numbers[duplicate.record] = -1 }
        }
        var next = part.offset
        for record in numbers.indices where numbers[record] == 0 {
            numbers[record] = next
            next += 1
        }
        part.numbers = numbers
    }

    /// Phase 4: the part's relationships and roots translated to merged numbers, and its new
    /// records moved into the merged array (a duplicate's number is that of an earlier part's
    /// record, below the part's offset).
    private func place(_ index: Int, into merged: MergedRecords) {
        let part = parts[index]
        var numbers = part.numbers
        for shard in shards {
            for duplicate in shard.duplicates(of: index) {
                numbers[duplicate.record] = parts[duplicate.earlierPart].numbers[duplicate.earlierRecord]
            }
        }
        numbers.withUnsafeBufferPointer { numbers in
            part.session.records.withUnsafeMutableBufferPointer { records in
                for record in records.indices {
                    for slot in records[record].relations.indices {
                        records[record].relations[slot]?.withUnsafeMutableBufferPointer { related in
                            for position in related.indices { related[position] = numbers[related[position]] }
                        }
                    }
                    guard numbers[record] >= part.offset else { continue }
                    var moved = RecordData(entity: 0, values: [], relations: [])
                    swap(&moved, &records[record])
                    (merged.base + numbers[record]).initialize(to: moved)
                }
            }
            for root in part.roots.indices { part.roots[root] = numbers[part.roots[root]] }
        }
    }

    /// Phase 5: the shard's duplicates merged into their records, in input order: values
    /// written over, relationships assigned (as `MappingSession.store` merges).
    private func mergeDuplicates(of shard: Int, into merged: MergedRecords) {
        for duplicate in shards[shard].duplicates {
            let target = merged.base + parts[duplicate.earlierPart].numbers[duplicate.earlierRecord]
            let source = parts[duplicate.part].session.records[duplicate.record]
            target.pointee.overwrite(with: source.values)
            for (slot, related) in source.relations.enumerated() {
                guard let related else { continue }
                target.pointee.assign(related, slot: slot, policy: assignments[source.entity][slot])
            }
        }
    }
}
