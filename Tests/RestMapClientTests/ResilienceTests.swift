import Foundation
import HTTPTypes
import RestMapTestSupport
import RestMap
import RestMapClient
import Testing

/// Retries, timeouts and limits against the sample server's faults. Every test is bounded:
/// the retries by attempts and total time, the waits by short timeouts.
@Suite("Resilience")
struct ResilienceTests {
    private func get(_ query: [String: String], path: String = "/articles/1", server arguments: [String] = [],
                     _ change: @escaping (inout ClientConfiguration) -> Void = { _ in }) async throws -> ClientResponse {
        try await SampleServer.with(arguments) { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server, change)) { client in
                try await client.get(path: path, query: query)
            }
        }
    }

    private func failure(_ query: [String: String], path: String = "/articles/1",
                         _ change: @escaping (inout ClientConfiguration) -> Void = { _ in }) async -> ClientError? {
        do {
            _ = try await get(query, path: path, change)
            Issue.record("no error for \(query)")
            return nil
        } catch let error as ClientError {
            return error
        } catch {
            Issue.record("not a ClientError: \(error)")
            return nil
        }
    }

    @Test("502, 503 and 504 are retried until they pass", arguments: [502, 503, 504])
    func retriedStatus(status: Int) async throws {
        let response = try await get(["fail": "2", "status": "\(status)", "fault-id": "s\(status)"])
        #expect(response.status == 200)
        #expect(response.attempts.map { $0.status?.code } == [status, status, 200])
        #expect(response.result.records.first?.id == 1)
    }

    @Test("429 waits as Retry-After says in seconds")
    func retryAfterSeconds() async throws {
        let response = try await get(["fail": "1", "status": "429", "retry-after": "1", "fault-id": "seconds"])
        #expect(response.attempts.map(\.status) == [429, 200])
        #expect(response.attempts.first?.waitedSeconds == 1.0)
    }

    @Test("429 with Retry-After as an HTTP date is retried")
    func retryAfterDate() async throws {
        let response = try await get(["fail": "1", "status": "429", "retry-after-date": "2", "fault-id": "date"])
        #expect(response.attempts.map(\.status) == [429, 200])
    }

    @Test("Retry-After reads seconds and HTTP dates; a date in the past means now")
    func retryAfterValues() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-23T11:42:16Z"))
        #expect(RetryPolicy.retryAfter("Mon, 23 Nov 2026 11:42:21 GMT", now: now) == .seconds(5))
        #expect(RetryPolicy.retryAfter("Mon, 23 Nov 2026 11:42:01 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter(" 7 ", now: now) == .seconds(7))
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
    }

    @Test("Attempts are bounded; the final error lists them")
    func exhausted() async throws {
        let error = try #require(await failure(["fail": "50", "fault-id": "exhausted"]) { $0.retry.attempts = 3 })
        let (status, url, messages, attempts) = try #require(error.errorResponse, "\(error)")
        #expect(status == 503)
        #expect(url.contains("/articles/1"))
        #expect(attempts.count == 3)
        #expect(messages.first?.message.hasPrefix("fault") == true)
        #expect(String(describing: error).contains("3 attempts"))
    }

    @Test("A Retry-After longer than the time left ends the retries")
    func retryAfterBeyondTotal() async throws {
        let error = try #require(await failure(["fail": "5", "status": "429", "retry-after": "600", "fault-id": "long"]))
        let (status, _, _, attempts) = try #require(error.errorResponse, "\(error)")
        #expect(status == 429)
        #expect(attempts.count == 1)
    }

    @Test("POST is not retried unless the schema allows every method")
    func nonIdempotent() async throws {
        try await SampleServer.with { server in
            let mapper = try TestSchemas.repositoryMapper("Schemas/tasks.yaml")
            let task = try mapper.makeRecord(entity: "Task", values: ["name": .string("Retry"), "assignedUserID": .integer(1)])
            try await RestClient.with(mapper: mapper, configuration: TestSchemas.configuration(server)) { client in
                let error = await #expect(throws: ClientError.self) {
                    try await client.send(task, method: .post, path: "/tasks?fail=1&fault-id=post")
                }
                guard case .errorResponse(503, _, _, let attempts)? = error else { Issue.record("\(String(describing: error))"); return }
                #expect(attempts.count == 1)
            }
            var configuration = TestSchemas.configuration(server)
            configuration.retry.allMethods = true
            try await RestClient.with(mapper: mapper, configuration: configuration) { client in
                let response = try await client.send(task, method: .post, path: "/tasks?fail=1&fault-id=post-all")
                #expect(response.status == 201)
                #expect(response.attempts.count == 2)
            }
        }
    }

    @Test("A connection closed mid-body is retried, then reported with exit 3")
    func closedMidBody() async throws {
        let error = await failure(["close": "1"]) { $0.retry.attempts = 2 }
        guard case .transport(let url, _, let attempts)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(url.contains("/articles/1"))
        #expect(attempts.count == 2)
        #expect(error?.exitStatus == 3)
    }

    @Test("A refused connection is retried, then reported")
    func refused() async throws {
        let port = try await SampleServer.with { $0.port }
        let error = await failure([:]) {
            $0.baseURL = "http://127.0.0.1:\(port)"
            $0.retry.attempts = 2
        }
        guard case .transport(_, let reason, let attempts)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("connection"))
        #expect(attempts.count == 2)
    }

    @Test("Malformed JSON and a wrong content type are mapping errors naming the URL", arguments: [
        ["malformed": "1"], ["content-type": "text/html"],
    ])
    func unmappable(query: [String: String]) async throws {
        let error = await failure(query)
        guard case .unmappable(let status, let url, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(status == 200)
        #expect(url.contains("/articles/1"))
        #expect(error?.exitStatus == 1)
    }

    @Test("A 2xx with nothing mappable is an error listing the key paths searched")
    func nothingMappable() async throws {
        let schema = """
            restmap: 1
            entities:
              Article: { attributes: [id, title] }
            responses:
              - { path: /articles/:id, keyPath: data, entity: Article }
            """
        let error = await #expect(throws: ClientError.self) {
            try await SampleServer.with { server in
                try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: TestSchemas.configuration(server)) { client in
                    try await client.get(path: "/articles/3")
                }
            }
        }
        guard case .unmappable(200, let url, .noMappableRepresentations(let searched, _, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(url.hasSuffix("/articles/3"))
        #expect(searched == ["data"])
    }

    @Test("A gzip body is decompressed and mapped")
    func gzip() async throws {
        let response = try await get(["gzip": "1"])
        #expect(response.result.records.first?["title"].value == .string("Article 1"))
    }

    @Test("A slow server hits the read timeout")
    func readTimeout() async throws {
        let error = await failure(["delay": "3000"]) { $0.readTimeout = .milliseconds(500) }
        guard case .transport(_, let reason, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("timed out"))
        #expect(error?.exitStatus == 3)
    }

    @Test("A trickling body hits the read timeout or the request deadline", arguments: [("1500", 1), ("200", 10)])
    func trickle(interval: String, readSeconds: Int) async throws {
        let error = await failure(["trickle": interval], path: "/page/articles") {
            $0.readTimeout = .seconds(readSeconds)
            $0.requestTimeout = .seconds(2)
        }
        guard case .transport(_, let reason, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("timed out"))
    }

    @Test("A body over the limit is refused while it streams", arguments: [
        ["oversize": "3000000"], ["oversize": "3000000", "oversize-chunked": "1"], ["gzip-bomb": "50000000"],
    ])
    func bodyLimit(query: [String: String]) async throws {
        let error = await failure(query) { $0.maxBodyBytes = 1_000_000 }
        guard case .refused(let url, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(url.contains("/articles/1"))
        #expect(reason.contains("limit of 1000000 bytes"))
        #expect(error?.exitStatus == 3)
    }

    @Test("Response headers over the limit are refused")
    func headerLimit() async throws {
        let error = await failure([:], path: "/link/articles") { $0.maxHeaderBytes = 100 }
        guard case .refused(_, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("headers"))
    }

    @Test("Cancelling a request ends it")
    func cancellation() async throws {
        try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                let task = Task { try await client.get(path: "/articles/1", query: ["delay": "20000"]) }
                let received = try await receivedRequests(by: server, waitingFor: 1)
                #expect(received.map(\.target) == ["/articles/1?delay=20000"])
                task.cancel()
                let outcome = await task.result
                guard case .failure(let error) = outcome else { Issue.record("the request was not cancelled"); return }
                #expect(error is ClientError)
            }
        }
    }
}

