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

    nonisolated func register(in table: inout RouteTable) {
        table.add(.post, "/api/users/login") { request in await self.login(request, fields: request.bodyObject()) }
        table.add(.get, "/api/users/login") { request in
            await self.login(request, fields: .object(request.query.map { JSONValue.Member(key: $0.name, value: .string($0.value)) }))
        }
        func authenticated(_ method: HTTPRequest.Method, _ path: String, _ action: @escaping @Sendable (RSAPIAPI, RouteRequest) async -> Reply) {
            table.add(method, path) { request in
                if let refusal = await self.refusal(request) { return refusal }
                return await action(self, request)
            }
        }
        authenticated(.post, "/api/tokens/expire") { api, _ in await api.expireAll() }
        authenticated(.get, "/api/users") { api, _ in await .json(.array(api.users)) }
        authenticated(.post, "/api/users") { api, request in await api.createUser(request) }
        authenticated(.get, "/api/users/:id") { api, request in await api.user(request) }
        authenticated(.get, "/api/groups/:id/all_named/:name") { api, request in api.groupsNamed(request) }
        authenticated(.get, "/path/to/objects") { api, _ in .json(bytes: api.many) }
        authenticated(.get, "/path/to/data") { api, _ in .json(bytes: api.rawData) }
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
    private nonisolated static func token(_ request: RouteRequest) -> String? {
        if let bearer = Credentials.authorization(request.headers, schemes: ["Bearer"]) { return bearer }
        if let rails = Credentials.authorization(request.headers, schemes: ["Token"]) {
            let value = rails.hasPrefix("token=") ? rails.dropFirst("token=".count) : Substring(rails)
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return request.headers[.apiToken] ?? request.query("api_token")
    }

    /// The `401` for a request without a live token (or one `expire-token` refuses), `nil` otherwise.
    private func refusal(_ request: RouteRequest) async -> Reply? {
        guard let token = Self.token(request) else { return .error(.unauthorized, "error", "Authentication required") }
        let expired = await faultCounter.shouldFault(
            kind: "expire-token", key: request.faults.key(method: request.method, path: request.path), limit: request.faults.expireToken
        )
        guard !expired, liveTokens.contains(token) else {
            return .unauthorized("error", "Invalid or expired token", challenge: "Token realm=\"rsapi\"")
        }
        return nil
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
