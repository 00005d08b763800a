import FoundationEssentials
import RestMapJSON
import RestMapPluginKit
import RestMapPlugins
import RestMapSchema

/// A schema compiled for mapping: key paths parsed, transformers configured, entities and
/// relationships resolved to indices. Built once, immutable, shared by every mapping task.
final class MappingPlan: Sendable {
    let schema: Schema
    let entities: [EntityPlan]
    let entityIndex: [String: Int]
    let coercer: Coercer
    let plugins: PluginRegistry
    /// The path of `baseURL` (`/api/v1`), stripped from request paths before matching.
    let basePath: String

    init(schema: Schema, plugins: PluginRegistry) throws(SchemaCompilationError) {
        self.schema = schema
        self.plugins = plugins
        let index = Dictionary(schema.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.entityIndex = index
        let dateParser = try plugins.transformer(named: "dates.parse").map { definition throws(SchemaCompilationError) in
            do { return try definition.make([:]) } catch {
                throw SchemaCompilationError(message: "cannot configure dates.parse: \(error)", location: nil)
            }
        }
        self.coercer = Coercer(dateParser: dateParser)
        var entities: [EntityPlan] = []
        for (position, entity) in schema.entities.enumerated() {
            entities.append(try EntityPlan(entity, index: position, entityIndex: index, schema: schema, plugins: plugins))
        }
        self.entities = entities
        // A loaded schema is validated, but its model is mutable: check what the mapping loop
        // looks up without a fallback, so a hand-edited descriptor is an error here, not a trap there.
        for descriptor in schema.responses {
            guard let entity = index[descriptor.entity.value] else {
                throw SchemaCompilationError(message: "undefined entity '\(descriptor.entity.value)'", location: descriptor.entity.location)
            }
            _ = try entities[entity].slots(of: descriptor.keyedBy)
        }
        self.basePath = schema.baseURL.flatMap { URL(string: $0)?.path }.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
    }
}

/// A problem found while compiling a valid schema against the loaded plugins.
public struct SchemaCompilationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation?
    public var description: String { location.map { "\($0): error: \(message)" } ?? message }
}

/// An entity's name and member names as encoded JSON strings (quotes included).
struct EncodedNames: Sendable {
    let entity: [UInt8]
    let attributes: EncodedNameList
    let relationships: EncodedNameList
}

/// Encoded names stored back to back in one array, so that writing one borrows the shared bytes
/// instead of retaining an array per name.
struct EncodedNameList: Sendable {
    /// The encoded names, concatenated.
    let text: [UInt8]
    /// Where each name ends in `text` (the next one starts there).
    let ends: [Int]

    init(_ names: [String]) {
        var text: [UInt8] = []
        var ends: [Int] = []
        for name in names {
            text += JSONWriter.encoded(name)
            ends.append(text.count)
        }
        self.text = text
        self.ends = ends
    }

    /// The encoded name at `index` in `text` (as `withUnsafeBufferPointer` gives it).
    @inline(__always)
    func name(at index: Int, in text: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: text[(index == 0 ? 0 : ends[index - 1])..<ends[index]])
    }
}

/// An entity compiled for mapping (a class: the mapping loop reads it without copying).
final class EntityPlan: Sendable {
    let name: String
    let index: Int
    let attributes: [AttributePlan]
    let attributeSlots: [String: Int]
    let relationships: [RelationshipPlan]
    let relationshipSlots: [String: Int]
    /// Attribute slots identifying a record.
    let identification: [Int]
    /// Attribute slots marked `required` (usually none, so the check costs nothing).
    let requiredSlots: [Int]
    let dynamic: DynamicPlan?
    /// First keys of the source key paths: an `@self` aggregate applies when one is present.
    let sourceKeys: [String]
    let routes: [EntityRoute]
    /// Whether an attribute reads the representation itself (`@self`): then a scalar is a representation.
    let readsSelf: Bool
    let assignsDefaultsForMissingAttributes: Bool
    let assignsNilForMissingRelationships: Bool
    /// The names as `RecordWriter` writes them, encoded once.
    let encodedNames: EncodedNames
    /// The distinct keys of the attributes that read one key, found in one pass over a representation.
    let memberKeys: JSONKeySet
    /// Per attribute slot, its key's index in `memberKeys`; -1 when it does not read one key.
    let memberKeyIndices: [Int]
    /// A new record's relationships, none assigned yet: one array every record starts from.
    let unassignedRelations: [[Int]?]
    /// Whether a representation maps to a record that depends on nothing but its own text: the
    /// entity is identified, is not dynamic, has no relationships, and every attribute reads one
    /// key of it with no transformer. Mapping the same text again then merges the same values
    /// into the same record, changing nothing (`MappingSession.map` skips it).
    let dependsOnTextAlone: Bool

