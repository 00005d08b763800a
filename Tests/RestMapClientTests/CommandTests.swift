import Foundation
import RestMapTestSupport
import Testing

/// `restmap get` and `restmap send`, run as the built binary against the sample server.
@Suite("restmap get and send")
struct CommandTests {
    /// Runs the built `restmap` with `arguments`, environment additions and standard input.
    static func restmap(_ arguments: [String], environment: [String: String] = [:], input: String = "") async throws -> ProcessOutput {
        try await offPool {
            try ChildProcess.run(try TestPaths.built("restmap"), arguments, input: Data(input.utf8), environment: environment)
        }
    }

    static func articlesSchema(_ extra: String = "") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-articles-\(UUID().uuidString).yaml").path
        try TestSchemas.articles(extra).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("get --all-pages prints every record and a final line with the stop reason")
    func allPages() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema()
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "pages", "--all-pages"])
            #expect(run.status == 0, "\(run.errors)")
            let records = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
            #expect(records?.count == 95)
            #expect(run.errors.hasSuffix("restmap: 10 pages, 95 records, stopped: last page (pageCount 10)\n"))
        }
    }

    @Test("ndjson streams one line per record; --max-pages and --concurrency")
    func ndjson() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema()
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "offsets", "--all-pages",
                                        "--max-pages", "4", "--concurrency", "3", "--format", "ndjson"])
            #expect(run.status == 0, "\(run.errors)")
            let lines = run.output.split(separator: "\n")
            #expect(lines.count == 40)
            #expect(lines.first?.contains("\"id\":1,") == true)
            #expect(lines.last?.contains("\"id\":40,") == true)
            #expect(run.errors.contains("restmap: 4 pages, 40 records, stopped: max pages (4)"))
        }
    }

    @Test("A looping cursor ends with its reason; a path and --query work")
    func loop() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema()
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/cursor/articles",
                                        "--query", "loop=1", "--all-pages", "--format", "csv"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("$entity,"))
            #expect(run.errors.contains("stopped: loop: cursor seen before"))
        }
    }

    @Test("Bearer auth: exit 0 with the token; exit 1 and a one-line message naming the URL on 401; the token never printed")
    func bearer() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema("auth: { bearer: { env: CLI_TOKEN } }")
            let good = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "bearerArticles", "--verbose"],
                                        environment: ["CLI_TOKEN": "sample-token"])
            #expect(good.status == 0, "\(good.errors)")
            #expect(good.errors.contains("GET \(server.baseURL)/auth/bearer/articles?page=1 200"))
            #expect(!good.errors.contains("sample-token") && !good.output.contains("sample-token"))
            let bad = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "bearerArticles", "--verbose"],
                                       environment: ["CLI_TOKEN": "wrong-token-value"])
            #expect(bad.status == 1)
            #expect(bad.errors.hasSuffix("restmap: \(server.baseURL)/auth/bearer/articles?page=1 answered 401: Bad credentials\n")
                    || bad.errors.contains("answered 401"))
            #expect(!bad.errors.contains("wrong-token-value"))
        }
    }

    @Test("An API key in the query is redacted from the request log")
    func queryKeyRedacted() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema("auth: { apiKey: { name: api_key, in: query, value: { env: CLI_KEY } } }")
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "queryKeyArticles"],
                                       environment: ["CLI_KEY": "sample-api-key", "RESTMAP_LOG": "client=debug,mapping=debug"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.contains("api_key=REDACTED"))
            #expect(run.errors.contains("restmap[mapping] debug:"))
            #expect(!run.errors.contains("sample-api-key"))
        }
    }

    @Test("Transport failures exit 3 naming the URL: a body over --max-body, a refused connection")
    func transportFailures() async throws {
        let port = try await SampleServer.with { server in
            let schema = try Self.articlesSchema()
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1",
                                        "--query", "oversize=2000000", "--max-body", "100000"])
            #expect(run.status == 3)
            #expect(run.errors.contains("\(server.baseURL)/articles/1?oversize=2000000"))
            #expect(run.errors.contains("limit of 100000 bytes"))
            return server.port
        }
        let schema = try Self.articlesSchema("client: { retry: { attempts: 2, delay: 10 } }")
        let run = try await Self.restmap(["get", "--schema", schema, "--base-url", "http://127.0.0.1:\(port)", "/articles/1"])
        #expect(run.status == 3)
        #expect(run.errors.contains("http://127.0.0.1:\(port)/articles/1"))
        #expect(run.errors.contains("2 attempts"))
    }

    @Test("send: a record from standard input as a Rails form; from a file as JSON")
    func send() async throws {
        try await SampleServer.with { server in
            let tasks = try await Self.restmap(["send", "--schema", "Schemas/tasks.yaml", "--base-url", server.baseURL, "--method", "POST",
                                          "/tasks", "-"],
                                         input: #"{"$entity": "Task", "name": "From the CLI", "assignedUserID": 3, "projectID": 456}"#)
            #expect(tasks.status == 0, "\(tasks.errors)")
            #expect(tasks.output.contains("\"name\":\"From the CLI\""))
            #expect(tasks.errors.contains("POST \(server.baseURL)/tasks: 201"))

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-record-\(UUID().uuidString).json")
            try #"{"name": "papers", "databaseID": "Test"}"#.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            let mongo = try await Self.restmap(["send", "--schema", "Schemas/mongohq.yaml", "--base-url", server.baseURL, "--method", "POST",
                                          "--entity", "Collection", "--param", "databaseID=Test", "collections", file.path],
                                         environment: ["MONGOHQ_API_KEY": "sample-api-key"])
            #expect(mongo.status == 0, "\(mongo.errors)")
            #expect(mongo.output.contains("\"name\":\"papers\""))

            let invalid = try await Self.restmap(["send", "--schema", "Schemas/tasks.yaml", "--base-url", server.baseURL, "--method", "POST",
                                            "/tasks", "-"], input: #"{"$entity": "Task", "assignedUserID": 3}"#)
            #expect(invalid.status == 1)
            #expect(invalid.errors.contains("\(server.baseURL)/tasks answered 422: Name can't be blank"))
        }
    }
}
