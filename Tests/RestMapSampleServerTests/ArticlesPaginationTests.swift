import RestMapTestSupport
import Testing

@Suite("Articles in every pagination kind")
struct ArticlesPaginationTests {
    static let allIDs = (1...95).map(String.init)

    @Test func pageKindStatesPagesAndObjectsAndEndsShort() async throws {
        try await SampleServer.with { server async throws in
            var ids: [String] = []
            for page in 1...10 {
                let body = try await server.json("GET", "/page/articles?page=\(page)&per_page=10")
                #expect(body["pagination"]?["total_pages"]?.int == 10)
                #expect(body["pagination"]?["total_objects"]?.int == 95)
                #expect(body["pagination"]?["page"]?.int == page)
                ids += body["articles"]?.column("id") ?? []
            }
            #expect(ids == Self.allIDs)
            #expect(try await server.json("GET", "/page/articles?page=10")["articles"]?.count == 5)
            #expect(try await server.json("GET", "/page/articles?page=11")["articles"]?.count == 0)
            #expect(try await server.json("GET", "/page/articles?page_number=2&per_page=50")["articles"]?.column("id") == (51...95).map(String.init))
            _ = try await server.json("GET", "/page/articles?page=0", status: 400)
        }
    }

    @Test func offsetKindCountsFromZero() async throws {
        try await SampleServer.with(["--articles", "23"]) { server async throws in
            var ids: [String] = []
            var offset = 0
            while offset < 100 {
                let body = try await server.json("GET", "/offset/articles?offset=\(offset)&limit=10")
                #expect(body["meta"]?["total"]?.int == 23)
                let page = body["articles"]?.column("id") ?? []
                if page.isEmpty { break }
                ids += page
                offset += 10
            }
            #expect(ids == (1...23).map(String.init))
            #expect(offset == 30)
        }
    }

    /// Follows cursors (from the body or the header) at most `limit` times; the ids and cursors seen.
    static func followCursors(_ server: SampleServer, path: String, extra: String = "", inHeader: Bool, limit: Int = 30) async throws -> (ids: [String], cursors: [String]) {
        var cursor: String?
        var ids: [String] = []
        var cursors: [String] = []
        for _ in 0..<limit {
            let reply = try await server.send("GET", path + "?limit=20" + extra + (cursor.map { "&cursor=" + $0 } ?? ""))
            #expect(reply.status == 200)
            let body = try reply.json()
            if inHeader {
                ids += body.column("id")
                cursor = reply.header("X-Next-Cursor")
            } else {
                ids += body["articles"]?.column("id") ?? []
                cursor = body["next_cursor"]?.stringValue
                #expect(cursor != nil || body["next_cursor"]?.isNull == true)
            }
            guard let next = cursor else { break }
            if cursors.contains(next) { cursors.append(next); break }
            cursors.append(next)
        }
        return (ids, cursors)
    }

    @Test func cursorInTheBodyEndsWithNull() async throws {
        try await SampleServer.with { server async throws in
            let walked = try await Self.followCursors(server, path: "/cursor/articles", inHeader: false)
            #expect(walked.ids == Self.allIDs)
            #expect(walked.cursors.count == 4)
            #expect(Set(walked.cursors).count == 4)
            _ = try await server.json("GET", "/cursor/articles?cursor=bogus", status: 400)
        }
    }

    @Test func cursorInAHeaderEndsWithoutTheHeader() async throws {
        try await SampleServer.with { server async throws in
            let walked = try await Self.followCursors(server, path: "/header-cursor/articles", inHeader: true)
            #expect(walked.ids == Self.allIDs)
            #expect(walked.cursors.count == 4)
        }
    }

    @Test func loopingCursorRepeatsFromTheSecondPage() async throws {
        try await SampleServer.with { server async throws in
            for (path, inHeader) in [("/cursor/articles", false), ("/header-cursor/articles", true)] {
                let walked = try await Self.followCursors(server, path: path, extra: "&loop=1", inHeader: inHeader)
                #expect(walked.cursors.count == 2)
                #expect(walked.cursors[0] == walked.cursors[1])
                #expect(walked.ids == (1...40).map(String.init))
            }
        }
    }

    @Test func linkKindKeepsOtherParametersAndCanPointElsewhere() async throws {
        try await SampleServer.with { server async throws in
            let walked = try await GitHubTests.walk(server, "/link/articles?per_page=30&fault-id=links")
            #expect(walked.pages == 4)
            #expect(walked.ids == Self.allIDs)
            let first = try await server.send("GET", "/link/articles?fault-id=links")
            #expect(first.links["next"] == "http://127.0.0.1:\(server.port)/link/articles?fault-id=links&page=2&per_page=10")
            let looping = try await GitHubTests.walk(server, "/link/articles?per_page=10&loop=1")
            #expect(looping.ids == (1...20).map(String.init))
            #expect(looping.repeated == "http://127.0.0.1:\(server.port)/link/articles?loop=1&page=2&per_page=10")
            let elsewhere = try await server.send("GET", "/link/articles?link-origin=http%3A%2F%2F127.0.0.1%3A9")
            #expect(elsewhere.links["next"]?.hasPrefix("http://127.0.0.1:9/link/articles?") == true)
        }
    }

    @Test func singleArticleAndValidators() async throws {
        try await SampleServer.with { server async throws in
            let reply = try await server.send("GET", "/articles/7")
            #expect(try reply.json()["title"]?.stringValue == "Article 7")
            let tag = try #require(reply.header("ETag"))
            #expect(try await server.send("GET", "/articles/7", headers: ["If-None-Match": tag]).status == 304)
            #expect(try await server.send("GET", "/page/articles", headers: ["If-Modified-Since": "Wed, 01 Jan 2025 00:00:00 GMT"]).status == 304)
            _ = try await server.json("GET", "/articles/96", status: 404)
        }
    }
}
