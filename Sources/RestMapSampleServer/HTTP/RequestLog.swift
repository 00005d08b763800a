import Foundation
import Hummingbird
import Logging

/// The requests this process received, oldest first (`GET /_requests`, cleared by
/// `DELETE /_requests`), so a test can check what reached a server. Credential values are
/// redacted; the log keeps the last 1,000 requests. `GET /_requests?wait-for=N` answers once the
/// log holds at least N requests (at most `waitLimit` later), so a test can wait for a request to
/// arrive instead of sleeping.
actor RequestLog {
    static let path = "/_requests"
    static let capacity = 1_000
    /// The longest a `wait-for` request waits before answering with what the log holds.
    static let waitLimit: Duration = .seconds(10)
    static let redacted = "<redacted>"
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key", "x-api-token", "mongohq-api-token"]
    static let secretQueryNames: Set<String> = ["_apikey", "api_key", "api_token", "password"]

    private var entries: [JSONValue] = []
    /// Requests waiting for the log to hold a number of entries, by an id of their own.
    private var waiters: [UUID: (count: Int, continuation: CheckedContinuation<Void, Never>, limit: Task<Void, Never>)] = [:]

    /// Records a request: method, target (path and query) and headers with lower-case names
    /// (`host` from the request's authority).
    func record(method: String, path: String, query: [(name: String, value: String)], authority: String?, headers: HTTPFields) {
        let pairs = query.map { (name: $0.name, value: Self.secretQueryNames.contains($0.name) ? Self.redacted : $0.value) }
        var fields: [JSONValue.Member] = authority.map { [JSONValue.Member(key: "host", value: .string($0))] } ?? []
        for field in headers {
            let name = field.name.canonicalName
            let value = Self.secretHeaders.contains(name) ? Self.redacted : field.value
            fields.append(JSONValue.Member(key: name, value: .string(value)))
        }
        if entries.count >= Self.capacity { entries.removeFirst(entries.count - Self.capacity + 1) }
        entries.append(.object([
            "method": .string(method),
            "target": .string(pairs.isEmpty ? path : path + "?" + FormEncoding.join(pairs)),
            "headers": .object(fields),
        ]))
        for (id, waiter) in waiters where entries.count >= waiter.count {
            endWait(id)
        }
    }

    /// Returns once the log holds at least `count` requests, or after `waitLimit`.
    private func waitFor(count: Int) async {
        guard entries.count < count else { return }
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let limit = Task {
                guard (try? await Task.sleep(for: Self.waitLimit)) != nil else { return }
                self.endWait(id)
            }
            waiters[id] = (count, continuation, limit)
        }
    }

    /// Answers a waiting request and stops its time limit.
    private func endWait(_ id: UUID) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.limit.cancel()
        waiter.continuation.resume()
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.get, RouterPath(Self.path)) { request in
            if let text = request.query("wait-for") {
                guard let count = Int(text), (1...Self.capacity).contains(count) else {
                    return .error(.badRequest, "error", "wait-for: expected a number of requests from 1 to \(Self.capacity), got '\(text)'")
                }
                await self.waitFor(count: count)
            }
            return await .json(.array(self.entries))
        }
        router.on(.delete, RouterPath(Self.path)) { _ in
            await self.clear()
            return .noContent
        }
    }

    private func clear() { entries.removeAll() }
}

/// Records every request but those of the log itself in the `RequestLog`, before anything else
/// answers it, and logs one line per request (method, path, status, body size; info level).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = SampleRequestContext

    let requestLog: RequestLog
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path != RequestLog.path {
            await requestLog.record(
                method: request.method.rawValue, path: path, query: FormEncoding.pairs(Substring(request.uri.query ?? "")),
                authority: request.head.authority, headers: request.headers
            )
        }
        let response = try await next(request, context)
        logger.info("\(request.method.rawValue) \(path) \(response.status.code)\(response.body.contentLength.map { " \($0) bytes" } ?? "")")
        return response
    }
}
