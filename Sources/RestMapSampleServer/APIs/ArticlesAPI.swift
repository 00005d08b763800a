import Foundation
import Hummingbird
import RestMapJSON
import RestMapPluginKit

/// One generated article collection served in every pagination kind: page, offset, cursor (in the
/// body or in a header) and `Link`; plus the same page kind behind each auth kind.
struct ArticlesAPI: Sendable {
    static let lastModified = Date(timeIntervalSince1970: 1_735_689_600)   // 2025-01-01 00:00:00 UTC
    static let defaultPageSize = 10

    /// The articles, written once.
    private let articles: [[UInt8]]
    private let credentials: Credentials

    init(count: Int, credentials: Credentials) {
        articles = (0..<count).map { Self.article($0 + 1).bytes }
        self.credentials = credentials
    }

    /// Article `id`; it depends on nothing else.
    private static func article(_ id: Int) -> JSONValue {
        let authorID = id % 7 + 1
        let published = Date(timeIntervalSince1970: 1_704_067_200 + TimeInterval(id) * 86_400)
        return .object([
            "id": .integer(id),
            "title": .string("Article \(id)"),
            "author": .object(["id": .integer(authorID), "name": .string("Author \(authorID)")]),
            "tags": .array(["restmap", id % 2 == 0 ? "even" : "odd"].map(JSONValue.string)),
            "published_at": .string(ISO8601Text.string(from: published.timeIntervalSince1970)),
            "updated_at": .string(ISO8601Text.string(from: published.addingTimeInterval(3_600).timeIntervalSince1970)),
            "deleted": .bool(false),
        ])
    }

    func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.get, "/page/articles") { request in pageKind(request) }
        router.on(.get, "/offset/articles") { request in offsetKind(request) }
        router.on(.get, "/cursor/articles") { request in cursorKind(request, inHeader: false) }
        router.on(.get, "/header-cursor/articles") { request in cursorKind(request, inHeader: true) }
        router.on(.get, "/link/articles") { request in
            .linkedPage(articles, request: request, defaultSize: Self.defaultPageSize, lastModified: Self.lastModified)
        }
        router.on(.get, "/articles/:id") { request in
            guard let id = Int(request.parameter("id")), articles.indices.contains(id - 1) else {
                return .error(.notFound, "error", "Article not found")
            }
            return validated(.json(bytes: articles[id - 1]))
        }
        // The page kind behind each auth kind: /auth/<kind>/articles.
        let credentials = credentials
        func guarded(_ kind: String, challenge: String, _ check: @escaping @Sendable (Request, SampleRequestContext) -> Credentials.Check) {
            router.group(RouterPath("/auth/" + kind))
                .add(middleware: CredentialsMiddleware(check: check) { outcome in
                    outcome == .missing
                        ? .unauthorized("error", "Authentication required", challenge: challenge)
                        : .unauthorized("error", "Invalid credentials", challenge: challenge)
                })
                .on(.get, "/articles") { request in pageKind(request) }
        }
        guarded("bearer", challenge: "Bearer realm=\"restmap-sample\"") { request, _ in credentials.checkBearer(request.headers) }
        guarded("header", challenge: "APIKey header=\"X-API-Key\"") { request, context in
            credentials.checkAPIKey(request, context: context, header: .apiKey, query: nil)
        }
        guarded("query", challenge: "APIKey query=\"api_key\"") { request, context in
            credentials.checkAPIKey(request, context: context, header: nil, query: "api_key")
        }
        guarded("basic", challenge: "Basic realm=\"restmap-sample\"") { request, _ in credentials.checkBasic(request.headers) }
    }

    private func validated(_ reply: Reply) -> Reply {
        var reply = reply
        reply.lastModified = Self.lastModified
        return reply
    }

    /// `{"articles": [...], <name>: meta}` with the articles of `range`.
    private func body(_ range: Range<Int>, _ name: String, _ meta: JSONValue) -> Reply {
        var body = Reply.jsonArray(articles[range]).body
        var writer = JSONWriter()
        meta.write(to: &writer)
        body = Array("{\"articles\":".utf8) + body + Array(",\"\(name)\":".utf8) + writer.bytes + [UInt8(ascii: "}")]
        return validated(.json(bytes: body))
    }

    private func pageKind(_ request: RouteRequest) -> Reply {
        guard let paging = Paging.read(request, pageNames: ["page", "page_number"], defaultSize: Self.defaultPageSize, total: articles.count) else {
            return Paging.invalid
        }
        return body(paging.range, "pagination", .object([
            "page": .integer(paging.page), "per_page": .integer(paging.perPage),
            "total_pages": .integer(paging.pageCount), "total_objects": .integer(articles.count),
        ]))
    }

    /// Reads `limit` (clamped to 1…100); `nil` when it is not an integer.
    private func limit(_ request: RouteRequest) -> Int? {
        request.integer(["limit"], default: Self.defaultPageSize).map { min(max($0, 1), 100) }
    }

    private func offsetKind(_ request: RouteRequest) -> Reply {
        guard let offset = request.integer(["offset"], default: 0), offset >= 0, let limit = limit(request) else {
            return .error(.badRequest, "error", "offset must be a non-negative integer and limit an integer")
        }
        let start = min(offset, articles.count)
        return body(start..<min(start + limit, articles.count), "meta", .object([
            "offset": .integer(offset), "limit": .integer(limit), "total": .integer(articles.count),
        ]))
    }

    private static func cursor(_ offset: Int) -> String { "cur-" + String(offset, radix: 36) }

    private func cursorKind(_ request: RouteRequest, inHeader: Bool) -> Reply {
        guard let limit = limit(request) else { return .error(.badRequest, "error", "limit must be an integer") }
        var start = 0
        if let cursor = request.query("cursor") {
            guard cursor.hasPrefix("cur-"), let offset = Int(cursor.dropFirst(4), radix: 36), (0...articles.count).contains(offset) else {
                return .error(.badRequest, "error", "Invalid cursor")
            }
            start = offset
        }
        let end = min(start + limit, articles.count)
        var next = end < articles.count ? Self.cursor(end) : nil
        if request.faults.loop, let current = request.query("cursor") { next = current }
        if inHeader {
            var reply = validated(.jsonArray(articles[start..<end]))
            if let next { reply.headers[.nextCursor] = next }
            return reply
        }
        return body(start..<end, "next_cursor", next.map(JSONValue.string) ?? .null)
    }
}
