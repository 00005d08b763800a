import Foundation
import RestMapPluginKit
import Hummingbird

/// `ETag` / `Last-Modified` validators and the `304 Not Modified` decision (RFC 9110 section 13).
/// `Reply` adds the validators; `ConditionalRequestMiddleware` answers 304.
enum Conditional {
    /// A strong entity tag from the body bytes: 64 bits of four FNV-1a-style lanes over 8-byte
    /// words (one multiply per 8 bytes in four independent chains, not one per byte in one chain:
    /// byte-wise FNV-1a of a 57 KB page was a fifth of the server's time per request).
    static func entityTag(_ body: [UInt8]) -> String {
        let prime: UInt64 = 0x100_0000_01b3
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4, 0x9ce4_8422_2325_cbf2, 0x2325_cbf2_9ce4_8422)
        body.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 32 <= bytes.count {
                lanes.0 = (lanes.0 ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* prime
                lanes.1 = (lanes.1 ^ bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* prime
                lanes.2 = (lanes.2 ^ bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)) &* prime
                lanes.3 = (lanes.3 ^ bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)) &* prime
                offset += 32
            }
            while offset < bytes.count {
                lanes.0 = (lanes.0 ^ UInt64(bytes[offset])) &* prime
                offset += 1
            }
        }
        var hash = UInt64(body.count)
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] {
            hash = (hash ^ lane ^ (lane >> 29)) &* prime
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether the request's `If-None-Match` (or, without one, `If-Modified-Since`) says the
    /// client's copy, of entity tag `tag` and modified at `lastModified` (whole seconds), is current.
    static func notModified(request headers: HTTPFields, tag: String, lastModified: Int64) -> Bool {
        if let ifNoneMatch = headers[.ifNoneMatch] {
            return ifNoneMatch.split(separator: ",").contains { candidate in
                let trimmed = candidate.trimmingCharacters(in: .whitespaces)
                return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
            }
        }
        if let since = headers[.ifModifiedSince].flatMap({ HTTPDate.seconds(from: $0) }) {
            return lastModified <= since
        }
        return false
    }
}

/// Turns a `200` GET answer that carries validators (`ETag` and `Last-Modified`, which `Reply`
/// adds when it has a `lastModified`) into `304 Not Modified` without a body when the request's
/// conditions say the client's copy is current.
struct ConditionalRequestMiddleware: RouterMiddleware {
    typealias Context = SampleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard request.method == .get, response.status == .ok, let tag = response.headers[.eTag],
              let lastModified = response.headers[.lastModified].flatMap({ HTTPDate.seconds(from: $0) }),
              Conditional.notModified(request: request.headers, tag: tag, lastModified: lastModified) else { return response }
        var headers = response.headers
        headers[.contentType] = nil
        headers[.contentLength] = nil
        return Response(status: .notModified, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer()))
    }
}
