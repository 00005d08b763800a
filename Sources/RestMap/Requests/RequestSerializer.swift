import FoundationEssentials
import RestMapJSON
import RestMapSchema

/// A serialized request body.
public struct RequestBody: Sendable, Hashable {
    public var contentType: String
    public var bytes: [UInt8]
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Why a record could not be serialized.
public struct SerializationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension Mapper {
    /// Serializes a record into a request body (section 7): the request descriptor for the
    /// record's entity and method (exact method before ANY), else the inverse of the entity's mapping.
    public func requestBody(for record: Record, method: String = "POST") throws(SerializationError) -> RequestBody {
        let descriptor = requestDescriptor(entity: record.entity, method: method.uppercased())
        var ancestors: Set<Int> = []
        return encode(try RequestSerializer(plan: plan).object(for: record, descriptor: descriptor, ancestors: &ancestors),
                      descriptor: descriptor)
    }

    /// Serializes several records of one entity into one body: a JSON array, or with the request
    /// descriptor's `keyedBy` an object keyed by those attributes, one level each (the inverse of
    /// a keyed response: `{"display": {"theme": "dark"}}` from Setting records).
    public func requestBody(for records: [Record], method: String = "POST") throws(SerializationError) -> RequestBody {
        guard let entity = records.first?.entity else { throw SerializationError(message: "no records to serialize") }
        guard records.allSatisfy({ $0.entity == entity }) else {
            throw SerializationError(message: "records serialized together must be of one entity")
        }
        let descriptor = requestDescriptor(entity: entity, method: method.uppercased())
        let serializer = RequestSerializer(plan: plan)
        var body: Value
        if let descriptor, !descriptor.keyedBy.isEmpty {
            body = try serializer.keyed(records, keyedBy: try slots(of: descriptor.keyedBy, entity: entity), descriptor: descriptor)
        } else {
            var items: [Value] = []
            for record in records {
                var ancestors: Set<Int> = []
                items.append(try serializer.object(for: record, descriptor: descriptor, ancestors: &ancestors))
            }
            body = .array(items)
        }
        return encode(body, descriptor: descriptor)
    }

    private func requestDescriptor(entity: String, method: String) -> RequestDescriptor? {
        let descriptors = plan.schema.requests.filter { $0.entity.value == entity }
        return descriptors.first { $0.method == method } ?? descriptors.first { $0.method == nil }
    }

    private func slots(of keyedBy: [Located<String>], entity: String) throws(SerializationError) -> [Int] {
        do { return try plan.entities[plan.entityIndex[entity]!].slots(of: keyedBy) } catch {
            throw SerializationError(message: error.message)
        }
    }

    /// The body under the descriptor's `rootKeyPath`, in its format.
    private func encode(_ value: Value, descriptor: RequestDescriptor?) -> RequestBody {
        var body = value
        if let root = descriptor?.rootKeyPath {
            body = .object([Value.Member(key: root, value: body)])
        }
        switch descriptor?.format ?? .json {
        case .json:
            var writer = JSONWriter()
            body.write(to: &writer)
            return RequestBody(contentType: "application/json", bytes: writer.bytes)
        case .form:
            return RequestBody(contentType: "application/x-www-form-urlencoded", bytes: Array(FormEncoder.encode(body).utf8))
        }
    }

