import Foundation
import RestMapJSON
import RestMapSchema

/// Identification values of a record, as a dictionary key.
enum IdentityKey: Hashable {
    case single(Value)
    case composite([Value])
}

/// One step of the position of a representation in the body, for error messages.
enum PathStep {
    case key(String)
    case index(Int)
}

/// The mutable state of mapping one document; used by one task, then frozen into a graph.
final class MappingSession {
    let plan: MappingPlan
    var scope: EvaluationScope
    var records: [RecordData] = []
    var identities: [[IdentityKey: Int]]
    var errors: [MappingError] = []
    var path: [PathStep] = []
    /// Nested relationship depth; bounded so hostile documents cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 100

    init(plan: MappingPlan, root: JSONNode, metadata: Metadata) {
        self.plan = plan
        self.scope = EvaluationScope(representations: [], root: root, metadata: metadata, collectionIndex: nil, rootKeyPath: "")
        self.identities = Array(repeating: [:], count: plan.entities.count)
    }

    // MARK: Representations

    /// Maps the value found at a descriptor's key path: an object, an array of them, or (with
    /// `keyedBy`) an object whose keys are records. Returns the root records in order.
    func mapRoot(_ found: Resolved, entity: Int, keyedBy: Int?) -> [Int] {
        var mapped: [Int] = []
        switch found {
        case .missing, .value(.null):
            return []
        case .value(let value):
            fail("the key path gives a computed value (\(ValueText.short(value))), not an object representation",
                 entity: plan.entities[entity].name, attribute: nil)
            return []
        case .node(let node) where node.isNull:
            return []
        case .node(let node) where node.kind == .array:
            mapped = mapElements(node.elements, entity: entity)
        case .nodes(let nodes):
            for (index, element) in nodes.enumerated() {
                path.append(.index(index))
                if element.kind == .array {
                    mapped += mapRoot(.node(element), entity: entity, keyedBy: keyedBy)
                } else if let record = map(element, entity: entity, collectionIndex: index) {
                    mapped.append(record)
                }
                path.removeLast()
            }
        case .node(let node):
            if let keyedBy, node.kind == .object {
                for (index, member) in node.members.enumerated() {
                    path.append(.key(member.key))
                    if let record = map(member.value, entity: entity, collectionIndex: index, injected: (keyedBy, .string(member.key))) {
                        mapped.append(record)
                    }
                    path.removeLast()
                }
            } else if let record = map(node, entity: entity, collectionIndex: nil) {
                mapped.append(record)
            }
        }
        return mapped
    }

    /// Maps each element of an array with its index as collection index and position.
    private func mapElements(_ elements: some Sequence<JSONNode>, entity: Int) -> [Int] {
        var mapped: [Int] = []
        for (index, element) in elements.enumerated() {
            path.append(.index(index))
            if let record = map(element, entity: entity, collectionIndex: index) { mapped.append(record) }
            path.removeLast()
        }
        return mapped
    }

    /// Maps one representation; `nil` when it was declined (dynamic `skip`), was `null` (no
    /// representation, as RestKit skips `NSNull`) or failed (an error is recorded: a value that is
    /// not an object is a failed record naming where, never a record without attributes).
    func map(_ node: JSONNode, entity requested: Int, collectionIndex: Int?, injected: (slot: Int, value: Value)? = nil) -> Int? {
        switch node.kind {
        case .object: break
        case .null: return nil
        default:
            fail("expected an object representation, found \(Self.describe(node))", entity: plan.entities[requested].name, attribute: nil)
            return nil
        }
        scope.representations.append(node)
        let savedIndex = scope.collectionIndex
        scope.collectionIndex = collectionIndex
        defer {
            scope.representations.removeLast()
            scope.collectionIndex = savedIndex
        }
        guard let entity = concreteEntity(for: node, requested: requested) else { return nil }
        let entityPlan = plan.entities[entity]

        var values = [Value?](repeating: nil, count: entityPlan.attributes.count)
        for (slot, attribute) in entityPlan.attributes.enumerated() {
            do {
                values[slot] = try value(of: attribute, in: node)
            } catch {
                fail(error.message, entity: entityPlan.name, attribute: attribute)
                return nil
            }
        }
        if let injected {
            do { values[injected.slot] = try plan.coercer.coerce(injected.value, to: entityPlan.attributes[injected.slot].type) } catch {
                fail(error.message, entity: entityPlan.name, attribute: entityPlan.attributes[injected.slot])
                return nil
            }
        }
        for slot in entityPlan.requiredSlots where (values[slot] ?? .null).isNull {
            let attribute = entityPlan.attributes[slot]
            fail("required attribute '\(attribute.name)' (from '\(attribute.source)') is missing", entity: entityPlan.name, attribute: attribute)
            return nil
        }

        let record = store(values, entity: entityPlan)
        if !entityPlan.relationships.isEmpty { mapRelationships(of: record, plan: entityPlan, node: node) }
        return record
    }

