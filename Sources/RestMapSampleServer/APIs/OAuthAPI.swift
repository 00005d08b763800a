import Foundation
import Hummingbird

/// An OAuth 2.0 authorization server and resource (RFC 6749): `POST /oauth/token` issues access
/// tokens for the client credentials grant and the refresh token grant (client authentication by
/// `Authorization: Basic` or `client_id`/`client_secret` in the body). Refresh tokens rotate:
/// each refresh answers a new one and the one presented stops working. `GET /oauth/items` needs
/// a live access token (the `expire-token=N` fault refuses the first N). `POST /oauth/expire`
/// ends every access token (refresh tokens stay).
actor OAuthAPI {
    static let clientID = "sample-client"
    static let clientSecret = "sample-client-secret"

    /// Seconds an access token lives.
    let expiresIn: Int
    private var accessTokens: [String: ContinuousClock.Instant] = [:]
    private var refreshTokens: Set<String>
    private var issued = 0

    private let faultCounter: FaultCounter

    init(initialRefreshToken: String, expiresIn: Int, faultCounter: FaultCounter) {
        self.expiresIn = expiresIn
        self.faultCounter = faultCounter
        refreshTokens = [initialRefreshToken]
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.post, "/oauth/token") { request in await self.token(request) }
        router.on(.post, "/oauth/expire") { _ in await self.expireAccessTokens() }
        let protected = router.group().add(middleware: CredentialsMiddleware { request, context in
            await self.check(request, context: context)
        } refusal: { outcome in
            outcome == .missing
                ? .unauthorized("error", "Authentication required", challenge: "Bearer realm=\"sample\"")
                : .unauthorized("error", "Invalid or expired token", challenge: "Bearer realm=\"sample\", error=\"invalid_token\"")
        })
        protected.on(.get, "/oauth/items") { _ in
            .json(.object(["items": .array((1...5).map { JSONValue.object(["id": .integer($0), "name": .string("secret item \($0)")]) })]))
        }
    }

    /// `.missing` without a bearer token, `.wrong` for one that is not live (or that the
    /// `expire-token` fault refuses).
    private func check(_ request: Request, context: SampleRequestContext) async -> Credentials.Check {
        guard let token = Credentials.authorization(request.headers, schemes: ["Bearer"]) else { return .missing }
        let faults = context.faults
        if await faultCounter.shouldFault(kind: "expire-token", key: faults.key(method: request.method, path: request.uri.path),
                                          limit: faults.expireToken) {
            return .wrong
        }
        guard let expiry = accessTokens[token] else { return .wrong }
        guard ContinuousClock.now < expiry else {
            accessTokens[token] = nil
            return .wrong
        }
        return .accepted
    }

    private func expireAccessTokens() -> Reply {
        accessTokens.removeAll()
        return .noContent
    }

    /// RFC 6749 §5.2 error answers.
    private static func failure(_ status: HTTPResponse.Status, _ code: String, _ description: String) -> Reply {
        .json(.object(["error": .string(code), "error_description": .string(description)]), status: status)
            .adding(.cacheControl, "no-store")
    }

    private func token(_ request: RouteRequest) -> Reply {
        guard (request.headers[.contentType] ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            return Self.failure(.badRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let fields = FormEncoding.pairs(Substring(decoding: request.body, as: UTF8.self))
        func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        // Client authentication: Basic (form-encoded id and secret) or the body, not both.
        var presented: (id: String, secret: String)?
        if let basic = Credentials.authorization(request.headers, schemes: ["Basic"]) {
            guard field("client_secret") == nil else {
                return Self.failure(.badRequest, "invalid_request", "more than one client authentication")
            }
            guard let data = Data(base64Encoded: basic), let text = String(data: data, encoding: .utf8),
                  let colon = text.firstIndex(of: ":") else {
                return Self.failure(.unauthorized, "invalid_client", "malformed Basic credentials").adding(.wwwAuthenticate, "Basic realm=\"oauth\"")
            }
            presented = (FormEncoding.decode(text[..<colon]), FormEncoding.decode(text[text.index(after: colon)...]))
        } else if let id = field("client_id"), let secret = field("client_secret") {
            presented = (id, secret)
        }
        guard let presented, Credentials.same(presented.id, Self.clientID), Credentials.same(presented.secret, Self.clientSecret) else {
            return Self.failure(.unauthorized, "invalid_client", "unknown client or wrong secret").adding(.wwwAuthenticate, "Basic realm=\"oauth\"")
        }
        var answer: [JSONValue.Member] = []
        switch field("grant_type") {
        case "client_credentials":
            break
        case "refresh_token":
            guard let presentedToken = field("refresh_token"), refreshTokens.contains(presentedToken) else {
                return Self.failure(.badRequest, "invalid_grant", "the refresh token is invalid or was already used")
            }
            refreshTokens.remove(presentedToken)
            let rotated = newToken("refresh")
            refreshTokens.insert(rotated)
            answer.append(JSONValue.Member(key: "refresh_token", value: .string(rotated)))
        case let other?:
            return Self.failure(.badRequest, "unsupported_grant_type", "grant_type '\(other)' is not supported")
        case nil:
            return Self.failure(.badRequest, "invalid_request", "grant_type is missing")
        }
        let access = newToken("access")
        accessTokens[access] = ContinuousClock.now + .seconds(expiresIn)
        answer = [JSONValue.Member(key: "access_token", value: .string(access)),
                  JSONValue.Member(key: "token_type", value: .string("Bearer")),
                  JSONValue.Member(key: "expires_in", value: .integer(expiresIn))] + answer
        if let scope = field("scope") { answer.append(JSONValue.Member(key: "scope", value: .string(scope))) }
        return .json(.object(answer)).adding(.cacheControl, "no-store")
    }

    private func newToken(_ kind: String) -> String {
        issued += 1
        var generator = SystemRandomNumberGenerator()
        return "\(kind)-\(issued)-" + String(generator.next() as UInt64, radix: 16)
    }
}
