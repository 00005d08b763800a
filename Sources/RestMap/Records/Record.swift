import FoundationEssentials
import RestMapSchema

/// A record built from a representation by the schema alone: no compiled model type.
///
/// `Record` is an immutable, `Sendable` value. Read attributes and relationships by name with a
/// subscript or as members: `repo.owner.login.string`, `record["stars"].int`.
@dynamicMemberLookup
public struct Record: Sendable, Hashable, CustomStringConvertible {
    let graph: RecordGraph
    let index: Int

    init(graph: RecordGraph, index: Int) {
        self.graph = graph
        self.index = index
    }

    var data: RecordData { graph.records[index] }
    var plan: EntityPlan { graph.plan.entities[data.entity] }

    /// The entity's name.
    public var entity: String { plan.name }

    /// An attribute or relationship by name; `.absent` when unknown or never mapped.
    public subscript(name: String) -> RecordField {
        let plan = self.plan
        if let slot = plan.attributeSlots[name] {
            return data.values[slot].map(RecordField.value) ?? .absent
        }
        if let slot = plan.relationshipSlots[name] {
            guard let related = data.relations[slot] else { return .absent }
            let records = related.map { Record(graph: graph, index: $0) }
            return plan.relationships[slot].isToMany ? .records(records) : records.first.map(RecordField.record) ?? .value(.null)
        }
        return .absent
    }

    public subscript(dynamicMember name: String) -> RecordField { self[name] }

    /// The mapped attributes in schema order (absent ones left out).
    public var attributes: [(name: String, value: Value)] {
        zip(plan.attributes, data.values).compactMap { attribute, value in value.map { (attribute.name, $0) } }
    }

    /// The record's position in its mapping result's `allRecords`: an array index for tables
    /// kept per record of one result.
    public var resultIndex: Int { index }

    /// The attribute values in the order the schema declares the entity's attributes (`nil`:
    /// absent, never mapped), read at once: what a store reads column by column.
    public var attributeValues: [Value?] { data.values }

    /// The related records of a relationship (empty when unset or unknown).
    public func related(_ name: String) -> [Record] {
        switch self[name] {
        case .record(let record): [record]
        case .records(let records): records
        default: []
        }
    }

    /// The identification values, or `nil` when the entity has none or one is null/absent.
    public var identification: [Value]? {
        let slots = plan.identification
        guard !slots.isEmpty else { return nil }
        var values: [Value] = []
        for slot in slots {
            guard let value = data.values[slot], !value.isNull else { return nil }
            values.append(value)
        }
        return values
    }

    public static func == (lhs: Record, rhs: Record) -> Bool { lhs.graph === rhs.graph && lhs.index == rhs.index }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(graph))
        hasher.combine(index)
    }

    /// The record as JSON (see `RecordWriter`).
    public var description: String { RecordWriter.json([self]) }
}

/// What a record holds under a name: nothing, a value, one record or several.
@dynamicMemberLookup
public enum RecordField: Sendable, Hashable {
    case absent
    case value(Value)
    case record(Record)
    case records([Record])

    /// Follows a name through a to-one relationship: `repo.owner.login`.
    public subscript(dynamicMember name: String) -> RecordField {
        if case .record(let record) = self { return record[name] }
        return .absent
    }

    public var value: Value? { if case .value(let value) = self { value } else { nil } }
    public var record: Record? { if case .record(let record) = self { record } else { nil } }
    public var records: [Record] {
        switch self {
        case .records(let records): records
        case .record(let record): [record]
        default: []
        }
    }
    public var isAbsent: Bool { self == .absent }
    public var isNull: Bool { value == .null }

    public var string: String? { if case .value(.string(let s)) = self { s } else { nil } }
    public var int: Int64? { if case .value(.integer(let i)) = self { i } else { nil } }
    public var double: Double? {
        switch self {
        case .value(.number(let d)): d
        case .value(.integer(let i)): Double(i)
        case .value(.decimal(let d)): d.nearestDouble
        default: nil
        }
    }
    public var decimal: Decimal? {
        switch self {
        case .value(.decimal(let d)): d
        case .value(.integer(let i)): Decimal(i)
        default: nil
        }
    }
    public var bool: Bool? { if case .value(.bool(let b)) = self { b } else { nil } }
    public var date: Date? { if case .value(.date(let d)) = self { d } else { nil } }
    public var url: URL? { if case .value(.url(let u)) = self { u } else { nil } }
    public var array: [Value]? { if case .value(.array(let a)) = self { a } else { nil } }
}