    /// The entity a representation maps to: the requested one, or a dynamic entity's pick.
    private func concreteEntity(for node: JSONNode, requested: Int) -> Int? {
        guard let dynamic = plan.entities[requested].dynamic else { return requested }
        let picked = KeyPathEvaluator.evaluate(dynamic.by, in: scope).value
        let key: String? = switch picked {
        case .string(let string)?: string
        case .integer(let integer)?: String(integer)
        case .bool(let bool)?: bool ? "true" : "false"
        default: nil
        }
        if let key, let entity = dynamic.cases[key] { return entity }
        switch dynamic.otherwise {
        case .skip:
            return nil
        case .entity(let entity):
            return entity
        case .error:
            let shown = picked.map(ValueText.short) ?? "nothing"
            errors.append(MappingError(
                message: "'\(dynamic.by)' is \(shown), which matches no case of dynamic entity '\(plan.entities[requested].name)'",
                path: renderPath(), entity: plan.entities[requested].name, attribute: nil))
            return nil
        }
    }

    /// An attribute's value: read, defaulted, transformed and coerced.
    private func value(of attribute: AttributePlan, in node: JSONNode) throws(CoercionError) -> Value? {
        let found: Resolved
        if let key = attribute.singleKey {
            found = node.kind == .object ? (node[key].map { .node($0) } ?? .missing) : .missing
        } else {
            found = KeyPathEvaluator.evaluate(attribute.source, in: scope)
        }
        if attribute.transforms.isEmpty, case .node(let valueNode) = found {
            return try plan.coercer.coerce(valueNode, to: attribute.type)
        }
        guard var value = found.value ?? attribute.defaultValue else { return nil }
        for (name, transformer) in attribute.transforms {
            do { value = try transformer.transform(value) } catch {
                throw CoercionError(message: "transformer '\(name)' failed on \(ValueText.short(value)): \(error)")
            }
        }
        return try plan.coercer.coerce(value, to: attribute.type)
    }

    /// Adds a record, or merges it into the record with the same identification.
    private func store(_ values: [Value?], entity: EntityPlan) -> Int {
        if let key = identityKey(values, slots: entity.identification) {
            if let existing = identities[entity.index][key] {
                for (slot, value) in values.enumerated() where value != nil {
                    records[existing].values[slot] = value
                }
                return existing
            }
            identities[entity.index][key] = records.count
        }
        records.append(RecordData(entity: entity.index, values: values,
                                  relations: Array(repeating: nil, count: entity.relationships.count)))
        return records.count - 1
    }

    func identityKey(_ values: [Value?], slots: [Int]) -> IdentityKey? {
        guard !slots.isEmpty else { return nil }
        if slots.count == 1 {
            guard let value = values[slots[0]], !value.isNull else { return nil }
            return .single(value)
        }
        var parts: [Value] = []
        for slot in slots {
            guard let value = values[slot], !value.isNull else { return nil }
            parts.append(value)
        }
        return .composite(parts)
    }

    // MARK: Relationships

    private func mapRelationships(of record: Int, plan entityPlan: EntityPlan, node: JSONNode) {
        depth += 1
        defer { depth -= 1 }
        for (slot, relationship) in entityPlan.relationships.enumerated() {
            guard let source = relationship.source else { continue }
            if depth > Self.maximumDepth {
                fail("relationships nest deeper than \(Self.maximumDepth) levels", entity: entityPlan.name, attribute: nil)
                return
            }
            var related: [Int] = []
            if relationship.isSelfAggregate {
                let target = plan.entities[relationship.target]
                guard node.kind == .object, target.sourceKeys.contains(where: { node[$0] != nil }) else { continue }
                if let child = map(node, entity: relationship.target, collectionIndex: nil) { related = [child] }
            } else {
                let found: Resolved = if let key = relationship.singleKey {
                    node.kind == .object ? (node[key].map { .node($0) } ?? .missing) : .missing
                } else {
                    KeyPathEvaluator.evaluate(source, in: scope)
                }
                path.append(.key(source.text))
                defer { path.removeLast() }
                switch found {
                case .missing:
                    continue
                case .node(let child) where child.isNull:
                    break
                case .node(let child) where child.kind == .array:
                    related = mapElements(child.elements, entity: relationship.target)
                case .node(let child):
                    if let mapped = map(child, entity: relationship.target, collectionIndex: nil) { related = [mapped] }
                case .nodes(let children):
                    related = mapElements(children, entity: relationship.target)
                case .value(let value):
                    if !value.isNull { continue }
                }
                if !relationship.isToMany, related.count > 1 {
                    fail("to-one relationship '\(relationship.name)' found \(related.count) representations", entity: entityPlan.name, attribute: nil)
                    related = [related[0]]
                }
            }
            assign(related, to: record, slot: slot, policy: relationship.assignment)
        }
    }

