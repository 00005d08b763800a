import Hummingbird

/// The request context of the sample server: Hummingbird's core storage (path parameters,
/// logger) and what `FaultMiddleware` reads once for everything after it.
struct SampleRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The faults the request asks for.
    var faults = FaultRequest.none
    /// The query as sent (fault parameters included), for links that must keep them.
    var rawQuery: [(name: String, value: String)] = []
    /// `http://host:port` as the client addressed the server.
    var origin = ""

    /// Request bodies above this size are refused with 413.
    var maxUploadSize: Int { 1 << 20 }

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    /// Query pairs in order, fault parameters removed.
    var query: [(name: String, value: String)] {
        rawQuery.filter { !FaultRequest.names.contains($0.name) }
    }

    /// The first query value of a name that is not a fault parameter.
    func query(_ name: String) -> String? {
        guard !FaultRequest.names.contains(name) else { return nil }
        return rawQuery.first { $0.name == name }?.value
    }
}

/// A request as a route handler sees it: path parameters (percent-decoded), the query without
/// fault parameters, the headers and the whole body.
struct RouteRequest: Sendable {
    var method: HTTPRequest.Method
    var path: String
    var headers: HTTPFields
    var body: [UInt8]
    var context: SampleRequestContext

    /// Query pairs in order, fault parameters removed.
    var query: [(name: String, value: String)] { context.query }
    /// The query as sent (fault parameters included), for links that must keep them.
    var rawQuery: [(name: String, value: String)] { context.rawQuery }
    /// `http://host:port` as the client addressed the server.
    var origin: String { context.origin }
    var faults: FaultRequest { context.faults }

    /// The first query value of a name.
    func query(_ name: String) -> String? {
        context.query(name)
    }

    /// The first of `names` present in the query as an integer, `fallback` when none is
    /// present, `nil` when the value is not an integer.
    func integer(_ names: [String], default fallback: Int) -> Int? {
        guard let text = names.lazy.compactMap({ query($0) }).first else { return fallback }
        return Int(text)
    }

    /// A path parameter, percent-decoded; routes only ask for the names in their own pattern.
    func parameter(_ name: String) -> String {
        context.parameters.get(name).map { FormEncoding.decode(Substring($0), plusIsSpace: false) } ?? ""
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

extension RouterMethods<SampleRequestContext> {
    /// Adds a route whose handler answers a `Reply`. The handler sees the request as a
    /// `RouteRequest` with the whole body (above `maxUploadSize`: 413); a `ReplyError` it throws
    /// is answered as it is, any other error with 500.
    @discardableResult
    func on(_ method: HTTPRequest.Method, _ path: RouterPath, _ handler: @escaping @Sendable (RouteRequest) async throws -> Reply) -> Self {
        on(path, method: method) { request, context -> Reply in
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: context.maxUploadSize)
            } catch {
                return .error(.contentTooLarge, "error", "request body larger than \(context.maxUploadSize) bytes")
            }
            let routeRequest = RouteRequest(method: request.method, path: request.uri.path, headers: request.headers, body: Array(buffer: body), context: context)
            do {
                return try await handler(routeRequest)
            } catch let error as ReplyError {
                return error.reply
            } catch {
                context.logger.error("\(request.method.rawValue) \(request.uri.path) failed: \(error)")
                return .error(.internalServerError, "error", "internal error")
            }
        }
    }
}

extension Router<SampleRequestContext> {
    /// The methods a path without a route for them answers 405 to.
    static let standardMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options, .trace, .connect]

    /// Adds, on every path with a route, a 405 `{"message": "Method Not Allowed"}` route for
    /// each standard method it has no route for. Call it after the last route.
    func answerMethodNotAllowed() {
        var methods: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in routes {
            methods[route.path.description, default: (route.path, [])].methods.insert(route.method)
        }
        for (path, present) in methods.values.sorted(by: { $0.path.description < $1.path.description }) {
            for method in Self.standardMethods where !present.contains(method) {
                on(method, path) { _ in .methodNotAllowed }
            }
        }
    }
}

/// Answers the router's "no route" (Hummingbird's `HTTPError(.notFound)`) with the server's
/// JSON 404, and answers 404 to a path with an empty segment (`/databases/`, `//databases`),
/// which Hummingbird's router would match as the path without it.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = SampleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.contains("//") || (path.count > 1 && path.hasSuffix("/")) {
            return Reply.notFound.response(from: request, context: context)
        }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return Reply.notFound.response(from: request, context: context)
        }
    }
}
