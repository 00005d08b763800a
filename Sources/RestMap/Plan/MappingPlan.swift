import Foundation
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
            if let keyedBy = descriptor.keyedBy, entities[entity].attributeSlots[keyedBy.value] == nil {
                throw SchemaCompilationError(message: "'\(keyedBy.value)' is not an attribute of '\(descriptor.entity.value)'",
                                             location: keyedBy.location)
            }
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
            relationships.append(RelationshipPlan(relationship, target: target, localSlots: attributeSlots,
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
    }
}

/// An attribute compiled for mapping.
final class AttributePlan: Sendable {
    let name: String
    let source: KeyPath
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
    let source: KeyPath?
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

    init(_ relationship: Relationship, target: Int, localSlots: [String: Int], schema: Schema, entityIndex: [String: Int]) {
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
        let cases = schema.entities[target].dynamic?.cases.compactMap { entityIndex[$0.entity.value] } ?? []
        connectionTargets = [target] + Set(cases).sorted()
        route = relationship.route
    }
}

/// A dynamic entity compiled for mapping.
struct DynamicPlan: Sendable {
    enum Fallback: Sendable { case skip, error, entity(Int) }
    let by: KeyPath
    let cases: [String: Int]
    let otherwise: Fallback

    init(_ dynamic: DynamicEntity, entityIndex: [String: Int]) throws(SchemaCompilationError) {
        by = dynamic.by
        var cases: [String: Int] = [:]
        for item in dynamic.cases {
            guard let index = entityIndex[item.entity.value] else {
                throw SchemaCompilationError(message: "undefined entity '\(item.entity.value)'", location: item.entity.location)
            }
            cases[item.value] = index
        }
        self.cases = cases
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
}

/// Schema nodes (defaults, transformer arguments) as values.
enum SchemaValues {
    static func value(_ node: SchemaNode) -> Value {
        switch node.content {
        case .sequence(let items): return .array(items.map(value))
        case .mapping(let pairs): return .object(pairs.map { Value.Member(key: $0.key.scalarText ?? "", value: value($0.value)) })
        case .scalar(let text, let quoted):
            if quoted { return .string(text) }
            if node.isNull { return .null }
            if let bool = node.boolValue { return .bool(bool) }
            if let integer = Int64(text) { return .integer(integer) }
            if let number = Double(text), text.contains(where: { $0.isNumber }) {
                return Decimal(string: text, locale: posix).map(Value.decimal) ?? .number(number)
            }
            return .string(text)
        }
    }

    static func arguments(_ node: SchemaNode) -> [String: Value] {
        var arguments: [String: Value] = [:]
        for pair in node.mapping ?? [] { arguments[pair.key.scalarText ?? ""] = value(pair.value) }
        return arguments
    }
}