    /// Builds a standalone record to send: attribute values by name (coerced to the attributes'
    /// types) and related records by relationship name.
    public func makeRecord(entity: String, values: [String: Value], relationships: [String: [Record]] = [:]) throws(SerializationError) -> Record {
        guard let index = plan.entityIndex[entity] else { throw SerializationError(message: "no entity named '\(entity)'") }
        let entityPlan = plan.entities[index]
        var records: [RecordData] = []
        var data = RecordData(entity: index, values: Array(repeating: nil, count: entityPlan.attributes.count),
                              relations: Array(repeating: nil, count: entityPlan.relationships.count))
        for (name, value) in values {
            guard let slot = entityPlan.attributeSlots[name] else {
                throw SerializationError(message: "entity '\(entity)' has no attribute '\(name)'")
            }
            do { data.values[slot] = try plan.coercer.coerce(value, to: entityPlan.attributes[slot].type) } catch {
                throw SerializationError(message: "attribute '\(name)': \(error.message)")
            }
        }
        records.append(data)
        // Related records are copied into this record's graph, with everything they reach.
        var copied: [ObjectIdentifier: [Int: Int]] = [:]
        func copy(_ record: Record) -> Int {
            let key = ObjectIdentifier(record.graph)
            if let existing = copied[key]?[record.index] { return existing }
            let position = records.count
            copied[key, default: [:]][record.index] = position
            records.append(record.data)
            let relations = record.data.relations.map { $0?.map { copy(Record(graph: record.graph, index: $0)) } }
            records[position].relations = relations
            return position
        }
        for (name, related) in relationships {
            guard let slot = entityPlan.relationshipSlots[name] else {
                throw SerializationError(message: "entity '\(entity)' has no relationship '\(name)'")
            }
            records[0].relations[slot] = related.map(copy)
        }
        return Record(graph: RecordGraph(plan: plan, records: records), index: 0)
    }
}

/// Inverse mapping: records to body values.
struct RequestSerializer {
    let plan: MappingPlan

    /// Records as an object keyed by the attributes in `keyedBy`, one level each; each leaf is the
    /// record without its key attributes, or the value of its `@self` attribute (a scalar leaf).
    func keyed(_ records: [Record], keyedBy: [Int], descriptor: RequestDescriptor?, ancestors: inout Set<Int>) throws(SerializationError) -> Value {
        var body = Value.object([])
        for record in records {
            var keys: [String] = []
            for slot in keyedBy {
                guard let value = record.data.values[slot], !value.isNull else {
                    throw SerializationError(message: "a \(record.entity) record has no '\(record.plan.attributes[slot].name)' to key it by")
                }
                keys.append(ValueText.plain(value))
            }
            let leaf: Value
            if let selfSlot = record.plan.attributes.firstIndex(where: { $0.source.isSelf }) {
                leaf = try reversed(record.data.values[selfSlot] ?? .null, attribute: record.plan.attributes[selfSlot])
            } else {
                leaf = try object(for: record, descriptor: descriptor, ancestors: &ancestors, excluding: Set(keyedBy))
            }
            body.setValue(leaf, at: keys[...])
        }
        return body
    }

    func keyed(_ records: [Record], keyedBy: [Int], descriptor: RequestDescriptor?) throws(SerializationError) -> Value {
        var ancestors: Set<Int> = []
        return try keyed(records, keyedBy: keyedBy, descriptor: descriptor, ancestors: &ancestors)
    }

    /// A stored value as the body holds it: each transformer's reverse, in reverse order.
    private func reversed(_ stored: Value, attribute: AttributePlan) throws(SerializationError) -> Value {
        var value = stored
        for (name, transformer) in attribute.transforms.reversed() {
            do { value = try transformer.reverseTransform(value) } catch {
                throw SerializationError(message: "transformer '\(name)' cannot serialize \(attribute.name): \(error)")
            }
        }
        return value
    }