    init(_ entity: Entity, index: Int, entityIndex: [String: Int], schema: Schema, plugins: PluginRegistry) throws(SchemaCompilationError) {
        name = entity.name
        self.index = index
        var attributes: [AttributePlan] = []
        for attribute in entity.attributes { attributes.append(try AttributePlan(attribute, plugins: plugins)) }
        self.attributes = attributes
        let attributeSlots = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.attributeSlots = attributeSlots
        var relationships: [RelationshipPlan] = []
        for relationship in entity.relationships {
            guard let target = entityIndex[relationship.entity.value] else {
                throw SchemaCompilationError(message: "undefined entity '\(relationship.entity.value)'", location: relationship.entity.location)
            }
            var keyedBy: [Int] = []
            for name in relationship.keyedBy {
                guard let slot = schema.entities[target].attributes.firstIndex(where: { $0.name == name.value }) else {
                    throw SchemaCompilationError(message: "'\(name.value)' is not an attribute of '\(relationship.entity.value)'", location: name.location)
                }
                keyedBy.append(slot)
            }
            relationships.append(RelationshipPlan(relationship, target: target, keyedBy: keyedBy, localSlots: attributeSlots,
                                                  schema: schema, entityIndex: entityIndex))
        }
        self.relationships = relationships
        relationshipSlots = Dictionary(relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        identification = entity.identifiedBy.compactMap { attributeSlots[$0.value] }
        requiredSlots = attributes.indices.filter { attributes[$0].isRequired }
        dynamic = try entity.dynamic.map { dynamic throws(SchemaCompilationError) in try DynamicPlan(dynamic, entityIndex: entityIndex) }
        sourceKeys = entity.attributes.compactMap { attribute in
            if case .key(let key, _)? = attribute.source.segments.first { return key }
            return nil
        }
        routes = entity.routes
        readsSelf = attributes.contains { $0.source.isSelf }
        assignsDefaultsForMissingAttributes = entity.assignsDefaultsForMissingAttributes
        assignsNilForMissingRelationships = entity.assignsNilForMissingRelationships
        var keys: [String] = []
        var keyIndices: [String: Int] = [:]
        memberKeyIndices = attributes.map { attribute in
            guard let key = attribute.singleKey else { return -1 }
            if let known = keyIndices[key] { return known }
            keyIndices[key] = keys.count
            keys.append(key)
            return keys.count - 1
        }
        memberKeys = JSONKeySet(keys)
        unassignedRelations = Array(repeating: nil, count: relationships.count)
        dependsOnTextAlone = !identification.isEmpty && dynamic == nil && relationships.isEmpty
            && attributes.allSatisfy { $0.singleKey != nil && $0.transforms.isEmpty }
        encodedNames = EncodedNames(entity: JSONWriter.encoded(name), attributes: EncodedNameList(attributes.map(\.name)),
                                    relationships: EncodedNameList(relationships.map(\.name)))
    }

    /// The attribute slots a `keyedBy` names, one per level.
    func slots(of keyedBy: [Located<String>]) throws(SchemaCompilationError) -> [Int] {
        var slots: [Int] = []
        for name in keyedBy {
            guard let slot = attributeSlots[name.value] else {
                throw SchemaCompilationError(message: "'\(name.value)' is not an attribute of '\(self.name)'", location: name.location)
            }
            slots.append(slot)
        }
        return slots
    }
}

/// An attribute compiled for mapping.
final class AttributePlan: Sendable {
    let name: String
    let source: MappingKeyPath
    /// The key of a one-key path: the common case, looked up without the general evaluator.
    let singleKey: String?
    let type: AttributeType
    let transforms: [(name: String, transformer: any ValueTransformer)]
    let defaultValue: Value?
    let isRequired: Bool
    let location: SourceLocation

