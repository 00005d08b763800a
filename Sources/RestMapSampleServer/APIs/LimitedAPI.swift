import Foundation
import Hummingbird

/// A rate-limited collection: `GET /limited/items?page=N` under a budget of `limit` requests per
/// fixed window of `window` seconds (counted from the server's start). Every answer carries
/// `X-RateLimit-Limit/-Remaining/-Reset` and draft-ietf-httpapi-ratelimit-headers-10's
/// `RateLimit-Policy` / `RateLimit`; a request beyond the budget answers 429 with `Retry-After`.
/// `headers=x` sends only the `X-RateLimit-*` fields, `headers=ietf` only the `RateLimit*` ones;
/// `reset-format=epoch` makes `X-RateLimit-Reset` an epoch time in seconds.
/// `GET /limited/stats` counts the requests allowed and refused.
actor LimitedAPI {
    /// Items in the collection, and per page.
    static let itemCount = 200
    static let pageSize = 10

    let limit: Int
    let window: Int
    private let started = ContinuousClock.now
    private var currentWindow = -1
    private var used = 0
    private var allowed = 0
    private var refused = 0

    init(limit: Int, window: Int) {
        self.limit = limit
        self.window = window
    }

    /// `--rate-limit N/SECONDS`: `(N, SECONDS)`, or `nil` when the text is not that.
    static func parse(_ text: String) -> (limit: Int, window: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let limit = Int(parts[0]), let window = Int(parts[1]), limit >= 1, window >= 1 else { return nil }
        return (limit, window)
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.get, "/limited/items") { request in await self.items(request) }
        router.on(.get, "/limited/stats") { _ in await self.stats() }
    }

    /// Counts the request in the current window: whether it is allowed, what is left, and the
    /// seconds until the window ends (rounded up, at least 1).
    private func take() -> (allowed: Bool, remaining: Int, reset: Int, resetEpoch: Int) {
        let elapsed = (ContinuousClock.now - started)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let index = Int(seconds) / window
        if index != currentWindow {
            currentWindow = index
            used = 0
        }
        let left = Double((index + 1) * window) - seconds
        let reset = max(1, Int(left.rounded(.up)))
        let resetEpoch = Int((Date().timeIntervalSince1970 + left).rounded(.up))
        guard used < limit else {
            refused += 1
            return (false, 0, reset, resetEpoch)
        }
        used += 1
        allowed += 1
        return (true, limit - used, reset, resetEpoch)
    }

    private func items(_ request: RouteRequest) -> Reply {
        let (isAllowed, remaining, reset, resetEpoch) = take()
        var reply: Reply
        if isAllowed {
            guard let page = request.integer(["page"], default: 1), page >= 1 else {
                return .error(.badRequest, "error", "page must be a number from 1")
            }
            let pages = (Self.itemCount + Self.pageSize - 1) / Self.pageSize
            let first = (page - 1) * Self.pageSize
            let items = first < Self.itemCount
                ? (first..<min(first + Self.pageSize, Self.itemCount)).map { JSONValue.object(["id": .integer($0 + 1), "name": .string("item \($0 + 1)")]) }
                : []
            reply = .json(.object(["page": .integer(page), "pages": .integer(pages), "items": .array(items)]))
        } else {
            reply = Reply.error(.tooManyRequests, "error", "rate limit exceeded: \(limit) requests per \(window) s")
                .adding(.retryAfter, String(reset))
        }
        let families = request.query("headers") ?? "all"
        if families != "ietf" {
            let epoch = request.query("reset-format") == "epoch"
            reply = reply
                .adding(.xRateLimitLimit, String(limit))
                .adding(.xRateLimitRemaining, String(remaining))
                .adding(.xRateLimitReset, String(epoch ? resetEpoch : reset))
        }
        if families != "x" {
            reply = reply
                .adding(.rateLimitPolicy, "\"default\";q=\(limit);w=\(window)")
                .adding(.rateLimit, "\"default\";r=\(remaining);t=\(reset)")
        }
        return reply
    }

    private func stats() -> Reply {
        .json(.object(["allowed": .integer(allowed), "refused": .integer(refused), "limit": .integer(limit), "window": .integer(window)]))
    }
}

extension HTTPField.Name {
    static let xRateLimitLimit = HTTPField.Name("X-RateLimit-Limit")!
    static let xRateLimitRemaining = HTTPField.Name("X-RateLimit-Remaining")!
    static let xRateLimitReset = HTTPField.Name("X-RateLimit-Reset")!
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    static let rateLimit = HTTPField.Name("RateLimit")!
}
