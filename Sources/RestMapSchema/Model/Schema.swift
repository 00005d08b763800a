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
    /// How an attribute or relationship without `from` turns its name into the key it reads
    /// (RestKit's source-to-destination key transformation); `nil` reads the name as it is.
    public var sourceKeys: KeyStyle?
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
    /// The resources `restmap sync` keeps in step, in file order.
    public var sync: [SyncResource] = []
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
    /// RestKit's `assignsDefaultValueForMissingAttributes`: an attribute whose key is absent gets
    /// its `default`, or null, instead of staying absent (a merged record is cleared).
    public var assignsDefaultsForMissingAttributes = false
    /// RestKit's `assignsNilForMissingRelationships`: a relationship whose key is absent is
    /// cleared (null, or an empty list) instead of staying as it was.
    public var assignsNilForMissingRelationships = false

    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }
}

/// How one attribute is read.
public struct Attribute: Sendable {
    public var name: String
    public var location: SourceLocation
    public var source: MappingKeyPath
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
    public var source: MappingKeyPath?
    public var entity: Located<String>
    public var isToMany: Bool
    public var assignment: AssignmentPolicy
    /// Foreign-key pairs: local attribute → target attribute.
    public var connections: [(local: Located<String>, target: Located<String>)]
    public var route: RouteSpecification?
    /// The attributes the keys of a keyed object become, one per level; empty when the value
    /// is not keyed.
    public var keyedBy: [Located<String>] = []
}

/// What a dynamic entity does with a representation no case matches.
public enum DynamicFallback: Sendable, Hashable {
    case skip, error
    case entity(Located<String>)
}

/// Picks the entity of each representation: the first matcher whose conditions all hold.
public struct DynamicEntity: Sendable {
    /// Matchers in order; `by`/`cases` are read as one matcher per case.
    public var matchers: [DynamicMatcher]
    public var otherwise: DynamicFallback

    /// Every entity a matcher picks, in order, with the case value of a `by`/`cases` matcher
    /// (empty for a `match:` item).
    public var cases: [(value: String, entity: Located<String>)] {
        matchers.map { ($0.caseValue ?? "", $0.entity) }
    }
}

/// One matcher of a dynamic entity: when every condition holds, the representation is `entity`.
public struct DynamicMatcher: Sendable {
    public var conditions: [DynamicCondition]
    public var entity: Located<String>
    public var location: SourceLocation
    /// The value of a matcher read from `by`/`cases` (`Boy` in `cases: { Boy: Boy }`); `nil` for a `match:` item.
    public var caseValue: String?

    /// How messages name the matcher: "dynamic matcher", or "dynamic case 'Boy'" for `by`/`cases`.
    public var label: String {
        caseValue.map { "dynamic case '\($0)'" } ?? "dynamic matcher"
    }
}

/// A condition on the value at one key path of a representation.
public struct DynamicCondition: Sendable, Hashable {
    /// What the value must be.
    public enum Test: Sendable, Hashable {
        /// Equal to one of these (compared as text: `"1"` equals `1`; `nil` is JSON null).
        case equals([String?])
        /// `true`: a value that is not null; `false`: absent or null.
        case present(Bool)
        /// Of this JSON type.
        case type(JSONType)
    }

    /// JSON value types a condition can test (`integer` is a number without a fraction).
    public enum JSONType: String, Sendable, Hashable, CaseIterable {
        case string, number, integer, boolean, object, array, null
    }

    public var keyPath: MappingKeyPath
    public var test: Test
    public var location: SourceLocation

    public init(keyPath: MappingKeyPath, test: Test, location: SourceLocation) {
        self.keyPath = keyPath
        self.test = test
        self.location = location
    }
}

/// How an attribute's name becomes the source key it reads when it has no `from`.
public enum KeyStyle: String, Sendable, Hashable, CaseIterable {
    /// `firstName` reads `first_name`.
    case snakeCase = "snake_case"
    /// `firstName` reads `first-name`.
    case kebabCase = "kebab-case"
    /// `first_name` reads `firstName`.
    case camelCase
    /// `firstName` reads `FirstName`.
    case pascalCase = "PascalCase"

    /// The source key for an attribute name.
    public func key(for name: String) -> String {
        let words = KeyStyle.words(of: name)
        guard !words.isEmpty else { return name }
        switch self {
        case .snakeCase: return words.map { $0.lowercased() }.joined(separator: "_")
        case .kebabCase: return words.map { $0.lowercased() }.joined(separator: "-")
        case .camelCase: return words[0].lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        case .pascalCase: return words.map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        }
    }

    /// The words of a name: split at `_`, `-`, spaces and lower-to-upper case changes; an
    /// upper-case run stays one word (`avatarURL` is `avatar`, `URL`).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            if character == "_" || character == "-" || character == " " {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, character.isUppercase {
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
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
    public var keyPath: MappingKeyPath?
    public var status: StatusSpecification
    public var entity: Located<String>
    /// The attributes the keys of a keyed object become, one per level; empty when not keyed.
    public var keyedBy: [Located<String>]
}

/// How error responses map to messages.
public struct ErrorDescriptor: Sendable {
    public var location: SourceLocation
    public var status: StatusSpecification
    public var keyPath: MappingKeyPath?
    public var message: MappingKeyPath
    public var code: MappingKeyPath?
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
    /// Records serialized together are written as an object keyed by these attributes, one
    /// level per attribute (the inverse of a keyed response); empty when not keyed.
    public var keyedBy: [Located<String>] = []
}
