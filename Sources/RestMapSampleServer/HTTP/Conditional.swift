import Foundation
import Hummingbird

/// `ETag` / `Last-Modified` validators and the `304 Not Modified` decision (RFC 9110 section 13).
enum Conditional {
    /// A strong entity tag from the body bytes (FNV-1a, 64 bits).
    static func entityTag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Adds the validators to a `200` GET answer, or turns it into a `304` when the request's
    /// `If-None-Match` (or, without one, `If-Modified-Since`) says the client's copy is current.
    static func apply(to reply: Reply, request: RouteRequest) -> Reply {
        guard let lastModified = reply.lastModified, reply.status == .ok, request.method == .get else { return reply }
        let tag = entityTag(reply.body)
        var validated = reply
        validated.headers[.eTag] = tag
        validated.headers[.lastModified] = HTTPDate.format(lastModified)
        if notModified(request: request.headers, tag: tag, lastModified: lastModified) {
            validated.status = .notModified
            validated.body = []
            validated.headers[.contentType] = nil
        }
        return validated
    }

    private static func notModified(request headers: HTTPFields, tag: String, lastModified: Date) -> Bool {
        if let ifNoneMatch = headers[.ifNoneMatch] {
            return ifNoneMatch.split(separator: ",").contains { candidate in
                let trimmed = candidate.trimmingCharacters(in: .whitespaces)
                return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
            }
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}
