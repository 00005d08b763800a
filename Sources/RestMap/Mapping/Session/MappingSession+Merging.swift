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
    /// `other` gives its records up: they are moved, not copied, and it is left with those merged
    /// into records of this session, to be freed with it (on another thread, if its owner wishes).
    func absorb(_ other: MappingSession, roots: [Int]) -> [Int] {
        // Merging the other session's records may change this one's: what it remembers of the
        // representations it mapped no longer tells their records.
        forgetRepresentations()
        var absorbed: [RecordData] = []
        swap(&absorbed, &other.records)
        // Room for the other session's records and identities at once (at least doubling, so
        // absorbing many parts stays linear), not by regrowing record by record.
        let recordsNeeded = records.count + absorbed.count
        if recordsNeeded > records.capacity { records.reserveCapacity(Swift.max(recordsNeeded, 2 * records.capacity)) }
        for (entity, identified) in other.identities.enumerated() where !identified.isEmpty {
            identities[entity].reserveCapacity(identities[entity].count + identified.count)
        }
        var local = [Int](repeating: 0, count: absorbed.count)
        var merged = [Bool](repeating: false, count: absorbed.count)
        for index in absorbed.indices {
            let entity = plan.entities[absorbed[index].entity]
            if let existing = mergeIntoKnown(absorbed[index].values, entity: entity) {
                local[index] = existing
                merged[index] = true
            } else {
                // New here: the record itself moves over (swapped out, so nothing is retained
                // for it or released after), its relationships translated below.
                local[index] = records.count
                var record = RecordData(entity: entity.index, values: [], relations: [])
                swap(&record, &absorbed[index])
                records.append(record)
            }
        }
        // Relationships once every record has its index here, translated where they lie (the
        // moved records are this session's alone, so no array is copied for it).
        func translate(_ relations: inout [[Int]?]) {
            for slot in relations.indices {
                relations[slot]?.withUnsafeMutableBufferPointer { related in
                    for position in related.indices { related[position] = local[related[position]] }
                }
            }
        }
        for index in absorbed.indices {
            guard merged[index] else {
                translate(&records[local[index]].relations)
                continue
            }
            translate(&absorbed[index].relations)
            let relationships = plan.entities[absorbed[index].entity].relationships
            for (slot, related) in absorbed[index].relations.enumerated() {
                guard let related else { continue }
                assign(related, to: local[index], slot: slot, policy: relationships[slot].assignment)
            }
        }
        errors += other.errors
        swap(&absorbed, &other.records)
        return roots.map { local[$0] }
    }
}