extension ClientError {
    /// The parts of an `.errorResponse`, `nil` for any other error.
    var errorResponse: (status: HTTPResponse.Status, url: String, messages: [ErrorMessage], attempts: [Attempt])? {
        guard case .errorResponse(let status, let url, let messages, let attempts) = self else { return nil }
        return (status, url, messages, attempts)
    }
}

/// ETag / Last-Modified revalidation and reuse of the mapped result.
@Suite("HTTP caching")
struct CachingTests {
    @Test("A 304 reuses the earlier mapped result without mapping")
    func notModified() async throws {
        try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                let first = try await client.get(path: "/link/articles")
                let second = try await client.get(path: "/link/articles")
                #expect(first.reusedCachedResult == false)
                #expect(second.reusedCachedResult == true)
                #expect(second.status == 304)
                #expect(second.result.records.map(\.id) == first.result.records.map(\.id))
                #expect(client.statistics.mappings == 1)
                #expect(client.statistics.reusedResults == 1)
            }
        }
    }

    @Test("Without the cache every response is mapped")
    func disabled() async throws {
        try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) { $0.cache = false }
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()), configuration: configuration) { client in
                _ = try await client.get(path: "/link/articles")
                let second = try await client.get(path: "/link/articles")
                #expect(second.status == 200)
                #expect(client.statistics.mappings == 2)
            }
        }
    }

    @Test("The cache folder keeps validators across clients; a 304 maps the stored body")
    func cacheDirectory() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) { $0.cacheDirectory = folder }
            let mapper = try TestSchemas.mapper(TestSchemas.articles())
            let first = try await RestClient.with(mapper: mapper, configuration: configuration) { try await $0.get(path: "/link/articles") }
            try await RestClient.with(mapper: mapper, configuration: configuration) { client in
                let second = try await client.get(path: "/link/articles")
                #expect(second.bodyBytes == 0 || second.status == 200)
                #expect(second.result.records.map(\.id) == first.result.records.map(\.id))
                #expect(client.statistics.requests == 1)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
        }
    }
}