    init(_ attribute: Attribute, plugins: PluginRegistry) throws(SchemaCompilationError) {
        name = attribute.name
        source = attribute.source
        singleKey = attribute.source.singleKey
        type = attribute.type
        var transforms: [(String, any ValueTransformer)] = []
        for step in attribute.transforms {
            guard let definition = plugins.transformer(named: step.name) else {
                let hint = step.pluginName.map { " (is plugin '\($0)' loaded?)" } ?? ""
                throw SchemaCompilationError(message: "unknown transformer '\(step.name)'\(hint)", location: step.location)
            }
            do {
                transforms.append((step.name, try definition.make(step.arguments.map(SchemaValues.arguments) ?? [:])))
            } catch {
                throw SchemaCompilationError(message: "cannot configure '\(step.name)': \(error)", location: step.location)
            }
        }
        self.transforms = transforms
        defaultValue = attribute.defaultValue.map(SchemaValues.value)
        isRequired = attribute.isRequired
        location = attribute.location
    }
}

/// A relationship compiled for mapping.
final class RelationshipPlan: Sendable {
    let name: String
    let source: MappingKeyPath?
    /// The key of a one-key source path, read without the general evaluator.
    let singleKey: String?
    let isSelfAggregate: Bool
    let target: Int
    let isToMany: Bool
    let assignment: AssignmentPolicy
    /// (local attribute slot, target attribute name) pairs; resolved against the target's plan.
    let connections: [(localSlot: Int, targetAttribute: String)]
    /// The entities a connection searches: the target, and a dynamic target's case entities.
    let connectionTargets: [Int]
    let route: RouteSpecification?
    /// The source's keys when it is a path of plain object keys (walked level by level for `@parent`).
    let plainKeys: [String]?
    /// The target's attribute slots the keys of a keyed value become, one per level.
    let keyedBy: [Int]

    init(_ relationship: Relationship, target: Int, keyedBy: [Int], localSlots: [String: Int], schema: Schema, entityIndex: [String: Int]) {
        name = relationship.name
        source = relationship.source
        singleKey = relationship.source?.singleKey
        isSelfAggregate = relationship.source?.isSelf ?? false
        self.target = target
        isToMany = relationship.isToMany
        assignment = relationship.assignment
        connections = relationship.connections.compactMap { pair in
            localSlots[pair.local.value].map { ($0, pair.target.value) }
        }
        let cases = schema.entities[target].dynamic?.matchers.compactMap { entityIndex[$0.entity.value] } ?? []
        connectionTargets = [target] + Set(cases).sorted()
        route = relationship.route
        self.keyedBy = keyedBy
        plainKeys = relationship.source.flatMap { source in
            var keys: [String] = []
            for segment in source.segments {
                guard case .key(let key, nil) = segment else { return nil }
                keys.append(key)
            }
            return keys
        }
    }
}

/// A dynamic entity compiled for mapping.
struct DynamicPlan: Sendable {
    enum Fallback: Sendable { case skip, error, entity(Int) }
    let matchers: [(conditions: [DynamicCondition], entity: Int)]
    let otherwise: Fallback
    /// The common shape — every matcher one `equals` on the same key path (the `by`/`cases`
    /// form) — as one table: the path is read once per record and looked up, first match wins.
    let table: (keyPath: MappingKeyPath, entities: [String?: Int])?

    init(_ dynamic: DynamicEntity, entityIndex: [String: Int]) throws(SchemaCompilationError) {
        var matchers: [(conditions: [DynamicCondition], entity: Int)] = []
        for matcher in dynamic.matchers {
            guard let index = entityIndex[matcher.entity.value] else {
                throw SchemaCompilationError(message: "undefined entity '\(matcher.entity.value)'", location: matcher.entity.location)
            }
            matchers.append((matcher.conditions, index))
        }
        self.matchers = matchers
        var table: (keyPath: MappingKeyPath, entities: [String?: Int])?
        if let first = matchers.first?.conditions.first, matchers.allSatisfy({ $0.conditions.count == 1 }) {
            var entities: [String?: Int] = [:]
            for (conditions, entity) in matchers {
                guard conditions[0].keyPath == first.keyPath, case .equals(let allowed) = conditions[0].test else {
                    entities = [:]
                    break
                }
                for value in allowed where entities[value] == nil { entities[value] = entity }
            }
            if !entities.isEmpty { table = (first.keyPath, entities) }
        }
        self.table = table
        switch dynamic.otherwise {
        case .skip: otherwise = .skip
        case .error: otherwise = .error
        case .entity(let name):
            guard let index = entityIndex[name.value] else {
                throw SchemaCompilationError(message: "undefined entity '\(name.value)'", location: name.location)
            }
            otherwise = .entity(index)
        }
    }

