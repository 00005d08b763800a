import Foundation
import RestMapPluginKit
import Hummingbird
import Logging

/// Answers every request: reads the faults it asks for, applies `delay`, `fail` and `redirect`,
/// runs the route, adds cache validators, then shapes the body by the body faults.
struct SampleResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    /// Request bodies above this size are refused with 413.
    static let maximumRequestBody = 1 << 20

    let routes: RouteTable
    let faultCounter: FaultCounter
    let requestLog: RequestLog
    /// `host:port` for links when a request has no `Host`.
    let fallbackAuthority: String
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let reply = await reply(to: request)
        logger.info("\(request.method.rawValue) \(request.uri.path) \(reply.reply.status.code) \(reply.reply.body.count) bytes")
        return BodyFaults.response(reply.reply, faults: reply.faults)
    }

    private func reply(to request: Request) async -> (reply: Reply, faults: FaultRequest) {
        let rawQuery = FormEncoding.pairs(Substring(request.uri.query ?? ""))
        if request.uri.path != RequestLog.path {
            await requestLog.record(
                method: request.method.rawValue, path: request.uri.path, query: rawQuery, authority: request.head.authority, headers: request.headers
            )
        }
        let faults: FaultRequest
        do {
            faults = try FaultRequest(query: rawQuery, headers: request.headers)
        } catch {
            return (.error(.badRequest, "error", error.message), FaultRequest.none)
        }
        if faults.delayMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(faults.delayMilliseconds))
        }
        let path = request.uri.path
        if faults.fail > 0, await faultCounter.shouldFault(kind: "fail", key: faults.key(method: request.method, path: path), limit: faults.fail) {
            return (Self.injectedFailure(faults), faults)
        }
        if let location = faults.redirect {
            let status = HTTPResponse.Status(code: faults.redirectStatus)
            // `redirect=` (no URL) answers the redirect status without a `Location` header.
            let headers: HTTPFields = location.isEmpty ? [.contentLength: "0"] : [.location: location, .contentLength: "0"]
            return (Reply(status: status, headers: headers), faults)
        }
        switch routes.match(request.method, path: path) {
        case .notFound: return (.notFound, faults)
        case .methodNotAllowed: return (.error(.methodNotAllowed, "message", "Method Not Allowed"), faults)
        case .route(let handler, let parameters):
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumRequestBody)
            } catch {
                return (.error(.contentTooLarge, "error", "request body larger than \(Self.maximumRequestBody) bytes"), faults)
            }
            let routeRequest = RouteRequest(
                method: request.method,
                path: path,
                parameters: parameters,
                query: rawQuery.filter { !FaultRequest.names.contains($0.name) },
                rawQuery: rawQuery,
                headers: request.headers,
                body: Array(buffer: body),
                origin: "http://" + (request.head.authority ?? fallbackAuthority),
                faults: faults
            )
            do {
                return (Conditional.apply(to: try await handler(routeRequest), request: routeRequest), faults)
            } catch let error as ReplyError {
                return (error.reply, faults)
            } catch {
                logger.error("\(request.method.rawValue) \(path) failed: \(error)")
                return (.error(.internalServerError, "error", "internal error"), faults)
            }
        }
    }

    /// The instant a `retry-after-date` Retry-After counts from, as an HTTP-date (the `Date`
    /// header is the server's cached clock and may lag it by a second).
    static let retryAfterBase = HTTPField.Name("X-Retry-After-Base")!

    /// The answer of a request that `fail=N` fails.
    private static func injectedFailure(_ faults: FaultRequest) -> Reply {
        let message = JSONValue.string("fault: injected \(faults.status)")
        var reply = Reply.json(.object(["error": message, "message": message]), status: HTTPResponse.Status(code: faults.status))
        if let seconds = faults.retryAfterSeconds {
            reply.headers[.retryAfter] = String(seconds)
        } else if let seconds = faults.retryAfterDateSeconds {
            let now = Date()
            reply.headers[.retryAfter] = HTTPDate.string(from: now.addingTimeInterval(TimeInterval(seconds)))
            reply.headers[retryAfterBase] = HTTPDate.string(from: now)
        }
        return reply
    }
}