    private func assign(_ related: [Int], to record: Int, slot: Int, policy: AssignmentPolicy) {
        switch policy {
        case .set, .replace:
            records[record].relations[slot] = related
        case .union:
            var merged = records[record].relations[slot] ?? []
            for index in related where !merged.contains(index) { merged.append(index) }
            records[record].relations[slot] = merged
        }
    }

    /// Resolves `connect` relationships against every record of the result, in any order.
    func connect() {
        /// An index of one attribute slot of one entity: connection key → records.
        struct SlotIndexKey: Hashable {
            var entity: Int
            var slot: Int
        }
        var indexes: [SlotIndexKey: [Value: [Int]]] = [:]
        func lookup(entities: [Int], attribute: String, key: Value) -> [Int] {
            var found: [Int] = []
            for entity in entities {
                guard let slot = plan.entities[entity].attributeSlots[attribute] else { continue }
                let indexKey = SlotIndexKey(entity: entity, slot: slot)
                if indexes[indexKey] == nil {
                    var index: [Value: [Int]] = [:]
                    for (position, record) in records.enumerated() where record.entity == entity {
                        guard let value = record.values[slot], !value.isNull else { continue }
                        for item in Self.connectionKeys(value) { index[item, default: []].append(position) }
                    }
                    indexes[indexKey] = index
                }
                found += indexes[indexKey]?[key] ?? []
            }
            return found
        }
        for position in records.indices {
            let entityPlan = plan.entities[records[position].entity]
            for (slot, relationship) in entityPlan.relationships.enumerated() where !relationship.connections.isEmpty {
                var matches: Set<Int>?
                for connection in relationship.connections {
                    guard let local = records[position].values[connection.localSlot], !local.isNull else {
                        matches = []
                        break
                    }
                    var found = Set<Int>()
                    for key in Self.connectionKeys(local) {
                        found.formUnion(lookup(entities: relationship.connectionTargets, attribute: connection.targetAttribute, key: key))
                    }
                    matches = matches.map { $0.intersection(found) } ?? found
                }
                let ordered = (matches ?? []).sorted()
                records[position].relations[slot] = relationship.isToMany ? ordered : Array(ordered.prefix(1))
            }
        }
    }

    /// Comparable forms of a connection value: numbers and numeric strings compare as integers;
    /// an array stands for any of its items.
    static func connectionKeys(_ value: Value) -> [Value] {
        switch value {
        case .array(let items): return items.flatMap(connectionKeys)
        case .string(let string): return [Int64(string).map(Value.integer) ?? value]
        case .number(let number): return [Int64(exactly: number).map(Value.integer) ?? value]
        case .decimal(let decimal): return [Int64(decimal.description).map(Value.integer) ?? value]
        default: return [value]
        }
    }

    // MARK: Errors

    /// A value's kind and a short rendering, for "expected an object" errors.
    static func describe(_ node: JSONNode) -> String {
        switch node.kind {
        case .array: "an array of \(node.count) element\(node.count == 1 ? "" : "s")"
        case .string: "string " + ValueText.short(Value(json: node))
        case .number: "number " + ValueText.short(Value(json: node))
        case .bool: "boolean " + ValueText.short(Value(json: node))
        case .null, .object: ValueText.short(Value(json: node))
        }
    }

    private func fail(_ message: String, entity: String, attribute: AttributePlan?) {
        var position = renderPath()
        if let attribute { position += (position.isEmpty ? "" : ".") + attribute.source.text }
        errors.append(MappingError(message: message, path: position, entity: entity, attribute: attribute?.name))
    }

    func renderPath() -> String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
