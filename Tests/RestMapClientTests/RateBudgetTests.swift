import Foundation
import RestMap
import RestMapClient
import RestMapTestSupport
import Testing

/// The request budget and the servers' rate-limit headers, against the sample server's
/// `/limited/items` (a fixed window that answers 429 beyond its budget). The assertions count:
/// 429s the server refused (`/limited/stats`), waits the client recorded.
@Suite("Rate budget")
struct RateBudgetTests {
    static let schema = """
        restmap: 1
        entities:
          Item: { attributes: { id: { type: integer }, name: name } }
          Stats: { identifiedBy: limit, attributes: { allowed: { type: integer }, refused: { type: integer }, limit: { type: integer } } }
        responses:
          - { path: /limited/items, keyPath: items, entity: Item }
          - { path: /limited/stats, entity: Stats }
        """

    /// The requests `server` allowed and refused with 429.
    static func stats(_ server: SampleServer) async throws -> (allowed: Int64, refused: Int64) {
        let configuration = TestSchemas.configuration(server) { $0.cache = false; $0.honoursServerRateLimits = false }
        let response = try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: configuration) { client in
            try await client.get(path: "/limited/stats")
        }
        let record = try #require(response.result.records.first)
        func number(_ key: String) -> Int64 { if case .integer(let value)? = record[key].value { value } else { -1 } }
        return (number("allowed"), number("refused"))
    }

    /// `count` requests of pages at once with the client's budget and header handling.
    static func concurrentPages(_ server: SampleServer, count: Int, _ change: @escaping (inout ClientConfiguration) -> Void) async throws -> ClientStatistics {
        let configuration = TestSchemas.configuration(server) { $0.cache = false; change(&$0) }
        return try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: configuration) { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for page in 1...count {
                    group.addTask { try await client.get(path: "/limited/items", query: ["page": String((page - 1) % 20 + 1)]).result.records.count }
                }
                var records = 0
                for try await count in group { records += count }
                #expect(records == count * 10)
            }
            return client.statistics
        }
    }

    @Test("The budget keeps concurrent requests under the server's limit: no 429, the waits counted")
    func budgetAvoids429() async throws {
        try await SampleServer.with(["--rate-limit", "10/1"]) { server in
            // At most burst + rate × 1 s = 1 + 4 = 5 requests in any second, half the server's 10
            // (the margin absorbs late wake-ups on a busy machine); the server's headers are
            // ignored here, so the budget alone keeps the pace.
            let statistics = try await Self.concurrentPages(server, count: 16) {
                $0.requestBudget = RequestBudget(requests: 4, per: .seconds(1), burst: 1)
                $0.honoursServerRateLimits = false
            }
            let seen = try await Self.stats(server)
            #expect(seen.refused == 0)
            #expect(seen.allowed == 16)
            #expect(statistics.requests == 16, "no retry was needed")
            #expect(statistics.rateLimitWaits >= 1)
            #expect(statistics.rateLimitWaitSeconds > 0)
        }
    }

    @Test("Without the budget and the headers the same requests meet 429s (the control of the test above)")
    func withoutBudget() async throws {
        try await SampleServer.with(["--rate-limit", "10/1"]) { server in
            let statistics = try await Self.concurrentPages(server, count: 24) { $0.honoursServerRateLimits = false }
            let refused = try await Self.stats(server).refused
            #expect(refused > 0)
            #expect(statistics.rateLimitWaits == 0)
        }
    }

    @Test("The server's headers hold requests until its reset: no 429", arguments: [
        ["headers": "x"], ["headers": "x", "reset-format": "epoch"], ["headers": "ietf"], [:],
    ])
    func headersAvoid429(query: [String: String]) async throws {
        // 3 requests per 2-second window: 5 requests in a row span two windows, so they wait for a
        // reset at least once (unless the first three took the whole window).
        try await SampleServer.with(["--rate-limit", "3/2"]) { server in
            let configuration = TestSchemas.configuration(server) { $0.cache = false }
            let statistics = try await RestClient.with(mapper: try TestSchemas.mapper(Self.schema), configuration: configuration) { client in
                for page in 1...5 {
                    let response = try await client.get(path: "/limited/items", query: query.merging(["page": String(page)]) { a, _ in a })
                    #expect(response.result.records.count == 10)
                }
                return client.statistics
            }
            let refused = try await Self.stats(server).refused
            #expect(refused == 0)
            #expect(statistics.requests == 5)
            #expect(statistics.rateLimitWaits >= 1)
        }
    }

    @Test("The schema's client.rateLimit becomes the configuration's budget")
    func schemaBudget() throws {
        let mapper = try TestSchemas.mapper(Self.schema + "\nclient: { rateLimit: { requests: 10, per: 2, burst: 3 } }\n")
        let configuration = ClientConfiguration(schema: mapper.schema)
        #expect(configuration.requestBudget == RequestBudget(requests: 10, per: .seconds(2), burst: 3))
        #expect(configuration.honoursServerRateLimits)
    }

    @Test("restmap get pages through a limited server within the schema's budget and logs its waits")
    func command() async throws {
        try await SampleServer.with(["--rate-limit", "10/1"]) { server in
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-limited-\(UUID().uuidString).yaml").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try (Self.schema + """

                routes:
                  items: { path: /limited/items, pagination: { kind: page, query: { page: ":currentPage" }, pageCount: pages } }
                client: { rateLimit: { requests: 6, per: 1, burst: 2 } }
                """).write(toFile: path, atomically: true, encoding: .utf8)
            let run = try await CommandTests.restmap(["get", "--schema", path, "--base-url", server.baseURL, "items", "--all-pages"],
                                                     environment: ["RESTMAP_LOG": "client=notice"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.contains("20 pages, 200 records"), "\(run.errors)")
            #expect(run.errors.contains("request budget (6 per 1 s, burst 2)"), "\(run.errors)")
            let refused = try await Self.stats(server).refused
            #expect(refused == 0)
        }
    }
}
