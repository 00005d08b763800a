import Foundation
import RestMap
import RestMapSchema

/// The schema's `store:` section, read into rules (language section 10).
package struct StoreRules: Sendable {
    /// After a successful GET of `path`, the records of `entity` in the `where` scope that the
    /// response did not contain are deleted.
    package struct OrphanRule: Sendable {
        package var path: PathPattern
        package var entity: String
        package var scope: [(attribute: String, value: ScopeValue)]
    }

    /// A `where` value: a literal, or `:name`, a parameter of the matched path.
    package enum ScopeValue: Sendable {
        case literal(Value)
        case parameter(String)
    }

    package var orphans: [OrphanRule] = []
    /// Full-text indexed attributes per entity.
    package var search: [String: [String]] = [:]
    /// Per entity: attribute values that mark a record as deleted.
    package var tombstone: [String: [(attribute: String, value: Value)]] = [:]
    /// Per entity: the attribute that orders versions.
    package var modifiedBy: [String: String] = [:]

    /// Reads the rules of a validated schema; values are coerced to their attributes' types.
    package init(schema: Schema, mapper: Mapper) throws(StoreError) {
        guard let store = schema.store else { return }
        for node in store["orphans"]?.sequence ?? [] {
            guard let entity = node["entity"]?.stringValue, let pathText = node["path"]?.stringValue else { continue }
            let pattern: PathPattern
            do { pattern = try PathPattern.parse(pathText) } catch {
                throw StoreError("\(node.location): store.orphans path '\(pathText)': \(error.message)")
            }
            var scope: [(String, ScopeValue)] = []
            for pair in node["where"]?.mapping ?? [] {
                guard let attribute = pair.key.scalarText else { continue }
                let text = pair.value.scalarText ?? ""
                if text.hasPrefix(":") {
                    let name = String(text.dropFirst())
                    guard pattern.parameterNames.contains(name) else {
                        throw StoreError("\(pair.value.location): store.orphans where '\(attribute)' names ':\(name)', "
                            + "which is not a parameter of '\(pathText)'")
                    }
                    scope.append((attribute, .parameter(name)))
                } else {
                    scope.append((attribute, .literal(try Self.typed(SchemaScalar.value(pair.value), attribute, entity, mapper, pair.value))))
                }
            }
            orphans.append(OrphanRule(path: pattern, entity: entity, scope: scope))
        }
        for pair in store["search"]?.mapping ?? [] {
            guard let entity = pair.key.scalarText else { continue }
            search[entity] = (pair.value.sequence ?? []).compactMap(\.stringValue)
        }
        for pair in store["tombstone"]?.mapping ?? [] {
            guard let entity = pair.key.scalarText else { continue }
            var values: [(String, Value)] = []
            for item in pair.value.mapping ?? [] {
                guard let attribute = item.key.scalarText else { continue }
                values.append((attribute, try Self.typed(SchemaScalar.value(item.value), attribute, entity, mapper, item.value)))
            }
            tombstone[entity] = values
        }
        for pair in store["modifiedBy"]?.mapping ?? [] {
            guard let entity = pair.key.scalarText, let attribute = pair.value.stringValue else { continue }
            modifiedBy[entity] = attribute
        }
    }

    private static func typed(_ value: Value, _ attribute: String, _ entity: String, _ mapper: Mapper,
                              _ node: SchemaNode) throws(StoreError) -> Value {
        do { return try mapper.coerce(value, toAttribute: attribute, of: entity) } catch {
            throw StoreError("\(node.location): \(error.message)")
        }
    }
}

/// Scalars of the schema as values.
enum SchemaScalar {
    static func value(_ node: SchemaNode) -> Value {
        if node.isNull { return .null }
        if let bool = node.boolValue { return .bool(bool) }
        if case .scalar(let text, let quoted) = node.content, !quoted, let integer = Int64(text) { return .integer(integer) }
        if let number = node.numberValue, node.stringValue == nil { return .number(number) }
        return .string(node.scalarText ?? "")
    }
}

/// A store problem: a schema the store cannot hold, a destructive change, a bad filter.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
