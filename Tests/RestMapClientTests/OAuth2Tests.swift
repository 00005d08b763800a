import Foundation
import RestMap
import RestMapClient
import RestMapTestSupport
import Testing

/// `auth: { oauth2: … }` against the sample server's token endpoint (rotating refresh tokens)
/// and its bearer-protected `/oauth/items`.
@Suite("OAuth 2.0")
struct OAuth2Tests {
    static let initialRefreshToken = "sample-refresh-token"
    static let environment = ["OAUTH_ID": "sample-client", "OAUTH_SECRET": "sample-client-secret", "OAUTH_REFRESH": initialRefreshToken]

    static func schema(_ oauth2: String) -> String {
        """
        restmap: 1
        auth:
          oauth2: \(oauth2)
        entities:
          Item: { attributes: { id: { type: integer }, name: name } }
        responses:
          - { path: /oauth/items, keyPath: items, entity: Item }
        """
    }

    static let refreshGrant = "{ tokenURL: /oauth/token, grant: refreshToken, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET }, refreshToken: { env: OAUTH_REFRESH }, tokenStore: state/token.json }"

    /// A temporary folder, removed after `body`.
    static func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    /// Runs `body` with a client of `oauth2` whose relative files are in `folder`.
    static func withClient<T: Sendable>(_ server: SampleServer, _ oauth2: String, folder: URL? = nil,
                                        environment: [String: String] = environment,
                                        _ body: (RestClient) async throws -> T) async throws -> T {
        let configuration = TestSchemas.configuration(server) {
            $0.environment = environment
            $0.secretsDirectory = folder?.path
            $0.cache = false
        }
        return try await RestClient.with(mapper: try TestSchemas.mapper(schema(oauth2)), configuration: configuration, body)
    }

