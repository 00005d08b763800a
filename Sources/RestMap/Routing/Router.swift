import FoundationEssentials
import RestMapSchema

/// A resolved route: the method and the interpolated path.
public struct ResolvedRoute: Sendable, Hashable, CustomStringConvertible {
    public var method: String
    public var path: String

    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    public var description: String { "\(method) \(path)" }
}

/// Why a route could not be resolved.
public enum RoutingError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownRoute(String, suggestion: String?)
    case noEntityRoute(entity: String, method: String)
    case noRelationshipRoute(entity: String, relationship: String)
    case missingParameter(name: String, pattern: String)

    public var description: String {
        switch self {
        case .unknownRoute(let name, let suggestion):
            "no route named '\(name)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .noEntityRoute(let entity, let method):
            "entity '\(entity)' has no route for \(method) (and no ANY route)"
        case .noRelationshipRoute(let entity, let relationship):
            "relationship '\(relationship)' of '\(entity)' has no route"
        case .missingParameter(let name, let pattern):
            "no value for parameter ':\(name)' of '\(pattern)'"
        }
    }
}

/// Named, entity and relationship routes, interpolated from records and parameters (section 8).
public struct Router: Sendable {
    let plan: MappingPlan

    /// A named route with its parameters.
    public func route(named name: String, parameters: [String: String] = [:]) throws(RoutingError) -> ResolvedRoute {
        guard let route = plan.schema.routes.first(where: { $0.name == name }) else {
            throw .unknownRoute(name, suggestion: Suggestions.closest(to: name, in: plan.schema.routes.map(\.name)))
        }
        return ResolvedRoute(method: route.method, path: try Self.interpolate(route.pattern) { parameters[$0] })
    }

    /// A named route whose parameters come from `parameters`, then from a record's attributes (as
    /// an entity route's do). Also returns the parameters the path used, for `@metadata.routing`.
    public func route(named name: String, parameters: [String: String] = [:], record: Record) throws(RoutingError)
        -> (route: ResolvedRoute, parameters: [String: String]) {
        guard let route = plan.schema.routes.first(where: { $0.name == name }) else {
            throw .unknownRoute(name, suggestion: Suggestions.closest(to: name, in: plan.schema.routes.map(\.name)))
        }
        var used = parameters
        for name in route.pattern.parameterNames where used[name] == nil { used[name] = Self.text(record[name]) }
        return (ResolvedRoute(method: route.method, path: try Self.interpolate(route.pattern) { used[$0] }), used)
    }

    /// The entity route of a record for a method: the exact method first, then ANY. Parameters
    /// come from `parameters`, then from the record's attributes.
    public func route(for record: Record, method: String, parameters: [String: String] = [:]) throws(RoutingError) -> ResolvedRoute {
        let routes = record.plan.routes
        guard let route = routes.first(where: { $0.method == method }) ?? routes.first(where: { $0.method == nil }) else {
            throw .noEntityRoute(entity: record.entity, method: method)
        }
        return ResolvedRoute(method: method, path: try Self.interpolate(route.pattern) { parameters[$0] ?? Self.text(record[$0]) })
    }

    /// The route that loads a relationship of a record.
    public func route(forRelationship name: String, of record: Record, parameters: [String: String] = [:]) throws(RoutingError) -> ResolvedRoute {
        guard let slot = record.plan.relationshipSlots[name], let route = record.plan.relationships[slot].route else {
            throw .noRelationshipRoute(entity: record.entity, relationship: name)
        }
        return ResolvedRoute(method: route.method ?? "GET",
                             path: try Self.interpolate(route.pattern) { parameters[$0] ?? Self.text(record[$0]) })
    }

    /// Interpolates a pattern, percent-escaping every value; a missing value is an error.
    static func interpolate(_ pattern: PathPattern, _ value: (String) -> String?) throws(RoutingError) -> String {
        do { return try pattern.interpolate(value) } catch {
            throw .missingParameter(name: error.name, pattern: error.pattern)
        }
    }

    /// A record field as path text; `nil` for absent, null, records and containers.
    static func text(_ field: RecordField) -> String? {
        text(field.value)
    }

    /// A scalar value as path or query text (strings as they are, numbers without a trailing
    /// ".0", dates in ISO 8601 UTC); `nil` for absent, null and containers.
    package static func text(_ value: Value?) -> String? {
        guard let value else { return nil }
        switch value {
        case .null, .array, .object: return nil
        case .string(let string): return string
        default: return ValueText.plain(value)
        }
    }
}

extension ValueText {
    /// A scalar value as plain text: strings unquoted, numbers without a trailing ".0", dates in ISO 8601.
    static func plain(_ value: Value) -> String {
        switch value {
        case .string(let string): string
        default: short(value)
        }
    }
}
