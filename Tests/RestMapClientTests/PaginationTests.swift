import Foundation
import RestMapTestSupport
import RestMap
import RestMapClient
import Testing

/// Every pagination kind against the sample server's articles (95 by default), each ending with
/// its stated stop reason.
@Suite("Pagination")
struct PaginationTests {
    private func run(_ route: String, query: [String: String] = [:], maxPages: Int? = nil, concurrency: Int = 1,
                     server arguments: [String] = [], schema: String = TestSchemas.articles()) async throws -> [Page] {
        try await SampleServer.with(arguments) { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: TestSchemas.configuration(server)) { client in
                try await client.pages(route: route, query: query, maxPages: maxPages, concurrency: concurrency).collect()
            }
        }
    }

    private func ids(_ pages: [Page]) -> [Int64] { pages.flatMap { $0.records.compactMap(\.id) } }

    @Test("page: stops at the last page by pageCount, every article once and in order")
    func pageCount() async throws {
        let pages = try await run("pages")
        #expect(pages.count == 10)
        #expect(ids(pages) == Array(1...95))
        #expect(pages.last?.stopReason == .lastPage(pageCount: 10))
        #expect(pages.dropLast().allSatisfy { $0.stopReason == nil })
    }

    @Test("page: stops when the records reach objectCount")
    func objectCount() async throws {
        let pages = try await run("pagesByObjects", server: ["--articles", "100"])
        #expect(ids(pages) == Array(1...100))
        #expect(pages.last?.stopReason == .lastObject(objectCount: 100))
    }

    @Test("page: a page shorter than pageSize is the last")
    func shortPage() async throws {
        let pages = try await run("pagesSized")
        #expect(pages.count == 10)
        #expect(pages.last?.stopReason == .shortPage(records: 5, pageSize: 10))
    }

    @Test("page: without counts or sizes an empty page ends the run")
    func emptyPage() async throws {
        let pages = try await run("pagesUnsized", server: ["--articles", "40"])
        #expect(ids(pages) == Array(1...40))
        #expect(pages.count == 5)
        #expect(pages.last?.records.isEmpty == true)
        #expect(pages.last?.stopReason == .emptyPage)
    }

    @Test("page: a pagination path pattern fills :currentPage and :perPage")
    func pathPattern() async throws {
        let pages = try await run("pagesByPath")
        #expect(pages.count == 5)
        #expect(pages.first?.response.url.hasSuffix("/page/articles?page_number=1&per_page=20") == true)
        #expect(ids(pages) == Array(1...95))
        #expect(pages.last?.stopReason == .lastPage(pageCount: 5))
    }

    @Test("The page limit stops a longer collection", arguments: ["pages", "offsets", "cursors", "headerCursors", "links"])
    func maxPages(route: String) async throws {
        let pages = try await run(route, maxPages: 3)
        #expect(pages.count == 3)
        #expect(ids(pages) == Array(1...30))
        #expect(pages.last?.stopReason == .maxPages(3))
    }

    @Test("offset: stops by objectCount; a short page without a count")
    func offsets() async throws {
        let counted = try await run("offsets")
        #expect(ids(counted) == Array(1...95))
        #expect(counted.last?.stopReason == .lastObject(objectCount: 95))
        let uncounted = try await run("offsetsUncounted")
        #expect(ids(uncounted) == Array(1...95))
        #expect(uncounted.last?.stopReason == .shortPage(records: 5, pageSize: 10))
    }

    @Test("offset: an empty page when the total divides evenly and nothing counts")
    func offsetEmpty() async throws {
        let pages = try await run("offsetsUncounted", server: ["--articles", "30"])
        #expect(ids(pages) == Array(1...30))
        #expect(pages.last?.stopReason == .emptyPage)
    }

    @Test("cursor: in the body and in a header, to the end")
    func cursors() async throws {
        for route in ["cursors", "headerCursors"] {
            let pages = try await run(route)
            #expect(ids(pages) == Array(1...95), "\(route)")
            #expect(pages.last?.stopReason == .noNextCursor, "\(route)")
        }
    }

    @Test("cursor: a repeating cursor stops as a loop, in the body and in a header")
    func cursorLoop() async throws {
        for route in ["cursors", "headerCursors"] {
            let pages = try await run(route, query: ["loop": "1"])
            guard case .repeatedCursor? = pages.last?.stopReason else {
                Issue.record("\(route): stopped by \(String(describing: pages.last?.stopReason))")
                continue
            }
            #expect(pages.count <= 4, "\(route)")
        }
    }

    @Test("link: follows rel=next to the end; page size as a query parameter")
    func links() async throws {
        let pages = try await run("links", query: ["per_page": "25"])
        #expect(pages.count == 4)
        #expect(ids(pages) == Array(1...95))
        #expect(pages.last?.stopReason == .noNextLink)
    }

    @Test("link: a next URL seen before stops as a loop")
    func linkLoop() async throws {
        let pages = try await run("links", query: ["loop": "1"])
        #expect(pages.count == 2)
        #expect(ids(pages) == Array(1...20))
        guard case .repeatedURL(let url)? = pages.last?.stopReason else {
            Issue.record("stopped by \(String(describing: pages.last?.stopReason))")
            return
        }
        #expect(url.contains("/link/articles?"))
    }

    @Test("Concurrent pages arrive in order with the same records and stop reason", arguments: ["pages", "offsets"])
    func concurrency(route: String) async throws {
        let serial = try await run(route)
        let parallel = try await run(route, concurrency: 4)
        #expect(ids(parallel) == ids(serial))
        #expect(parallel.map(\.number) == Array(1...parallel.count))
        #expect(parallel.last?.stopReason == serial.last?.stopReason)
    }

    @Test("A next page named by headers is requested while the page is mapped: one request per page, none past the last or the limit",
          arguments: ["links", "pages", "offsets"], [nil, 3] as [Int?])
    func requestsAhead(route: String, maxPages: Int?) async throws {
        let (pages, requests) = try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                (try await client.pages(route: route, maxPages: maxPages).collect(), client.statistics.requests)
            }
        }
        let last: Int64 = maxPages.map { Int64($0) * 10 } ?? 95
        #expect(ids(pages) == Array(1...last))
        #expect(requests == pages.count)
    }

    @Test("A page sequence fetches at most two pages ahead of a consumer that has not asked for more")
    func pagesWaitForTheConsumer() async throws {
        let (afterFirst, total) = try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                var pages = client.pages(route: "pages").makeAsyncIterator()
                _ = try await pages.next()
                // Give a fetcher that does not wait every chance to run ahead (bounded: 1 s).
                for _ in 0..<100 where client.statistics.requests <= 3 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let afterFirst = client.statistics.requests
                var total = 1
                while try await pages.next() != nil { total += 1 }
                return (afterFirst, total)
            }
        }
        #expect(total == 10)
        // The first page, the page mapped next, and the one read ahead of it.
        #expect(afterFirst <= 3, "\(afterFirst) requests before the second page was asked for")
    }

    @Test("A page sequence requests nothing until it is iterated: its first URL alone stays off the network")
    func firstURLAloneSendsNothing() async throws {
        let (firstURL, untouched, received, iterated) = try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                let sequence = client.pages(route: "pages", maxPages: 2)
                let untouched = client.statistics.requests
                // One whole exchange of the same client: a page request started on its own
                // would reach the server alongside it.
                _ = try await client.get(path: "/articles/1")
                let received = try await receivedRequests(by: server, waitingFor: 1)
                _ = try await sequence.collect()
                return (sequence.firstURL, untouched, received, client.statistics.requests)
            }
        }
        #expect(firstURL?.contains("/articles") == true)
        #expect(untouched == 0)
        #expect(received == [ReceivedRequest(method: "GET", target: "/articles/1")])
        #expect(iterated == 3)
    }

    @Test("Concurrency honours the page limit")
    func concurrencyLimit() async throws {
        let pages = try await run("pages", maxPages: 4, concurrency: 3)
        #expect(ids(pages) == Array(1...40))
        #expect(pages.last?.stopReason == .maxPages(4))
    }

    @Test("A route without pagination is one page, not paginated")
    func notPaginated() async throws {
        let pages = try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                try await client.pages(route: "article", parameters: ["id": "7"]).collect()
            }
        }
        #expect(pages.count == 1)
        #expect(ids(pages) == [7])
        #expect(pages.first?.stopReason == .notPaginated)
    }

    @Test("A path uses the pagination of the route it matches")
    func pathMatchesRoute() async throws {
        let pages = try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(TestSchemas.articles()),
                                         configuration: TestSchemas.configuration(server)) { client in
                try await client.pages(path: "/cursor/articles").collect()
            }
        }
        #expect(ids(pages) == Array(1...95))
        #expect(pages.last?.stopReason == .noNextCursor)
    }
}
