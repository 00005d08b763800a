import Foundation
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
        let method = method.uppercased()
        let descriptors = plan.schema.requests.filter { $0.entity.value == record.entity }
        let descriptor = descriptors.first { $0.method == method } ?? descriptors.first { $0.method == nil }
        var ancestors: Set<Int> = []
        var body = try RequestSerializer(plan: plan).object(for: record, descriptor: descriptor, ancestors: &ancestors)
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

    func object(for record: Record, descriptor: RequestDescriptor?, ancestors: inout Set<Int>) throws(SerializationError) -> Value {
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
        for (keys, slot) in pairs {
            guard let stored = record.data.values[slot] else { continue }
            let attribute = entityPlan.attributes[slot]
            var value = stored
            for (name, transformer) in attribute.transforms.reversed() {
                do { value = try transformer.reverseTransform(value) } catch {
                    throw SerializationError(message: "transformer '\(name)' cannot serialize \(attribute.name): \(error)")
                }
            }
            body.setValue(value, at: keys[...])
        }
        guard descriptor?.attributes == nil else { return body }
        for (slot, relationship) in entityPlan.relationships.enumerated() {
            guard let source = relationship.source, let keys = Self.inverseKeys(source),
                  let related = record.data.relations[slot] else { continue }
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
    static func inverseKeys(_ path: KeyPath) -> [String]? {
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
