import Foundation
import HTTPTypes
import RestMapTestSupport
import RestMap
import RestMapClient
import Testing

/// Authentication from the schema, and credentials only to their origin.
@Suite("Authentication")
struct AuthTests {
    private func withClient<T: Sendable>(auth: String, server arguments: [String] = [], environment: [String: String]? = nil,
                               _ body: (RestClient, SampleServer) async throws -> T) async throws -> T {
        try await SampleServer.with(arguments) { server in
            let configuration = TestSchemas.configuration(server) { if let environment { $0.environment = environment } }
            return try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles("auth: \(auth)")),
                                                configuration: configuration) { try await body($0, server) }
        }
    }

    @Test("Each kind of credential is sent and accepted", arguments: [
        ("{ bearer: { env: SAMPLE_TOKEN } }", "bearerArticles"),
        ("{ apiKey: { name: X-API-Key, value: { env: SAMPLE_KEY } } }", "headerKeyArticles"),
        ("{ apiKey: { name: api_key, in: query, value: { env: SAMPLE_KEY } } }", "queryKeyArticles"),
        ("{ basic: { username: { env: SAMPLE_USER }, password: { env: SAMPLE_PASSWORD } } }", "basicArticles"),
    ])
    func credentialKinds(auth: String, route: String) async throws {
        let response = try await withClient(auth: auth) { client, _ in try await client.get(route: route) }
        #expect(response.status == 200)
        #expect(response.result.records.count == 10)
        #expect(!response.url.contains("sample-api-key"), "the URL a response reports carries no credential")
    }

    @Test("A credential given as a plain header is sent, but never reaches the mapped metadata")
    func credentialHeaderStaysOutOfRecords() async throws {
        let schema = TestSchemas.articlesKeepingSentHeaders(response: #"{ path: "/auth/:kind/articles", keyPath: articles, entity: Article }"#)
        let response = try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) { $0.headers = [.init("X-API-Key")!: "sample-api-key", .init("X-Trace")!: "t1"] }
            return try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: configuration) { client in
                try await client.get(path: "/auth/header/articles")
            }
        }
        #expect(response.status == 200, "the header reached the server")
        let sent = try #require(response.result.records.first?["sent"].value)
        #expect(sent["X-Trace"] == .string("t1"))
        #expect(sent["X-API-Key"] == nil)
        #expect(!"\(sent)".contains("sample-api-key"))
    }

    @Test("A wrong secret is a 401 error whose message never shows the secret", arguments: [
        "{ bearer: { env: SAMPLE_TOKEN } }", "{ apiKey: { name: api_key, in: query, value: { env: SAMPLE_KEY } } }",
    ])
    func wrongSecret(auth: String) async throws {
        let secret = "wrong-secret-1234"
        let error = await #expect(throws: ClientError.self) {
            try await withClient(auth: auth, environment: ["SAMPLE_TOKEN": secret, "SAMPLE_KEY": secret]) { client, _ in
                try await client.get(route: auth.contains("bearer") ? "bearerArticles" : "queryKeyArticles")
            }
        }
        guard case .errorResponse(let status, let url, _, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(status == 401)
        #expect(url.contains("/auth/"))
        #expect(!String(describing: error).contains(secret))
        #expect(error?.exitStatus == 1)
    }

    @Test("A missing secret names its variable, before any request")
    func missingSecret() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await withClient(auth: "{ bearer: { env: NOT_SET_ANYWHERE } }", environment: [:]) { client, _ in
                try await client.get(route: "bearerArticles")
            }
        }
        #expect(String(describing: error).contains("NOT_SET_ANYWHERE"))
    }

    @Test("A secret read from a file")
    func secretFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("token")
        try "sample-token\n".write(to: file, atomically: true, encoding: .utf8)
        let response = try await withClient(auth: "{ bearer: { file: \(file.path) } }") { client, _ in
            try await client.get(route: "bearerArticles")
        }
        #expect(response.status == 200)
    }

    @Test("A Link to another origin stops the run there; the other server receives nothing")
    func linkToOtherOrigin() async throws {
        let other = try await SampleServer.start(["--verbose"])
        let pages = try await withClient(auth: "{ bearer: { env: SAMPLE_TOKEN } }") { client, _ in
            try await client.pages(route: "links", query: ["link-origin": other.baseURL]).collect()
        }
        let log = other.stop()
        #expect(pages.count == 1)
        #expect(pages.last?.stopReason == .otherOrigin("127.0.0.1:\(other.port)"))
        #expect(!log.contains("/link/articles"), "the other origin was contacted: \(log)")
    }

    @Test("A trusted origin is paged into, and receives the credentials")
    func trustedOrigin() async throws {
        let other = try await SampleServer.start()
        defer { other.stop() }
        let (pages, redirected) = try await withClient(auth: "{ bearer: { env: SAMPLE_TOKEN } }") { client, _ in
            var configuration = client.configuration
            configuration.trustedOrigins = [other.baseURL]
            return try await RestClient.with(mapper: client.mapper, configuration: configuration) { trusting in
                (try await trusting.pages(route: "links", query: ["link-origin": other.baseURL], maxPages: 3).collect(),
                 try await trusting.get(path: "/articles/1", query: ["redirect": "\(other.baseURL)/auth/bearer/articles"]))
            }
        }
        #expect(pages.map { URL(string: $0.response.finalURL)?.port == other.port } == [false, true, true])
        #expect(pages.last?.stopReason == .maxPages(3))
        #expect(redirected.status == 200)
        #expect(redirected.result.records.count == 10)
    }

    @Test("A redirect to another origin drops every credential", arguments: [
        ("{ bearer: { env: SAMPLE_TOKEN } }", "bearer"),
        ("{ apiKey: { name: X-API-Key, value: { env: SAMPLE_KEY } } }", "header"),
        ("{ apiKey: { name: api_key, in: query, value: { env: SAMPLE_KEY } } }", "query"),
        ("{ basic: { username: { env: SAMPLE_USER }, password: { env: SAMPLE_PASSWORD } } }", "basic"),
    ])
    func redirectDropsCredentials(auth: String, kind: String) async throws {
        let other = try await SampleServer.start()
        defer { other.stop() }
        let target = "\(other.baseURL)/auth/\(kind)/articles"
        let error = await #expect(throws: ClientError.self) {
            try await withClient(auth: auth) { client, _ in
                try await client.get(path: "/articles/1", query: ["redirect": target])
            }
        }
        // The other server answers 401: it did not receive the credential.
        guard case .errorResponse(let status, _, _, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(status == 401)
    }

    @Test("A redirect on the same origin keeps the credentials")
    func sameOriginRedirect() async throws {
        let response = try await withClient(auth: "{ bearer: { env: SAMPLE_TOKEN } }") { client, server in
            try await client.get(path: "/articles/1", query: ["redirect": "\(server.baseURL)/auth/bearer/articles"])
        }
        #expect(response.status == 200)
        #expect(response.finalURL.hasSuffix("/auth/bearer/articles"))
        #expect(response.result.records.count == 10)
    }

    @Test("More than 10 redirects are refused")
    func redirectLoop() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await withClient(auth: "{ bearer: { env: SAMPLE_TOKEN } }") { client, server in
                // The fault header goes with every hop, so every hop redirects again.
                try await client.get(path: "/articles/1", headers: [.init("X-Fault-Redirect")!: "\(server.baseURL)/articles/1"])
            }
        }
        #expect(String(describing: error).contains("more than 10 redirects"))
        #expect(error?.exitStatus == 3)
    }
}

