import FoundationEssentials
import RestMapSchema

/// Builds records from values kept elsewhere (rows of a store), so that they are the same
/// `Record` values mapping gives and print through the same `RecordWriter`.
///
/// Add records with their attribute values in schema order, relate them, then `build()` once:
///
/// ```swift
/// var builder = RecordGraphBuilder(mapper: mapper)
/// let user = try builder.add(entity: "User", attributes: [.integer(1), .string("Blake"), nil])
/// let records = builder.build()        // records[user] is the User
/// ```
public struct RecordGraphBuilder: Sendable {
    let plan: MappingPlan
    private var records: [RecordData] = []

    /// A builder for records of the mapper's schema.
    public init(mapper: Mapper) {
        plan = mapper.plan
    }

    /// The number of records added so far.
    public var count: Int { records.count }

    /// Adds a record of `entity` and returns its handle (its position in `build()`).
    ///
    /// - Parameter attributes: one value per attribute of the entity, in schema order; `nil` is
    ///   an absent attribute. Values are coerced to the attribute types (a Unix-seconds number
    ///   becomes a date, an integer 0/1 a boolean), as mapping would.
    /// - Throws: `RecordBuildError` for an unknown entity, a wrong number of values or a value
    ///   that cannot be coerced.
    public mutating func add(entity: String, attributes: [Value?]) throws(RecordBuildError) -> Int {
        guard let index = plan.entityIndex[entity] else { throw RecordBuildError(message: "unknown entity '\(entity)'") }
        let entityPlan = plan.entities[index]
        guard attributes.count == entityPlan.attributes.count else {
            throw RecordBuildError(message: "\(entity) has \(entityPlan.attributes.count) attributes, \(attributes.count) values given")
        }
        var values = attributes
        for (slot, value) in attributes.enumerated() {
            guard let value else { continue }
            do { values[slot] = try plan.coercer.coerce(value, to: entityPlan.attributes[slot].type) } catch {
                throw RecordBuildError(message: "\(entity).\(entityPlan.attributes[slot].name): \(error.message)")
            }
        }
        records.append(RecordData(entity: index, values: values, relations: Array(repeating: nil, count: entityPlan.relationships.count)))
        return records.count - 1
    }

    /// Sets a relationship of the record `source` to the records `targets` (handles), in order.
    /// A to-one relationship takes the first target, or null when `targets` is empty.
    public mutating func relate(_ source: Int, relationship: String, to targets: [Int]) throws(RecordBuildError) {
        guard records.indices.contains(source), targets.allSatisfy(records.indices.contains) else {
            throw RecordBuildError(message: "relationship '\(relationship)' relates an unknown record handle")
        }
        let entityPlan = plan.entities[records[source].entity]
        guard let slot = entityPlan.relationshipSlots[relationship] else {
            throw RecordBuildError(message: "\(entityPlan.name) has no relationship '\(relationship)'")
        }
        records[source].relations[slot] = entityPlan.relationships[slot].isToMany ? targets : Array(targets.prefix(1))
    }

    /// The records, in the order they were added (a handle indexes this array).
    public func build() -> [Record] {
        let graph = RecordGraph(plan: plan, records: records)
        return records.indices.map { Record(graph: graph, index: $0) }
    }
}

/// Why a record could not be built from stored values.
public struct RecordBuildError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension Mapper {
    /// A value coerced to the type of an entity's attribute, by the mapping rules (`"5"` for an
    /// integer attribute is `5`). Stores use it to type filter values given as text.
    public func coerce(_ value: Value, toAttribute attribute: String, of entity: String) throws(RecordBuildError) -> Value {
        guard let index = plan.entityIndex[entity] else { throw RecordBuildError(message: "unknown entity '\(entity)'") }
        let entityPlan = plan.entities[index]
        guard let slot = entityPlan.attributeSlots[attribute] else {
            throw RecordBuildError(message: "\(entity) has no attribute '\(attribute)'")
        }
        do { return try plan.coercer.coerce(value, to: entityPlan.attributes[slot].type) } catch {
            throw RecordBuildError(message: "\(entity).\(attribute): \(error.message)")
        }
    }

    /// The request path relative to the schema's `baseURL`, as descriptors and path patterns
    /// see it: scheme and host dropped, the base path stripped (`/api/v1/services` → `/services`).
    public func requestPath(_ path: String) -> String { relativePath(path) }
}

extension MappingResult {
    /// Every record of the result, nested and connected ones included, in mapping order.
    public var allRecords: [Record] {
        guard let graph else { return [] }
        return graph.records.indices.map { Record(graph: graph, index: $0) }
    }
}