    func object(for record: Record, descriptor: RequestDescriptor?, ancestors: inout Set<Int>,
                excluding excluded: Set<Int> = []) throws(SerializationError) -> Value {
        let entityPlan = record.plan
        var body = Value.object([])
        ancestors.insert(record.index)
        defer { ancestors.remove(record.index) }
        let pairs: [(bodyKey: [String], slot: Int)]
        if let chosen = descriptor?.attributes {
            pairs = try chosen.map { item throws(SerializationError) in
                guard let slot = entityPlan.attributeSlots[item.attribute.value] else {
                    throw SerializationError(message: "entity '\(entityPlan.name)' has no attribute '\(item.attribute.value)'")
                }
                let isListForm = item.bodyKey == item.attribute.value
                let inverse = isListForm ? Self.inverseKeys(entityPlan.attributes[slot].source) : nil
                return (inverse ?? item.bodyKey.split(separator: ".").map(String.init), slot)
            }
        } else {
            pairs = entityPlan.attributes.enumerated().compactMap { slot, attribute in
                Self.inverseKeys(attribute.source).map { ($0, slot) }
            }
        }
        for (keys, slot) in pairs where !excluded.contains(slot) {
            guard let stored = record.data.values[slot] else { continue }
            body.setValue(try reversed(stored, attribute: entityPlan.attributes[slot]), at: keys[...])
        }
        guard descriptor?.attributes == nil else { return body }
        for (slot, relationship) in entityPlan.relationships.enumerated() {
            if relationship.isSelfAggregate, !relationship.keyedBy.isEmpty, let related = record.data.relations[slot] {
                // A keyed `@self` relationship: the related records are keys of this object.
                let children = related.filter { !ancestors.contains($0) }.map { Record(graph: record.graph, index: $0) }
                if case .object(let members) = try keyed(children, keyedBy: relationship.keyedBy, descriptor: nil, ancestors: &ancestors) {
                    for member in members { body.setValue(member.value, at: [member.key][...]) }
                }
                continue
            }
            guard let source = relationship.source, let keys = Self.inverseKeys(source),
                  let related = record.data.relations[slot] else { continue }
            if !relationship.keyedBy.isEmpty {
                let children = related.filter { !ancestors.contains($0) }.map { Record(graph: record.graph, index: $0) }
                body.setValue(try keyed(children, keyedBy: relationship.keyedBy, descriptor: nil, ancestors: &ancestors), at: keys[...])
                continue
            }
            var items: [Value] = []
            for index in related {
                let child = Record(graph: record.graph, index: index)
                if ancestors.contains(index) {
                    items.append(Self.reference(child))  // a cycle: send the identification only
                } else {
                    items.append(try object(for: child, descriptor: nil, ancestors: &ancestors))
                }
            }
            body.setValue(relationship.isToMany ? .array(items) : (items.first ?? .null), at: keys[...])
        }
        return body
    }

    /// The body keys of a plain key path; `nil` for paths that cannot be inverted (operators,
    /// `@parent`, `@metadata`, `@self`).
    static func inverseKeys(_ path: MappingKeyPath) -> [String]? {
        var keys: [String] = []
        for segment in path.segments {
            guard case .key(let key, _) = segment else { return nil }
            keys.append(key)
        }
        return keys
    }

    static func reference(_ record: Record) -> Value {
        let plan = record.plan
        return .object(plan.identification.compactMap { slot in
            record.data.values[slot].map { Value.Member(key: inverseKeys(plan.attributes[slot].source)?.joined(separator: ".") ?? plan.attributes[slot].name, value: $0) }
        })
    }
}

extension Value {
    /// Sets a value at nested object keys, creating objects on the way.
    mutating func setValue(_ value: Value, at keys: ArraySlice<String>) {
        guard let first = keys.first else {
            self = value
            return
        }
        guard case .object(var members) = self else {
            self = .object([])
            setValue(value, at: keys)
            return
        }
        if let index = members.firstIndex(where: { $0.key == first }) {
            members[index].value.setValue(value, at: keys.dropFirst())
        } else {
            var child = Value.object([])
            child.setValue(value, at: keys.dropFirst())
            members.append(Value.Member(key: first, value: child))
        }
        self = .object(members)
    }
}

/// `application/x-www-form-urlencoded` with Rails-style nesting: `task[name]=x&tags[]=a`.
enum FormEncoder {
    static func encode(_ value: Value) -> String {
        var pairs: [String] = []
        func add(_ value: Value, name: String) {
            switch value {
            case .object(let members):
                for member in members { add(member.value, name: name.isEmpty ? member.key : "\(name)[\(member.key)]") }
            case .array(let items):
                for item in items { add(item, name: "\(name)[]") }
            case .null:
                pairs.append(escape(name) + "=")
            default:
                pairs.append(escape(name) + "=" + escape(ValueText.plain(value)))
            }
        }
        add(value, name: "")
        return pairs.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"), UInt8(ascii: "["), UInt8(ascii: "]"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result += "+"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return result
    }
}
