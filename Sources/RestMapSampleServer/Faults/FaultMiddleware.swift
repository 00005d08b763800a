import Foundation
import Hummingbird
import RestMapPluginKit

/// Reads the faults a request asks for into the context and applies them: `delay`, `fail` and
/// `redirect` before the routes, then the body faults (`BodyFaults`) on whatever answers,
/// routes, 404s and its own failures alike. A fault parameter out of its range answers 400.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = SampleRequestContext

    let faultCounter: FaultCounter
    /// `host:port` for links when a request has no `Host`.
    let fallbackAuthority: String

    /// The instant a `retry-after-date` Retry-After counts from, as an HTTP-date (the `Date`
    /// header is the server's cached clock and may lag it by a second).
    static let retryAfterBase = HTTPField.Name("X-Retry-After-Base")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.rawQuery = FormEncoding.pairs(Substring(request.uri.query ?? ""))
        context.origin = "http://" + (request.head.authority ?? fallbackAuthority)
        do {
            context.faults = try FaultRequest(query: context.rawQuery, headers: request.headers)
        } catch {
            return Reply.error(.badRequest, "error", error.message).response(from: request, context: context)
        }
        let faults = context.faults
        if faults.delayMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(faults.delayMilliseconds))
        }
        let response: Response
        if faults.fail > 0,
           await faultCounter.shouldFault(kind: "fail", key: faults.key(method: request.method, path: request.uri.path), limit: faults.fail) {
            response = Self.injectedFailure(faults).response(from: request, context: context)
        } else if let location = faults.redirect {
            // `redirect=` (no URL) answers the redirect status without a `Location` header.
            let headers: HTTPFields = location.isEmpty ? [.contentLength: "0"] : [.location: location, .contentLength: "0"]
            response = Reply(status: HTTPResponse.Status(code: faults.redirectStatus), headers: headers).response(from: request, context: context)
        } else {
            response = try await next(request, context)
        }
        return try await BodyFaults.response(response, faults: faults)
    }

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
