import Foundation
import Hummingbird

/// RSAPI, the REST Simple API of a RestKit talk (Schemas/rsapi.yaml): a login that issues session tokens, users and groups,
/// the MANY and DATA routes. Every route but the login needs a valid token.
actor RSAPIAPI {
    private var users: [JSONValue]
    private let singleUser: JSONValue
    private let many: [UInt8]
    private let rawData: [UInt8]
    private let groups: [JSONValue]
    private let credentials: Credentials
    private let faultCounter: FaultCounter
    private var nextUserID: Int
    private var liveTokens: Set<String> = []
    private var issued = 0

    init(data: SampleData, credentials: Credentials, faultCounter: FaultCounter) throws(SampleData.LoadError) {
        users = try data.array("rsapi/users.json")
        singleUser = try data.json("rsapi/user.json")
        many = try data.bytes("rsapi/many.json")
        rawData = try data.bytes("rsapi/data.json")
        let manyGroups = (try data.array("rsapi/many.json")).flatMap { $0["Group"]?.arrayValue ?? [] }
        groups = users.compactMap { $0["group"] } + manyGroups
        nextUserID = (users.compactMap { $0["user_id"]?.intValue }.max() ?? 4) + 1
        self.credentials = credentials
        self.faultCounter = faultCounter
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.post, "/api/users/login") { request in await self.login(request, fields: request.bodyObject()) }
        router.on(.get, "/api/users/login") { request in
            await self.login(request, fields: .object(request.query.map { JSONValue.Member(key: $0.name, value: .string($0.value)) }))
        }
        // Every other route needs a live session token.
        let authenticated = router.group().add(middleware: CredentialsMiddleware { request, context in
            await self.checkToken(request, context: context)
        } refusal: { outcome in
            outcome == .missing
                ? .error(.unauthorized, "error", "Authentication required")
                : .unauthorized("error", "Invalid or expired token", challenge: "Token realm=\"rsapi\"")
        })
        authenticated.on(.post, "/api/tokens/expire") { _ in await self.expireAll() }
        authenticated.on(.get, "/api/users") { _ in await .json(.array(self.users)) }
        authenticated.on(.post, "/api/users") { request in await self.createUser(request) }
        authenticated.on(.get, "/api/users/:id") { request in await self.user(request) }
        authenticated.on(.get, "/api/groups/:id/all_named/:name") { request in self.groupsNamed(request) }
        authenticated.on(.get, "/path/to/objects") { _ in .json(bytes: self.many) }
        authenticated.on(.get, "/path/to/data") { _ in .json(bytes: self.rawData) }
    }

    // MARK: Sessions

    private func login(_ request: RouteRequest, fields: JSONValue?) async -> Reply {
        guard let email = fields?["email"]?.stringValue, let password = fields?["password"]?.stringValue,
              Credentials.same(email, credentials.rsapiEmail), Credentials.same(password, credentials.password) else {
            return .error(.unauthorized, "error", "Invalid email or password")
        }
        issued += 1
        var generator = SystemRandomNumberGenerator()
        let token = "rsapi-\(issued)-" + String(generator.next() as UInt64, radix: 16)
        liveTokens.insert(token)
        return .json(.object(["api_token": .string(token), "user_id": .integer(3)]))
    }

    /// The token of a request: `Authorization: Bearer`, `Authorization: Token token="…"`,
    /// `X-API-Token` or the `api_token` query parameter.
    private nonisolated static func token(_ request: Request, context: SampleRequestContext) -> String? {
        if let bearer = Credentials.authorization(request.headers, schemes: ["Bearer"]) { return bearer }
        if let rails = Credentials.authorization(request.headers, schemes: ["Token"]) {
            let value = rails.hasPrefix("token=") ? rails.dropFirst("token=".count) : Substring(rails)
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return request.headers[.apiToken] ?? context.query("api_token")
    }

    /// Whether a request has a live token: `.missing` without one, `.wrong` when it is not live
    /// (or `expire-token` refuses it).
    private func checkToken(_ request: Request, context: SampleRequestContext) async -> Credentials.Check {
        guard let token = Self.token(request, context: context) else { return .missing }
        let faults = context.faults
        let expired = await faultCounter.shouldFault(
            kind: "expire-token", key: faults.key(method: request.method, path: request.uri.path), limit: faults.expireToken
        )
        return !expired && liveTokens.contains(token) ? .accepted : .wrong
    }

    private func expireAll() -> Reply {
        liveTokens.removeAll()
        return .noContent
    }

    // MARK: Users and groups

    /// Every user the sample knows: the listed ones and their friends, by id, first full entry wins.
    private func knownUser(_ id: Int) -> JSONValue? {
        if id == 3 { return singleUser }
        let candidates = users + users.flatMap { $0["friends"]?.arrayValue ?? [] }
        return candidates.filter { $0["user_id"]?.intValue == id }.max { $0.members.count < $1.members.count }
    }

    private func user(_ request: RouteRequest) -> Reply {
        guard let id = Int(request.parameter("id")), let user = knownUser(id) else {
            return .error(.notFound, "error", "User not found")
        }
        return .json(user)
    }

    private func createUser(_ request: RouteRequest) -> Reply {
        guard let fields = request.bodyObject() else { return .error(.badRequest, "error", "Body must be a form or a JSON object") }
        guard let email = fields["email"]?.stringValue, !email.isEmpty else {
            return .error(.unprocessableContent, "error", "Email can't be blank")
        }
        let user = JSONValue.object([
            "user_id": .integer(nextUserID), "name": fields["name"] ?? .null, "email": .string(email),
            "avatar_sm": .null, "group_id": .null,
        ])
        nextUserID += 1
        users.append(user)
        return .json(user, status: .created)
    }

    private nonisolated func groupsNamed(_ request: RouteRequest) -> Reply {
        let name = request.parameter("name")
        return .json(.array(groups.filter { $0["name"]?.stringValue?.caseInsensitiveCompare(name) == .orderedSame }))
    }
}
