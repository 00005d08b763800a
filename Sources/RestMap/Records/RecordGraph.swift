import FoundationEssentials
import RestMapSchema

/// The stored form of one record: values by attribute slot, related records by relationship slot.
struct RecordData: Sendable {
    var entity: Int
    /// `nil` = absent (never mapped); `.null` = mapped to null.
    var values: [Value?]
    /// Record indices per relationship slot; `nil` = never assigned.
    var relations: [[Int]?]
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
