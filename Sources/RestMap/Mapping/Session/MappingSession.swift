import FoundationEssentials
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
///
/// The state below is read and written by one thread at a time and never through two overlapping
/// accesses, so it is exempt from Swift's run-time exclusivity checks (`@exclusivity(unchecked)`):
/// they were a check on entry and exit of every access, several per record.
final class MappingSession {
    let plan: MappingPlan
    @exclusivity(unchecked) var scope: EvaluationScope
    @exclusivity(unchecked) var records: [RecordData] = []
    @exclusivity(unchecked) var identities: [IdentityIndex]
    @exclusivity(unchecked) var errors: [MappingError] = []
    @exclusivity(unchecked) var path: [PathStep] = []
    /// Documents made from computed values mapped as representations, kept alive with the session.
    @exclusivity(unchecked) var computedDocuments: [Value: JSONDocument] = [:]
    /// Per entity, the last representation mapped and its record, for entities whose records
    /// depend on their text alone (`EntityPlan.dependsOnTextAlone`): the same owner on every
    /// repository of a page is mapped once.
    @exclusivity(unchecked) private var lastRepresentations: [(node: JSONNode, record: Int)?]
    /// Nested relationship depth; bounded so hostile documents cannot exhaust the stack.
    @exclusivity(unchecked) var depth = 0
    static let maximumDepth = 100
    /// A root for a session done with its document (`scope.root` keeps a document alive).
    static let detachedRoot = JSONDocument.null.root

    init(plan: MappingPlan, root: JSONNode, metadata: Metadata) {
        self.plan = plan
        self.scope = EvaluationScope(representations: [], root: root, metadata: metadata, collectionIndex: nil, rootKeyPath: "")
        self.identities = Array(repeating: IdentityIndex(), count: plan.entities.count)
        self.lastRepresentations = Array(repeating: nil, count: plan.entities.count)
    }

    /// Forgets every record's identification (and so the representations remembered for them).
    func forgetIdentities() {
        for slot in identities.indices where !identities[slot].isEmpty { identities[slot].removeAll() }
        forgetRepresentations()
    }

    /// Forgets the representations remembered for records (`lastRepresentations`), which also
    /// keep their document alive.
    func forgetRepresentations() {
        for entity in lastRepresentations.indices { lastRepresentations[entity] = nil }
    }

    /// Lets go of the mapped document: the session keeps its records, no node.
    func releaseDocument() {
        scope.root = Self.detachedRoot
        forgetRepresentations()
    }

    // MARK: Representations

    /// Maps the value found at a descriptor's key path: an object, an array of them, or (with
    /// `keyedBy`) an object whose keys are records. Returns the root records in order.
    func mapRoot(_ found: Resolved, entity: Int, keyedBy: [Int]) -> [Int] {
        switch found {
        case .missing, .value(.null):
            return []
        case .value(let value):
            fail("the key path gives a computed value (\(ValueText.short(value))), not an object representation",
                 entity: plan.entities[entity].name, attribute: nil)
            return []
        case .node(let node):
            return mapFound(node, entity: entity, keyedBy: keyedBy)
        case .nodes(let nodes):
            var mapped: [Int] = []
            for (index, element) in nodes.enumerated() {
                path.append(.index(index))
                if element.kind == .array {
                    mapped += mapFound(element, entity: entity, keyedBy: keyedBy)
                } else if !keyedBy.isEmpty {
                    mapped += mapKeyed(element, entity: entity, keyedBy: keyedBy)
                } else if let record = map(element, entity: entity, collectionIndex: index) {
                    mapped.append(record)
                }
                path.removeLast()
            }
            return mapped
        }
    }

