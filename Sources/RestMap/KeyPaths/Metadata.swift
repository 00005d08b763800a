import FoundationEssentials
import RestMapJSON
import RestMapSchema
import Synchronization

/// The metadata a key path reaches under `@metadata.` (language section 6).
///
/// `routing`, `HTTP`, `query` and `user` are built from the response the first time a key path
/// reads them: most schemas never do, and a client maps every page with its own metadata.
struct Metadata: Sendable {
    private let source: Source

    /// `routing`, `HTTP`, `query` and `user`, fixed for one response.
    var fixed: Value { source.value }

    /// `schema` gives `baseURL` (for full URLs) and the headers every request sends (`headers:`),
    /// under the request's own headers.
    init(request: Response, schema: Schema, routeName: String?, routingParameters: [String: String]) {
        self.init(request: request, schema: schema) { (routeName, routingParameters) }
    }

    /// Metadata whose route name and routing parameters are also found only when first read.
    /// The metadata keeps `request` until then, without its body.
    init(request: Response, schema: Schema, routing: @escaping @Sendable () -> (routeName: String?, parameters: [String: String])) {
        var head = request
        head.body = []
        source = Source { [head] in
            let (routeName, parameters) = routing()
            return Self.fixed(request: head, schema: schema, routeName: routeName, routingParameters: parameters)
        }
    }

    /// The fixed metadata, made once, on the first read, by whichever thread reads it first.
    private final class Source: Sendable {
        private let made = Mutex<Value?>(nil)
        private let make: @Sendable () -> Value

        init(_ make: @escaping @Sendable () -> Value) {
            self.make = make
        }

        var value: Value {
            made.withLock { made in
                if let value = made { return value }
                let value = make()
                made = value
                return value
            }
        }
    }

    private static func fixed(request: Response, schema: Schema, routeName: String?, routingParameters: [String: String]) -> Value {
        let baseURL = schema.baseURL
        let requestURL = request.requestURL ?? Self.absoluteURL(request.path, baseURL: baseURL)
        func object(_ pairs: [(String, Value)]) -> Value { .object(pairs.map { Value.Member(key: $0.0, value: $0.1) }) }
        func strings(_ dictionary: [String: String]) -> Value {
            object(dictionary.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
        }
        return object([
            ("routing", object([
                ("parameters", strings(routingParameters)),
                ("route", routeName.map(Value.string) ?? .null),
            ])),
            ("HTTP", object([
                ("request", object([
                    ("URL", .string(requestURL)),
                    ("method", .string(request.method)),
                    ("headers", strings(HTTPHeaders.setting(request.requestHeaders, over: schema.headers))),
                ])),
                ("response", object([
                    ("URL", .string(request.responseURL ?? requestURL)),
                    ("statusCode", .integer(Int64(request.status))),
                    ("headers", strings(request.headers)),
                ])),
            ])),
            ("query", object([("parameters", strings(request.queryParameters))])),
            ("user", request.userMetadata),
        ])
    }

    /// The full URL of a request path (RestKit's `HTTP.request.URL`): a path that already is a
    /// URL stays as it is; otherwise it joins `baseURL`'s scheme and host, and `baseURL`'s path
    /// unless the request path already starts with it (`/api/v1/users` and `/users` under
    /// `http://restkit.org/api/v1` are both `http://restkit.org/api/v1/users`). Without a
    /// `baseURL` the path is all there is.
    static func absoluteURL(_ path: String, baseURL: String?) -> String {
        guard !path.contains("://"), let baseURL, let schemeEnd = baseURL.firstRange(of: "://") else { return path }
        let hostEnd = baseURL[schemeEnd.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? baseURL.endIndex
        let origin = baseURL[..<hostEnd]
        var basePath = baseURL[hostEnd...].prefix { $0 != "?" }
        if basePath.hasSuffix("/") { basePath = basePath.dropLast() }
        let relative = path.hasPrefix("/") || path.hasPrefix("?") || path.isEmpty ? path : "/" + path
        let underBase = !basePath.isEmpty && relative.hasPrefix(basePath)
            && [nil, "/", "?"].contains(relative.dropFirst(basePath.count).first)
        return origin + (underBase ? "" : basePath) + relative
    }

    /// Looks up the segments after `@metadata`.
    func lookup(_ segments: [MappingKeyPath.Segment], scope: EvaluationScope) -> Resolved {
        let keys = segments.map { segment -> String in
            if case .key(let key, _) = segment { return key }
            return ""
        }
        if keys.first == "mapping", keys.count >= 2 {
            switch (keys[1], keys.count) {
            case ("collectionIndex", 2): return .value(scope.collectionIndex.map { .integer(Int64($0)) } ?? .null)
            case ("rootKeyPath", 2): return .value(.string(scope.rootKeyPath))
            case ("parentObject", _):
                // The enclosing representation (none for a root record), walked further by the rest.
                let count = scope.representations.count
                guard count >= 2 else { return .value(.null) }
                var node = scope.representations[count - 2]
                for key in keys.dropFirst(2) {
                    guard let next = node[key] else { return .missing }
                    node = next
                }
                return .node(node)
            default: return .missing
            }
        }
        var value = fixed
        for key in keys {
            guard case .object(let members) = value else { return .missing }
            // Header names are case-insensitive; other keys match exactly first.
            guard let member = members.last(where: { $0.key == key })
                ?? members.last(where: { $0.key.equalsIgnoringCase(key) }) else { return .missing }
            value = member.value
        }
        return .value(value)
    }
}
