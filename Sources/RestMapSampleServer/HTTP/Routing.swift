import Hummingbird

/// A request as a route sees it: path parameters, the query without fault parameters, the
/// headers and the whole body.
struct RouteRequest: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var parameters: [String: String] = [:]
    /// Query pairs in order, fault parameters removed.
    var query: [(name: String, value: String)]
    /// The query as sent (fault parameters included), for links that must keep them.
    var rawQuery: [(name: String, value: String)]
    var headers: HTTPFields
    var body: [UInt8]
    /// `http://host:port` as the client addressed the server.
    var origin: String
    var faults: FaultRequest

    /// The first query value of a name.
    func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The first of `names` present in the query as an integer, `fallback` when none is
    /// present, `nil` when the value is not an integer.
    func integer(_ names: [String], default fallback: Int) -> Int? {
        guard let text = names.lazy.compactMap({ query($0) }).first else { return fallback }
        return Int(text)
    }

    /// A path parameter; routes only ask for the names in their own pattern.
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The body as a JSON object: a form body (Rails-style nesting) by `Content-Type`, else a JSON object.
    /// `nil` when the body is neither.
    func bodyObject() -> JSONValue? {
        let contentType = headers[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            return FormEncoding.object(Substring(decoding: body, as: UTF8.self))
        }
        guard let value = try? JSONValue(parsing: body), case .object = value else { return nil }
        return value
    }
}

/// The routes of every API, matched by method and path segments.
struct RouteTable: Sendable {
    typealias Handler = @Sendable (RouteRequest) async throws -> Reply

    private enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    private struct Route: Sendable {
        var method: HTTPRequest.Method
        var segments: [Segment]
        var handler: Handler
    }

    private var routes: [Route] = []

    /// Adds a route; `pattern` is a path like `/databases/:db/collections`. Earlier routes win,
    /// so literal routes go before parameter routes of the same shape.
    mutating func add(_ method: HTTPRequest.Method, _ pattern: String, _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/").map { part -> Segment in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
        routes.append(Route(method: method, segments: segments, handler: handler))
    }

    /// The outcome of matching a request.
    enum Match {
        case route(Handler, [String: String])
        case methodNotAllowed
        case notFound
    }

    /// Finds the route for a method and a path as sent; parameters are percent-decoded.
    func match(_ method: HTTPRequest.Method, path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var pathMatched = false
        for route in routes where route.segments.count == parts.count {
            var parameters: [String: String] = [:]
            var matches = true
            for (segment, part) in zip(route.segments, parts) {
                switch segment {
                case .literal(let text): matches = text == part
                case .parameter(let name):
                    matches = !part.isEmpty
                    parameters[name] = FormEncoding.decode(part, plusIsSpace: false)
                }
                if !matches { break }
            }
            guard matches else { continue }
            if route.method == method { return .route(route.handler, parameters) }
            pathMatched = true
        }
        return pathMatched ? .methodNotAllowed : .notFound
    }
}