    /// Maps one node found where representations sit: `null` is nothing, an array a collection,
    /// a keyed object (with `keyedBy`) a collection by key, anything else one representation.
    private func mapFound(_ node: JSONNode, entity: Int, keyedBy: [Int]) -> [Int] {
        switch node.kind {
        case .null:
            return []
        case .array:
            var mapped: [Int] = []
            mapped.reserveCapacity(node.count)
            if records.isEmpty, keyedBy.isEmpty {
                // The body's array: room for its records and identities at once, not by regrowing.
                records.reserveCapacity(node.count)
                identities[entity].reserveCapacity(node.count)
            }
            for (index, element) in node.elements.enumerated() {
                path.append(.index(index))
                if keyedBy.isEmpty {
                    if let record = map(element, entity: entity, collectionIndex: index) { mapped.append(record) }
                } else {
                    mapped += mapKeyed(element, entity: entity, keyedBy: keyedBy)
                }
                path.removeLast()
            }
            return mapped
        default:
            if !keyedBy.isEmpty { return mapKeyed(node, entity: entity, keyedBy: keyedBy) }
            return map(node, entity: entity, collectionIndex: nil).map { [$0] } ?? []
        }
    }

    /// Maps an object whose keys are records (`keyedBy`): each key becomes the attribute of its
    /// level, and the values of the last level are the representations (objects, or scalars read
    /// with `@self`). A keyed object is a collection, like an array: it is no `@parent` level.
    private func mapKeyed(_ container: JSONNode, entity: Int, keyedBy: [Int], keys: [(slot: Int, value: Value)] = []) -> [Int] {
        guard container.kind == .object else {
            if !container.isNull {
                fail("expected an object whose keys are records (keyedBy), found \(Self.describe(container))",
                     entity: plan.entities[entity].name, attribute: nil)
            }
            return []
        }
        var mapped: [Int] = []
        for (index, member) in container.members.enumerated() {
            path.append(.key(member.key))
            let injected = keys + [(keyedBy[keys.count], Value.string(member.key))]
            if injected.count < keyedBy.count {
                mapped += mapKeyed(member.value, entity: entity, keyedBy: keyedBy, keys: injected)
            } else if let record = map(member.value, entity: entity, collectionIndex: index, injected: injected) {
                mapped.append(record)
            }
            path.removeLast()
        }
        return mapped
    }