    static func storedToken(_ folder: URL) throws -> String? {
        let data = try Data(contentsOf: folder.appendingPathComponent("state/token.json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["refresh_token"] as? String
    }

    static func tokenRequests(_ server: SampleServer, waitingFor count: Int) async throws -> Int {
        try await receivedRequests(by: server, waitingFor: count).filter { $0.method == "POST" && $0.target == "/oauth/token" }.count
    }

    @Test("Client credentials, with the client authenticated by Basic or in the body; the token is reused", arguments: ["basic", "post"])
    func clientCredentials(authentication: String) async throws {
        try await SampleServer.with { server in
            let statistics = try await Self.withClient(server, "{ tokenURL: /oauth/token, grant: clientCredentials, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET }, clientAuthentication: \(authentication), scopes: [items.read] }") { client in
                for _ in 1...3 {
                    let response = try await client.get(path: "/oauth/items")
                    #expect(response.status == 200)
                    #expect(response.result.records.count == 5)
                }
                return client.statistics
            }
            #expect(statistics.tokenRequests == 1)
        }
    }

    @Test("A wrong client secret fails with the endpoint's error, never showing the secret")
    func wrongSecret() async throws {
        try await SampleServer.with { server in
            let error = await #expect(throws: ClientError.self) {
                try await Self.withClient(server, "{ tokenURL: /oauth/token, grant: clientCredentials, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET } }",
                                          environment: ["OAUTH_ID": "sample-client", "OAUTH_SECRET": "not-the-secret-42"]) { client in
                    try await client.get(path: "/oauth/items")
                }
            }
            let text = String(describing: error)
            #expect(text.contains("invalid_client"), "\(text)")
            #expect(!text.contains("not-the-secret-42"))
        }
    }

    @Test("A rotated refresh token is stored (0600) before it is used; the next client starts from it; the initial token is spent")
    func rotation() async throws {
        try await SampleServer.with { server in
            try await Self.withFolder { folder in
                let first = try await Self.withClient(server, Self.refreshGrant, folder: folder) { client in
                    let records = try await client.get(path: "/oauth/items").result.records
                    #expect(records.count == 5)
                    return client.statistics
                }
                #expect(first.tokenRequests == 1)
                let store = folder.appendingPathComponent("state/token.json").path
                let stored = try #require(try Self.storedToken(folder))
                #expect(stored != Self.initialRefreshToken)
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: store)[.posixPermissions] as? Int)
                #expect(mode & 0o777 == 0o600)
                #expect(FileManager.default.fileExists(atPath: store + ".lock"))

                // A new client (the configured initial token unchanged) starts from the stored token.
                let second = try await Self.withClient(server, Self.refreshGrant, folder: folder) { client in
                    let records = try await client.get(path: "/oauth/items").result.records
                    #expect(records.count == 5)
                    return client.statistics
                }
                #expect(second.tokenRequests == 1)
                let restored = try #require(try Self.storedToken(folder))
                #expect(restored != stored, "rotated again")

                // The initial token itself is spent: a client without the store is refused.
                let error = await #expect(throws: ClientError.self) {
                    try await Self.withClient(server, "{ tokenURL: /oauth/token, grant: refreshToken, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET }, refreshToken: { env: OAUTH_REFRESH } }") { client in
                        try await client.get(path: "/oauth/items")
                    }
                }
                #expect(String(describing: error).contains("invalid_grant"))
                #expect(!String(describing: error).contains(Self.initialRefreshToken))
            }
        }
    }

    @Test("A 401 refreshes the token exactly once and repeats the request")
    func refreshOn401() async throws {
        try await SampleServer.with { server in
            try await Self.withFolder { folder in
                let statistics = try await Self.withClient(server, Self.refreshGrant, folder: folder) { client in
                    let first = try await client.get(path: "/oauth/items")
                    #expect(first.status == 200)
                    _ = try? await client.send(method: .post, path: "/oauth/expire")
                    let again = try await client.get(path: "/oauth/items")
                    #expect(again.status == 200)
                    #expect(again.attempts.count == 2, "the refused attempt and the repeated one")
                    return client.statistics
                }
                #expect(statistics.tokenRequests == 2)
                // token, items, expire, items (401), token, items; then the log's own request
                let posted = try await Self.tokenRequests(server, waitingFor: 6)
                #expect(posted == 2)
            }
        }
    }

    @Test("A token the server keeps refusing: one refresh, then the 401 is the answer")
    func refusedTwice() async throws {
        try await SampleServer.with { server in
            let error = await #expect(throws: ClientError.self) {
                try await Self.withClient(server, "{ tokenURL: /oauth/token, grant: clientCredentials, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET } }") { client in
                    do { return try await client.get(path: "/oauth/items", query: ["expire-token": "5", "fault-id": "always"]) } catch {
                        #expect(client.statistics.tokenRequests == 2)
                        throw error
                    }
                }
            }
            guard case .errorResponse(let status, _, _, _)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(status == 401)
            let posted = try await Self.tokenRequests(server, waitingFor: 4)
            #expect(posted == 2)
        }
    }

    @Test("Concurrent restmap processes share the token store under its lock: each refreshes from the latest token")
    func concurrentProcesses() async throws {
        try await SampleServer.with { server in
            try await Self.withFolder { folder in
                let schema = folder.appendingPathComponent("api.yaml").path
                try Self.schema(Self.refreshGrant).write(toFile: schema, atomically: true, encoding: .utf8)
                let runs = try await withThrowingTaskGroup(of: ProcessOutput.self) { group in
                    for _ in 1...3 {
                        group.addTask {
                            try await CommandTests.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/oauth/items", "--verbose"],
                                                           environment: Self.environment)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let stored = try #require(try Self.storedToken(folder))
                for run in runs {
                    #expect(run.status == 0, "\(run.errors)")
                    #expect(run.output.contains("secret item 1"))
                    #expect(!run.errors.contains(stored) && !run.output.contains(stored), "the refresh token is never printed")
                    #expect(!run.errors.contains("sample-client-secret"))
                }
                // Three refreshes in a row, each with the token the one before stored.
                let posted = try await Self.tokenRequests(server, waitingFor: 6)
                #expect(posted == 3)
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("state/token.json").path)[.posixPermissions] as? Int)
                #expect(mode & 0o777 == 0o600)
            }
        }
    }
}
