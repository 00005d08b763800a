import FoundationEssentials
import RestMapSchema

/// The stored form of one record: values by attribute slot, related records by relationship slot.
struct RecordData: Sendable {
    var entity: Int
    /// `nil` = absent (never mapped); `.null` = mapped to null.
    var values: [Value?]
    /// Record indices per relationship slot; `nil` = never assigned.
    var relations: [[Int]?]

    /// Writes the values another mapping of this record found over its own (absent ones,
    /// `nil`, keep what the record has): how records with one identification merge.
    mutating func overwrite(with values: [Value?]) {
        for (slot, value) in values.enumerated() where value != nil {
            self.values[slot] = value
        }
    }

    /// Assigns `related` to the relationship in `slot` as `policy` says: replacing what it
    /// holds, or adding the records it lacks.
    mutating func assign(_ related: [Int], slot: Int, policy: AssignmentPolicy) {
        switch policy {
        case .set, .replace:
            relations[slot] = related
        case .union:
            var merged = relations[slot] ?? []
            for index in related where !merged.contains(index) { merged.append(index) }
            relations[slot] = merged
        }
    }
}

/// The records of one mapping result, immutable once built and shared by every `Record` of it.
final class RecordGraph: Sendable {
    let plan: MappingPlan
    let records: [RecordData]

    init(plan: MappingPlan, records: [RecordData]) {
        self.plan = plan
        self.records = records
    }
}