    /// The entity of the first matcher whose conditions all hold, with `lookup` reading a key path.
    func pick(_ lookup: (MappingKeyPath) -> Resolved) -> Int? {
        if let table {
            return Self.comparableText(of: lookup(table.keyPath)).flatMap { table.entities[$0] }
        }
        // Each key path is read once per record, however many conditions test it.
        var read: [MappingKeyPath: Resolved] = [:]
        return matchers.first { matcher in
            matcher.conditions.allSatisfy { condition in
                let found = read[condition.keyPath] ?? lookup(condition.keyPath)
                read[condition.keyPath] = found
                return Self.holds(condition.test, for: found)
            }
        }?.entity
    }

    /// What an `equals` compares: `.some(nil)` for null, the text of a scalar; `nil` (never equal)
    /// for nothing found or a container.
    static func comparableText(of found: Resolved) -> String?? {
        if case .node(let node) = found {
            switch node.kind {
            case .object, .array: return nil
            case .null: return .some(nil)
            default: break
            }
        }
        guard let value = found.value else { return nil }
        if value.isNull { return .some(nil) }
        return text(of: value).map { .some($0) }
    }

    static func holds(_ test: DynamicCondition.Test, for found: Resolved) -> Bool {
        // A container in the body is never equal to a value and is typed by its kind: no need to
        // materialize it (it may be large).
        if case .node(let node) = found, node.kind == .object || node.kind == .array {
            switch test {
            case .present(let present): return present
            case .equals: return false
            case .type(let type): return type == (node.kind == .object ? .object : .array)
            }
        }
        let value = found.value
        switch test {
        case .present(let present):
            return (value.map { !$0.isNull } ?? false) == present
        case .equals(let allowed):
            return comparableText(of: found).map { allowed.contains($0) } ?? false
        case .type(let type):
            guard let value else { return false }
            return switch (type, value) {
            case (.string, .string), (.boolean, .bool), (.object, .object), (.array, .array), (.null, .null): true
            case (.number, .integer), (.number, .number), (.number, .decimal), (.integer, .integer): true
            case (.integer, .decimal(let decimal)): !decimal.description.contains(".")
            case (.integer, .number(let number)): number == number.rounded(.towardZero)
            default: false
            }
        }
    }

    /// A scalar's text as a condition compares it (`1` and `"1"` are equal; containers never are).
    static func text(of value: Value) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .bool(let bool): bool ? "true" : "false"
        case .number, .decimal: ValueText.short(value)
        default: nil
        }
    }
}

extension Value {
    /// A schema node as a value, as defaults and transformer arguments read it (the YAML 1.2 core
    /// schema: a plain number is an exact integer or decimal; a quoted scalar is always a string).
    public init(schemaNode node: SchemaNode) {
        switch node.content {
        case .sequence(let items): self = .array(items.map(Value.init(schemaNode:)))
        case .mapping(let pairs): self = .object(pairs.map { Value.Member(key: $0.key.scalarText ?? "", value: Value(schemaNode: $0.value)) })
        case .scalar(let text, let quoted):
            if quoted { self = .string(text) } else if node.isNull { self = .null } else if let bool = node.boolValue {
                self = .bool(bool)
            } else if let integer = Int64(text) {
                self = .integer(integer)
            } else if let number = NumberText(text), number.text.count == text.count,
                      let value = (try? number.decimal().get()).map(Value.decimal) ?? (try? number.double().get()).map(Value.number) {
                // A whole decimal number only (`12.5`, `1e3`); `0x10` or `1_000` is text.
                self = value
            } else {
                self = .string(text)
            }
        }
    }
}

/// Schema nodes (defaults, transformer arguments) as values.
enum SchemaValues {
    static func value(_ node: SchemaNode) -> Value {
        Value(schemaNode: node)
    }

    static func arguments(_ node: SchemaNode) -> [String: Value] {
        var arguments: [String: Value] = [:]
        for pair in node.mapping ?? [] { arguments[pair.key.scalarText ?? ""] = value(pair.value) }
        return arguments
    }
}