    /// Maps one representation; `nil` when it was declined (dynamic `skip`), was `null` (no
    /// representation, as RestKit skips `NSNull`), was an empty object `{}` in which nothing is
    /// found standing for a related record (it holds nothing), or failed (an error is recorded: a
    /// value that is neither an object nor a scalar read with `@self` is a failed record naming
    /// where, and so is a representation in which no attribute or relationship finds anything).
    func map(_ node: JSONNode, entity requested: Int, collectionIndex: Int?, injected: [(slot: Int, value: Value)] = []) -> Int? {
        if node.isNull { return nil }
        if node.kind == .array {
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
        if node.kind != .object, !entityPlan.readsSelf {
            fail("expected an object representation, found \(Self.describe(node))", entity: entityPlan.name, attribute: nil)
            return nil
        }
        let remembers = entityPlan.dependsOnTextAlone && injected.isEmpty
        if remembers, let last = lastRepresentations[entity], last.node.hasSameText(as: node) { return last.record }
        let record = mapAttributesAndRelationships(of: node, plan: entityPlan, injected: injected)
        if remembers { lastRepresentations[entity] = record.map { (node, $0) } }
        return record
    }

    /// The rest of `map`: the attributes' values, the record stored (or merged), its relationships.
    private func mapAttributesAndRelationships(of node: JSONNode, plan entityPlan: EntityPlan, injected: [(slot: Int, value: Value)]) -> Int? {

        // The values are written once each into fresh storage (no per-slot uniqueness check), and
        // the plan's attributes and coercer are read once per record, not once per attribute.
        let attributes = entityPlan.attributes
        let coercer = plan.coercer
        let defaultsMissing = entityPlan.assignsDefaultsForMissingAttributes
        var mappable = !injected.isEmpty
        var failure: (message: String, attribute: AttributePlan)?
        // The members the attributes read by one key are found in one pass over the object.
        let memberKeys = entityPlan.memberKeys
        let memberKeyIndices = entityPlan.memberKeyIndices
        var values = withUnsafeTemporaryAllocation(of: Int.self, capacity: memberKeys.count) { positions in
            node.findMembers(memberKeys, into: positions)
            return [Value?](unsafeUninitializedCapacity: attributes.count) { (buffer: inout UnsafeMutableBufferPointer<Value?>, initialized: inout Int) in
                for slot in attributes.indices {
                    let attribute = attributes[slot]
                    let keyIndex = memberKeyIndices[slot]
                    let member = keyIndex < 0 || positions[keyIndex] < 0 ? nil : node.member(atPosition: positions[keyIndex])
                    var value: Value?
                    do throws(CoercionError) {
                        value = try self.value(of: attribute, member: member, coercer: coercer, found: &mappable)
                    } catch {
                        failure = (error.message, attribute)
                        return
                    }
                    if value == nil, defaultsMissing { value = .null }
                    buffer.initializeElement(at: slot, to: value)
                    initialized += 1
                }
            }
        }
        if let failure {
            fail(failure.message, entity: entityPlan.name, attribute: failure.attribute)
            return nil
        }
        for (slot, value) in injected {
            do { values[slot] = try plan.coercer.coerce(value, to: entityPlan.attributes[slot].type) } catch {
                fail(error.message, entity: entityPlan.name, attribute: entityPlan.attributes[slot])
                return nil
            }
        }
        if !mappable, !entityPlan.relationships.contains(where: { finds($0, in: node) }) {
            // An empty object holds nothing: standing for a related record (a to-one value, an
            // element of a to-many), it is no record and no error, as `null` is. At the root a
            // descriptor asked for representations, so there it is still reported.
            if depth > 0, node.kind == .object, node.count == 0 { return nil }
            let keys = node.keys
            fail("no mappable values found for any of the attributes or relationships; "
                 + (keys.isEmpty ? "the representation has no keys" : "the representation's keys are: " + keys.joined(separator: ", ")),
                 entity: entityPlan.name, attribute: nil)
            return nil
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
        if let entity = dynamic.pick({ KeyPathEvaluator.evaluate($0, in: scope) }) { return entity }
        switch dynamic.otherwise {
        case .skip:
            return nil
        case .entity(let entity):
            return entity
        case .error:
            let tested = Set(dynamic.matchers.flatMap { $0.conditions.map(\.keyPath) })
                .sorted { $0.text < $1.text }
                .map { "'\($0.text)' is " + (KeyPathEvaluator.evaluate($0, in: scope).value.map(ValueText.short) ?? "absent") }
            errors.append(MappingError(
                message: "no matcher of dynamic entity '\(plan.entities[requested].name)' holds (\(tested.joined(separator: ", ")))",
                path: renderPath(), entity: plan.entities[requested].name, attribute: nil))
            return nil
        }
    }

    /// An attribute's value: read, defaulted, transformed and coerced. `found` becomes `true`
    /// when the source key path found something (`null` included), as RestKit counts mappable values.
    /// `member` is what an attribute reading one key found (`findMembers`).
    private func value(of attribute: AttributePlan, member: JSONNode?, coercer: Coercer,
                       found mappable: inout Bool) throws(CoercionError) -> Value? {
        // The common case first: one key, found, read as it is.
        if attribute.singleKey != nil, attribute.transforms.isEmpty, let member {
            mappable = true
            return try coercer.coerce(member, to: attribute.type)
        }
        let found: Resolved
        if attribute.singleKey != nil {
            found = member.map { .node($0) } ?? .missing
        } else {
            found = KeyPathEvaluator.evaluate(attribute.source, in: scope)
        }
        if case .missing = found {} else { mappable = true }
        if attribute.transforms.isEmpty, case .node(let valueNode) = found {
            return try coercer.coerce(valueNode, to: attribute.type)
        }
        guard var value = found.value ?? attribute.defaultValue else { return nil }
        for (name, transformer) in attribute.transforms {
            do { value = try transformer.transform(value) } catch {
                throw CoercionError(message: "transformer '\(name)' failed on \(ValueText.short(value)): \(error)")
            }
        }
        return try coercer.coerce(value, to: attribute.type)
    }

    /// Whether a relationship's source finds anything in a representation (a mappable value).
    private func finds(_ relationship: RelationshipPlan, in node: JSONNode) -> Bool {
        guard let source = relationship.source else { return false }
        if relationship.isSelfAggregate {
            // Keyed: the representation's own keys are the records.
            if !relationship.keyedBy.isEmpty { return node.kind == .object && node.count > 0 }
            return node.kind == .object && plan.entities[relationship.target].sourceKeys.contains { node[$0] != nil }
        }
        if let key = relationship.singleKey { return node.kind == .object && node[key] != nil }
        if case .missing = KeyPathEvaluator.evaluate(source, in: scope) { return false }
        return true
    }

    /// Adds a record, or merges it into the record with the same identification; returns its
    /// position (below the record count before the call when it merged).
    func store(_ values: [Value?], entity: EntityPlan) -> Int {
        if let existing = mergeIntoKnown(values, entity: entity) { return existing }
        records.append(RecordData(entity: entity.index, values: values, relations: entity.unassignedRelations))
        return records.count - 1
    }

    /// The position of the record with the identification of `values`, with the values set in
    /// `values` written over its own; `nil` when there is none, and the identification is then
    /// taken for the record appended next (at the current record count).
    @inline(__always)
    func mergeIntoKnown(_ values: [Value?], entity: EntityPlan) -> Int? {
        guard let key = identityKey(values, slots: entity.identification),
              let existing = identities[entity.index].positionOrInsert(key, records.count) else { return nil }
        records[existing].overwrite(with: values)
        return existing
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
            if relationship.isSelfAggregate, !relationship.keyedBy.isEmpty {
                // A keyed `@self` relationship: the representation's own keys are records, one
                // level of keys per `keyedBy` attribute (`{"tabs": 4, "wrap.width": 80}` as two;
                // `{}` as none).
                guard node.kind == .object else {
                    clearIfMissing(record, slot: slot, plan: entityPlan)
                    continue
                }
                related = mapKeyed(node, entity: relationship.target, keyedBy: relationship.keyedBy)
            } else if relationship.isSelfAggregate {
                let target = plan.entities[relationship.target]
                guard node.kind == .object, target.sourceKeys.contains(where: { node[$0] != nil }) else {
                    clearIfMissing(record, slot: slot, plan: entityPlan)
                    continue
                }
                if let child = map(node, entity: relationship.target, collectionIndex: nil) { related = [child] }
            } else if let key = relationship.singleKey {
                // The common case: one key, no level between the parent and the child.
                guard node.kind == .object, let child = node[key] else {
                    clearIfMissing(record, slot: slot, plan: entityPlan)
                    continue
                }
                path.append(.key(key))
                related = mapFound(child, entity: relationship.target, keyedBy: relationship.keyedBy)
                path.removeLast()
            } else if let keys = relationship.plainKeys {
                var found: [FoundRepresentation] = []
                collect(keys[...], from: node, levels: [], position: [], crossedArray: false, into: &found)
                if found.isEmpty {
                    clearIfMissing(record, slot: slot, plan: entityPlan)
                    continue
                }
                for item in found {
                    path += item.position
                    scope.representations += item.levels
                    if item.node.kind == .array || !relationship.keyedBy.isEmpty {
                        related += mapFound(item.node, entity: relationship.target, keyedBy: relationship.keyedBy)
                    } else if let child = map(item.node, entity: relationship.target, collectionIndex: item.collectionIndex) {
                        related.append(child)
                    }
                    scope.representations.removeLast(item.levels.count)
                    path.removeLast(item.position.count)
                }
            } else {
                path.append(.key(source.text))
                defer { path.removeLast() }
                switch KeyPathEvaluator.evaluate(source, in: scope) {
                case .missing:
                    clearIfMissing(record, slot: slot, plan: entityPlan)
                    continue
                case .node(let child):
                    related = mapFound(child, entity: relationship.target, keyedBy: relationship.keyedBy)
                case .nodes(let children):
                    related = mapRoot(.nodes(children), entity: relationship.target, keyedBy: relationship.keyedBy)
                case .value(let value):
                    // A computed object or array (metadata such as `@metadata.user.custom`) is
                    // mapped like one in the body; any other computed value fails as a record.
                    related = mapRoot(computedRepresentations(value), entity: relationship.target, keyedBy: relationship.keyedBy)
                }
            }
            if !relationship.isToMany, related.count > 1 {
                fail("to-one relationship '\(relationship.name)' found \(related.count) representations", entity: entityPlan.name, attribute: nil)
                related = [related[0]]
            }
            assign(related, to: record, slot: slot, policy: relationship.assignment)
        }
    }

    /// A computed object or array as a document of its own, so it maps like a body's nodes.
    private func computedRepresentations(_ value: Value) -> Resolved {
        switch value {
        case .object, .array:
            // Built once per distinct value (`@metadata` is the same for every record).
            if let document = computedDocuments[value] { return .node(document.root) }
            guard let document = try? JSONDocument(string: JSONText.string(from: value)) else { return .value(value) }
            computedDocuments[value] = document
            return .node(document.root)
        default:
            return .value(value)
        }
    }

    /// RestKit's `assignsNilForMissingRelationships`: a relationship whose key is absent is
    /// cleared (null, or an empty list) instead of left as it was.
    private func clearIfMissing(_ record: Int, slot: Int, plan entityPlan: EntityPlan) {
        if entityPlan.assignsNilForMissingRelationships { records[record].relations[slot] = [] }
    }

    /// A representation a relationship's key path reached: the node, the object nodes walked
    /// through on the way (its extra `@parent` levels), its collection index and its position.
    struct FoundRepresentation {
        var node: JSONNode
        var levels: [JSONNode]
        var collectionIndex: Int?
        var position: [PathStep]
    }

    /// Walks plain keys from a representation. Every object passed on the way is one `@parent`
    /// level of what is found, as in RestKit (`people.friends`: a friend's `@parent` is the
    /// `people` object); arrays are not levels: each element object is.
    private func collect(_ keys: ArraySlice<String>, from node: JSONNode, levels: [JSONNode], position: [PathStep],
                         crossedArray: Bool, into found: inout [FoundRepresentation]) {
        guard let key = keys.first, node.kind == .object, let next = node[key] else { return }
        let position = position + [.key(key)]
        let rest = keys.dropFirst()
        if rest.isEmpty {
            if crossedArray, next.kind != .array {
                found.append(FoundRepresentation(node: next, levels: levels, collectionIndex: found.count, position: position))
            } else {
                found.append(FoundRepresentation(node: next, levels: levels, collectionIndex: nil, position: position))
            }
            return
        }
        switch next.kind {
        case .object:
            collect(rest, from: next, levels: levels + [next], position: position, crossedArray: crossedArray, into: &found)
        case .array:
            for (index, element) in next.elements.enumerated() where element.kind == .object {
                collect(rest, from: element, levels: levels + [element], position: position + [.index(index)],
                        crossedArray: true, into: &found)
            }
        default:
            return
        }
    }

    func assign(_ related: [Int], to record: Int, slot: Int, policy: AssignmentPolicy) {
        records[record].assign(related, slot: slot, policy: policy)
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
