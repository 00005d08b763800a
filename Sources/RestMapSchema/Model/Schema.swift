/// A value with the source position it was read from.
public struct Located<Value: Sendable & Hashable>: Sendable, Hashable {
    public var value: Value
    public var location: SourceLocation

    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

/// A loaded, validated schema file: the typed model the interpreter compiles.
public struct Schema: Sendable {
    public var file: String
    public var version: Int
    public var name: String?
    public var baseURL: String?
    public var plugins: [Located<String>]
    public var headers: [String: String]
    /// Entities in file order.
    public var entities: [Entity]
    public var responses: [ResponseDescriptor]
    public var errors: [ErrorDescriptor]
    /// Named routes in file order.
    public var routes: [NamedRoute]
    public var requests: [RequestDescriptor]
    /// The default pagination of collections; a named route may override it.
    public var pagination: Pagination?
    /// How requests authenticate.
    public var auth: Authentication?
    /// Timeouts, retries, limits, caching and trusted origins of the client.
    public var client: ClientSettings
    /// The raw `store:` section (validated structurally).
    public var store: SchemaNode?
    /// The whole document as loaded.
    public var root: SchemaNode

    /// The entity with this name.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }
}

/// A named record shape.
public struct Entity: Sendable {
    public var name: String
    public var location: SourceLocation
    /// Attribute names identifying a record; empty when none could be inferred.
    public var identifiedBy: [Located<String>]
    /// `true` when `identifiedBy` was written, `false` when inferred.
    public var identificationIsExplicit: Bool
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    public var dynamic: DynamicEntity?
    /// Entity routes by method (`nil` key = ANY).
    public var routes: [EntityRoute]

    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }
}

/// How one attribute is read.
public struct Attribute: Sendable {
    public var name: String
    public var location: SourceLocation
    public var source: KeyPath
    public var type: AttributeType
    public var transforms: [TransformStep]
    public var defaultValue: SchemaNode?
    public var isRequired: Bool
}

/// An attribute's value type.
public indirect enum AttributeType: Sendable, Hashable, CustomStringConvertible {
    case string, integer, number, decimal, boolean, date, url, any
    case array(AttributeType)

    init?(name: String) {
        switch name {
        case "string": self = .string
        case "integer": self = .integer
        case "number": self = .number
        case "decimal": self = .decimal
        case "boolean": self = .boolean
        case "date": self = .date
        case "url": self = .url
        case "any": self = .any
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .decimal: "decimal"
        case .boolean: "boolean"
        case .date: "date"
        case .url: "url"
        case .any: "any"
        case .array(let element): "[\(element)]"
        }
    }
}

/// One step of a `transform:` chain.
public struct TransformStep: Sendable, Hashable {
    /// Qualified name: `dates.parse`, or a built-in's bare name.
    public var name: String
    /// The arguments mapping, if given.
    public var arguments: SchemaNode?
    public var location: SourceLocation

    /// The plugin a qualified name belongs to (`dates` for `dates.parse`).
    public var pluginName: String? {
        name.firstIndex(of: ".").map { String(name[..<$0]) }
    }
}

/// How a relationship assigns mapped values.
public enum AssignmentPolicy: String, Sendable, Hashable {
    case set, replace, union
}

/// A relationship to another entity.
public struct Relationship: Sendable {
    public var name: String
    public var location: SourceLocation
    /// Source key path of the nested representation; `nil` for a connection without nesting.
    public var source: KeyPath?
    public var entity: Located<String>
    public var isToMany: Bool
    public var assignment: AssignmentPolicy
    /// Foreign-key pairs: local attribute → target attribute.
    public var connections: [(local: Located<String>, target: Located<String>)]
    public var route: RouteSpecification?
}

/// What a dynamic entity does with a representation no case matches.
public enum DynamicFallback: Sendable, Hashable {
    case skip, error
    case entity(Located<String>)
}

/// Picks the entity of a representation by a value in it.
public struct DynamicEntity: Sendable {
    public var by: KeyPath
    public var cases: [(value: String, entity: Located<String>)]
    public var otherwise: DynamicFallback
}

/// An entity route for one method (`nil` = ANY).
public struct EntityRoute: Sendable, Hashable {
    public var method: String?
    public var pattern: PathPattern
    public var location: SourceLocation
}

/// Which responses map to which entity.
public struct ResponseDescriptor: Sendable {
    public var location: SourceLocation
    /// `nil` = ANY.
    public var method: String?
    /// `nil` = any path.
    public var path: PathPattern?
    /// `nil` = the whole body.
    public var keyPath: KeyPath?
    public var status: StatusSpecification
    public var entity: Located<String>
    public var keyedBy: Located<String>?
}

/// How error responses map to messages.
public struct ErrorDescriptor: Sendable {
    public var location: SourceLocation
    public var status: StatusSpecification
    public var keyPath: KeyPath?
    public var message: KeyPath
    public var code: KeyPath?
}

/// A named route.
public struct NamedRoute: Sendable {
    public var name: String
    public var location: SourceLocation
    public var method: String
    public var pattern: PathPattern
    /// This route's own pagination, overriding the schema's.
    public var pagination: Pagination?
}

/// Body encoding of a request.
public enum RequestFormat: String, Sendable, Hashable {
    case json, form
}

/// How records of an entity serialize into a request body.
public struct RequestDescriptor: Sendable {
    public var location: SourceLocation
    public var entity: Located<String>
    /// `nil` = ANY.
    public var method: String?
    public var rootKeyPath: String?
    /// Body key → attribute name; `nil` = the inverse of the entity's attribute mapping.
    public var attributes: [(bodyKey: String, attribute: Located<String>)]?
    public var format: RequestFormat
}
