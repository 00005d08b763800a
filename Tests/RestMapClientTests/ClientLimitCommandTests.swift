import Foundation
import RestMapTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The limits, stop reasons and messages of `restmap get` and `restmap send`, run as the built
/// binary against the sample server on 127.0.0.1. Bounds are checked by the limit the client
/// enforces (its message and exit status), never by a clock.
@Suite("restmap get and send: limits and messages")
struct ClientLimitCommandTests {
    private static func restmap(_ arguments: [String], environment: [String: String] = [:], input: String = "") async throws -> ProcessOutput {
        try await CommandTests.restmap(arguments, environment: environment, input: input)
    }

    /// The lines of standard error.
    private static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n")
    }

    /// `Schemas/articles.yaml` with more named routes (YAML lines indented as under `routes:`), in a
    /// temporary file.
    private static func articlesSchema(routes: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-articles-\(UUID().uuidString).yaml").path
        let text = TestSchemas.articles().replacingOccurrences(of: "\nroutes:\n", with: "\nroutes:\n" + routes + "\n")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What `--format csv` prints for no records: the header alone.
    private static let emptyCSV = "$entity\r\n"

    @Test("A --header whose name is not an HTTP token is a usage error before any request")
    func invalidHeaderName() async throws {
        let result = try await Self.restmap(["get", "--schema", try CommandTests.articlesSchema(), "--base-url", "http://127.0.0.1:9",
                                             "--header", "Bad Name: 1", "/articles"])
        #expect(result.status == 2, "\(result.errors)")
        #expect(result.errors.contains("--header: 'Bad Name' is not a header field name"), "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    // MARK: Values per body (26.8)

    @Test("A small gzip body that inflates to millions of tiny objects is refused by the default value limit, printing nothing")
    func defaultValueLimit() async throws {
        try await SampleServer.with { server in
            let schema = try CommandTests.articlesSchema()
            // 3,400,000 objects of `{"id":1}`: 3 values each (the object, its name, its number), over
            // 10,000,000 in all; about 30 MB inflated from about 200 KB on the wire.
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1",
                                              "--query", "gzip-objects=3400000"])
            #expect(run.status == 3, "\(run.errors)")
            #expect(run.output.isEmpty)
            #expect(run.errors == "restmap: \(server.baseURL)/articles/1?gzip-objects=3400000: the body holds more than 10000000 JSON values, the limit (--max-values)\n")
        }
    }

    @Test("--max-values lowers and raises the value limit")
    func valueLimitFlag() async throws {
        try await SampleServer.with { server in
            let schema = try CommandTests.articlesSchema()
            let base = ["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1", "--query", "gzip-objects=2000"]
            let refused = try await Self.restmap(base + ["--max-values", "5000"])
            #expect(refused.status == 3)
            #expect(refused.output.isEmpty)
            #expect(refused.errors.contains("the body holds more than 5000 JSON values"))
            let mapped = try await Self.restmap(base + ["--max-values", "6002"])
            #expect(mapped.status == 0, "\(mapped.errors)")
            let records = try JSONSerialization.jsonObject(with: Data(mapped.output.utf8)) as? [[String: Any]]
            #expect(records?.count == 2000)
            let zero = try await Self.restmap(base + ["--max-values", "0"])
            #expect(zero.status != 0)
            #expect(zero.errors.contains("--max-values must be a positive number"))
        }
    }

    // MARK: The page cap (26.9)

    /// Articles whose one-article path answers every `?page=N` (endless distinct page URLs).
    private static let endlessRoutes = """
          endless:
            path: /articles/1
            pagination: { kind: page }
          endlessCapped:
            path: /articles/1
            pagination: { kind: page, maxPages: 7 }
        """

    @Test("Endless distinct pages stop at the default cap of 1000: records printed, a warning, exit 4")
    func defaultPageCap() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema(routes: Self.endlessRoutes)
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "endless", "--all-pages",
                                              "--format", "ndjson"])
            #expect(run.status == 4, "\(run.errors)")
            #expect(Self.lines(run.output).count == 1000)
            #expect(run.errors.contains("restmap: 1000 pages, 1000 records, stopped: page cap (1000 pages; more pages follow)\n"))
            #expect(run.errors.hasSuffix("restmap: warning: the result is incomplete: more pages follow; give --max-pages (or the schema's maxPages) to fetch more\n"))
        }
    }

    @Test("--max-pages and the schema's maxPages replace the cap: the run stops there with exit 0")
    func explicitPageLimits() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema(routes: Self.endlessRoutes)
            let flag = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "endless", "--all-pages",
                                               "--max-pages", "5"])
            #expect(flag.status == 0, "\(flag.errors)")
            #expect(flag.errors.hasSuffix("restmap: 5 pages, 5 records, stopped: max pages (5)\n"))
            let schemaLimit = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "endlessCapped", "--all-pages"])
            #expect(schemaLimit.status == 0, "\(schemaLimit.errors)")
            let records = try JSONSerialization.jsonObject(with: Data(schemaLimit.output.utf8)) as? [[String: Any]]
            #expect(records?.count == 7)
            #expect(schemaLimit.errors.hasSuffix("restmap: 7 pages, 7 records, stopped: max pages (7)\n"))
        }
    }

    // MARK: Answers that cannot be used (26.12)

    @Test("A corrupt gzip or deflate body is reported as corrupt, not as a size limit", arguments: ["gzip", "deflate"])
    func corruptEncoding(encoding: String) async throws {
        try await SampleServer.with { server in
            let schema = try CommandTests.articlesSchema()
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1",
                                              "--query", "corrupt-encoding=\(encoding)"])
            #expect(run.status == 3, "\(run.errors)")
            #expect(run.output.isEmpty)
            #expect(run.errors.hasPrefix("restmap: \(server.baseURL)/articles/1?corrupt-encoding=\(encoding): the compressed (gzip/deflate) body is corrupt"))
            #expect(!run.errors.contains("limit"))
            #expect(Self.lines(run.errors).count == 1)
        }
    }

    @Test("A redirect without Location and an unsolicited 304 are errors with their own reasons")
    func unusableStatuses() async throws {
        try await SampleServer.with { server in
            let schema = try CommandTests.articlesSchema()
            let redirect = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1",
                                                   "--query", "redirect="])
            #expect(redirect.status == 3, "\(redirect.errors)")
            #expect(redirect.output.isEmpty)
            #expect(redirect.errors == "restmap: \(server.baseURL)/articles/1?redirect=: answered 302 (a redirect) without a Location header\n")

            let notModified = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/1",
                                                      "--query", "fail=1", "--query", "status=304", "--query", "fault-id=unsolicited-304"])
            #expect(notModified.status == 3, "\(notModified.errors)")
            #expect(notModified.output.isEmpty)
            #expect(notModified.errors.hasSuffix(": answered 304 Not Modified to a request that was not conditional\n"))
        }
    }

    // MARK: RestKit's page size default (21.8)

    /// A page route whose pagination path asks for `:perPage` and gives no `pageSize`.
    private static let perPageRoutes = """
          perPagePath:
            path: /page/articles
            pagination: { kind: page, path: "/page/articles?page=:currentPage&per_page=:perPage" }
        """

    @Test("A :perPage without pageSize sends RestKit's default of 25")
    func defaultPerPage() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema(routes: Self.perPageRoutes)
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "perPagePath", "--all-pages", "--verbose"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.contains("GET \(server.baseURL)/page/articles?page=1&per_page=25 200"))
            let records = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
            #expect(records?.count == 95)
            #expect(records?.last?["id"] as? Int == 95)
        }
    }

    @Test("An API that ignores per_page and answers 10 a page is not cut off after page 1")
    func ignoredPerPage() async throws {
        try await SampleServer.with { server in
            let schema = try Self.articlesSchema(routes: Self.perPageRoutes)
            let run = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "perPagePath", "--all-pages",
                                              "--header", "X-Fault-Ignore-Per-Page: 1"])
            #expect(run.status == 0, "\(run.errors)")
            let records = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
            #expect(records?.count == 95)
            #expect(run.errors.hasSuffix("restmap: 11 pages, 95 records, stopped: empty page\n"))
        }
    }

    // MARK: send without a record (21.9)

    @Test("send --method DELETE without RECORD sends no body and reads no standard input; plurals; a failed send prints nothing")
    func deleteWithoutRecord() async throws {
        try await SampleServer.with { server in
            let delete = ["send", "--schema", "Schemas/tasks.yaml", "--base-url", server.baseURL, "--method", "DELETE", "/tasks/1"]
            let deleted = try await Self.restmap(delete)
            #expect(deleted.status == 0, "\(deleted.errors)")
            #expect(deleted.output == "[]\n")
            #expect(deleted.errors == "restmap: DELETE \(server.baseURL)/tasks/1: 204, 0 records\n")

            let again = try await Self.restmap(delete)
            #expect(again.status == 1)
            #expect(again.output.isEmpty)
            #expect(again.errors.contains("\(server.baseURL)/tasks/1 answered 404"))

            let created = try await Self.restmap(["send", "--schema", "Schemas/tasks.yaml", "--base-url", server.baseURL, "--method", "POST", "/tasks"],
                                                 input: #"{"$entity": "Task", "name": "Read from standard input", "assignedUserID": 3}"#)
            #expect(created.status == 0, "\(created.errors)")
            #expect(created.errors == "restmap: POST \(server.baseURL)/tasks: 201, 1 record\n")
        }
    }

    // MARK: Refused connections (21.12) and failed runs (21.14)

    /// A port on 127.0.0.1 that nothing listens on: bound, read, and closed again.
    private static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw TestSupportError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("A refused connection: one line naming the address, the reason once and the attempts; nothing on standard output")
    func refusedConnection() async throws {
        let port = try Self.closedPort()
        let schema = try CommandTests.articlesSchema()
        let run = try await Self.restmap(["get", "--schema", schema, "--base-url", "http://127.0.0.1:\(port)", "/articles/1"])
        #expect(run.status == 3)
        #expect(run.output.isEmpty)
        #expect(run.errors == "restmap: http://127.0.0.1:\(port)/articles/1: connection refused (4 attempts)\n")
    }

    @Test("A refused connection with --store answers from the store")
    func refusedConnectionReadsStore() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-refused-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        let schema = try CommandTests.articlesSchema()
        try await SampleServer.with { server in
            let saved = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "article", "--param", "id=3",
                                                "--store", database])
            #expect(saved.status == 0, "\(saved.errors)")
        }
        let port = try Self.closedPort()
        let run = try await Self.restmap(["get", "--schema", schema, "--base-url", "http://127.0.0.1:\(port)", "article", "--param", "id=3",
                                          "--store", database])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("http://127.0.0.1:\(port)/articles/3: connection refused (4 attempts)\n"))
        #expect(run.errors.contains("the network failed; reading article from the store"))
        let records = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
        #expect(records?.first?["id"] as? Int == 3)
    }

    @Test("An error response prints nothing on standard output; a run that found nothing prints []", arguments: ["json", "csv"])
    func failedRunPrintsNothing(format: String) async throws {
        try await SampleServer.with { server in
            let schema = try CommandTests.articlesSchema()
            let missing = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/articles/999", "--format", format])
            #expect(missing.status == 1)
            #expect(missing.output.isEmpty)
            #expect(missing.errors == "restmap: \(server.baseURL)/articles/999 answered 404: Article not found\n")

            // The cursor past the last article (offset 95): an empty page.
            let empty = try await Self.restmap(["get", "--schema", schema, "--base-url", server.baseURL, "/cursor/articles",
                                                "--query", "cursor=cur-2n", "--format", format])
            #expect(empty.status == 0, "\(empty.errors)")
            #expect(empty.output == (format == "json" ? "[]\n" : Self.emptyCSV))
            #expect(empty.errors.hasSuffix("restmap: 1 page, 0 records, stopped: empty page\n"))
        }
    }

    @Test("get --help and send --help show examples", arguments: ["get", "send"])
    func helpExamples(command: String) async throws {
        let run = try await Self.restmap([command, "--help"])
        #expect(run.status == 0)
        #expect(run.output.contains("Examples:"))
        #expect(run.output.contains("restmap \(command) --schema Schemas/"))
    }
}