/// RSAPI's token story over HTTP: log in, send the token, log in again once on 401.
@Suite("Session login")
struct SessionTests {
    static let environment = ["RSAPI_EMAIL": "steve@boundaboutwith.us", "RSAPI_PASSWORD": "sample-password"]

    @Test("The client logs in, sends the token, and logs in again once when it expired")
    func tokenFlow() async throws {
        try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) { $0.environment = Self.environment }
            try await RestClient.with(mapper: try TestSchemas.repositoryMapper("Schemas/rsapi.yaml"), configuration: configuration) { client in
                let user = try await client.get(route: "user", parameters: ["id": "3"])
                #expect(user.result.records.first?["userID"].value == .integer(3))
                #expect(client.statistics.requests == 2, "one login, one request")
                let again = try await client.get(route: "user", parameters: ["id": "3"], query: ["expire-token": "1", "fault-id": "session"])
                #expect(again.status == 200)
                #expect(again.attempts.count == 2)
                #expect(client.statistics.requests == 5, "the 401, a new login, the request again")
            }
        }
    }

    @Test("A wrong password is a 401 from the login route, password not shown")
    func wrongPassword() async throws {
        try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) {
                $0.environment = ["RSAPI_EMAIL": "steve@boundaboutwith.us", "RSAPI_PASSWORD": "not-the-password"]
            }
            let error = await #expect(throws: ClientError.self) {
                try await RestClient.with(mapper: try TestSchemas.repositoryMapper("Schemas/rsapi.yaml"), configuration: configuration) { client in
                    try await client.get(route: "user", parameters: ["id": "3"])
                }
            }
            #expect(String(describing: error).contains("/api/users/login"))
            #expect(String(describing: error).contains("401"))
            #expect(!String(describing: error).contains("not-the-password"))
        }
    }
}
