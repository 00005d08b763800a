import Foundation
import Hummingbird

/// The test credentials the server accepts (fixed defaults, changeable by flags).
struct Credentials: Sendable {
    var token: String
    var apiKey: String
    var username: String
    var password: String
    /// RSAPI logs in user 3 by this address (with `password`).
    var rsapiEmail = "steve@boundaboutwith.us"

    /// The value of `Authorization: <scheme> <value>` when the scheme is one of `schemes`
    /// (case-insensitive).
    static func authorization(_ headers: HTTPFields, schemes: [String]) -> String? {
        guard let header = headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, schemes.contains(where: { $0.caseInsensitiveCompare(parts[0]) == .orderedSame }) else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// The outcome of checking a credential.
    enum Check {
        case accepted
        case missing
        case wrong
    }

    /// Bearer (`Authorization: Bearer T` or GitHub's `token T`).
    func checkBearer(_ headers: HTTPFields) -> Check {
        guard let presented = Self.authorization(headers, schemes: ["Bearer", "token"]) else { return .missing }
        return Self.same(presented, token) ? .accepted : .wrong
    }

    /// Basic (`Authorization: Basic base64(user:password)`).
    func checkBasic(_ headers: HTTPFields) -> Check {
        guard let encoded = Self.authorization(headers, schemes: ["Basic"]) else { return .missing }
        guard let data = Data(base64Encoded: encoded) else { return .wrong }
        return Self.same(String(decoding: data, as: UTF8.self), username + ":" + password) ? .accepted : .wrong
    }

    /// An API key in a header or a query parameter (whichever is present; header first).
    func checkAPIKey(_ request: Request, context: SampleRequestContext, header: HTTPField.Name?, query: String?) -> Check {
        let presented = header.flatMap { request.headers[$0] } ?? query.flatMap { context.query($0) }
        guard let presented else { return .missing }
        return Self.same(presented, apiKey) ? .accepted : .wrong
    }

    /// Compares without stopping at the first difference.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<min(left.count, right.count) { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

/// Lets a request through to the routes after it when `check` accepts its credentials, and
/// answers `refusal` of the outcome when they are missing or wrong.
struct CredentialsMiddleware: RouterMiddleware {
    typealias Context = SampleRequestContext

    let check: @Sendable (Request, Context) async -> Credentials.Check
    let refusal: @Sendable (Credentials.Check) -> Reply

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let outcome = await check(request, context)
        guard outcome == .accepted else { return refusal(outcome).response(from: request, context: context) }
        return try await next(request, context)
    }
}

extension Reply {
    /// `401` with a challenge for the scheme.
    static func unauthorized(_ key: String, _ message: String, challenge: String) -> Reply {
        error(.unauthorized, key, message).adding(.wwwAuthenticate, challenge)
    }
}
