import RestMapJSON

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
