import Foundation
import RestMapTestSupport
import Testing

@Suite("GitHub-like users, repositories and starred")
struct GitHubTests {
    static let bearer = ["Authorization": "Bearer sample-token"]

    /// Follows `rel="next"` from `target` until there is none or it names a URL seen before, at
    /// most `limit` pages: the pages, their element ids and the repeated URL.
    static func walk(
        _ server: SampleServer, _ target: String, headers: [String: String] = [:], limit: Int = 50
    ) async throws -> (pages: Int, ids: [String], repeated: String?) {
        let origin = "http://127.0.0.1:\(server.port)"
        var next: String? = origin + target
        var seen: Set<String> = []
        var pages = 0
        var ids: [String] = []
        while let current = next, pages < limit {
            guard seen.insert(current).inserted else { return (pages, ids, current) }
            #expect(current.hasPrefix(origin + "/"))
            let reply = try await server.send("GET", String(current.dropFirst(origin.count)), headers: headers)
            #expect(reply.status == 200, "GET \(current)")
            ids += try reply.json().column("id")
            pages += 1
            next = reply.links["next"]
        }
        return (pages, ids, nil)
    }

    @Test func userEndpointsNeedTheBearerToken() async throws {
        try await SampleServer.with { server async throws in
            let missing = try await server.send("GET", "/user")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try missing.json()["message"]?.stringValue == "Requires authentication")
            #expect(try await server.json("GET", "/user", headers: ["Authorization": "Bearer nope"], status: 401)["message"]?.stringValue == "Bad credentials")
            #expect(try await server.json("GET", "/user", headers: Self.bearer)["login"]?.stringValue == "octocat")
            #expect(try await server.json("GET", "/user", headers: ["Authorization": "token sample-token"])["public_repos"]?.int == 2)
        }
    }

    @Test func tokenIsConfigurable() async throws {
        try await SampleServer.with(["--token", "other-token"]) { server async throws in
            #expect(try await server.send("GET", "/user", headers: Self.bearer).status == 401)
            #expect(try await server.send("GET", "/user", headers: ["Authorization": "Bearer other-token"]).status == 200)
        }
    }

    @Test func usersAndRepositoriesByName() async throws {
        try await SampleServer.with { server async throws in
            #expect(try await server.json("GET", "/users/RestKit")["id"]?.int == 200917)
            #expect(try await server.json("GET", "/users/no-such-user-xyz", status: 404)["message"]?.stringValue == "Not Found")
            #expect(try await server.json("GET", "/repos/octocat/Spoon-Knife")["stargazers_count"]?.int == 1203)
            #expect(try await server.json("GET", "/repos/octocat/repo-00007")["full_name"]?.stringValue == "octocat/repo-00007")
            _ = try await server.json("GET", "/repos/octocat/repo-99999", status: 404)
        }
    }

    @Test func starredFollowsLinkPagesToTheEnd() async throws {
        try await SampleServer.with { server async throws in
            let first = try await server.send("GET", "/users/octocat/starred?per_page=1")
            #expect(first.links["next"]?.hasSuffix("page=2&per_page=1") == true)
            #expect(first.links["last"]?.hasSuffix("page=3&per_page=1") == true)
            #expect(first.links["prev"] == nil)
            let walked = try await Self.walk(server, "/users/octocat/starred?per_page=1")
            #expect(walked.pages == 3)
            #expect(walked.ids == ["1296269", "1300192", "724712"])
            #expect(walked.repeated == nil)
            let looping = try await Self.walk(server, "/users/octocat/starred?per_page=1&loop=1")
            #expect(looping.ids == ["1296269", "1300192"])
            #expect(looping.repeated?.hasSuffix("/users/octocat/starred?loop=1&page=2&per_page=1") == true)
            let past = try await server.send("GET", "/users/octocat/starred?per_page=1&page=9")
            #expect(try past.json().count == 0)
            #expect(past.links["next"] == nil)
            #expect(past.links["prev"]?.hasSuffix("page=3&per_page=1") == true)
        }
    }

    @Test func generatedRepositoriesAreDeterministicAndPaged() async throws {
        try await SampleServer.with(["--repositories", "45"]) { server async throws in
            let walked = try await Self.walk(server, "/users/octocat/repos?per_page=20")
            #expect(walked.pages == 3)
            #expect(walked.ids == (1...45).map { String(100_000 + $0) })
            let again = try await SampleServer.with(["--repositories", "45"]) { other async throws in try await other.send("GET", "/users/octocat/repos?page=2&per_page=20").body }
            #expect(try await server.send("GET", "/users/octocat/repos?page=2&per_page=20").body == again)
            let clamped = try await server.send("GET", "/users/octocat/repos?per_page=500")
            #expect(try clamped.json().count == 45)
            #expect(clamped.links["last"]?.hasSuffix("page=1&per_page=100") == true)
        }
    }

    @Test func entityTagsAndLastModifiedAnswer304() async throws {
        try await SampleServer.with { server async throws in
            let first = try await server.send("GET", "/users/octocat/starred")
            let tag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            let unchanged = try await server.send("GET", "/users/octocat/starred", headers: ["If-None-Match": tag])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == tag)
            #expect(try await server.send("GET", "/users/octocat/starred", headers: ["If-None-Match": "\"other\""]).status == 200)
            #expect(try await server.send("GET", "/users/octocat/starred", headers: ["If-Modified-Since": modified]).status == 304)
            #expect(try await server.send("GET", "/users/octocat/starred", headers: ["If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"]).status == 200)
            // Bodies that differ get different tags, wherever they differ.
            var tags: Set<String> = []
            for query in ["page=1&per_page=20", "page=2&per_page=20", "page=1&per_page=19", "page=1&per_page=21", "page=1&per_page=1", "page=2&per_page=1"] {
                tags.insert(try #require(try await server.send("GET", "/users/octocat/repos?" + query).header("ETag")))
            }
            #expect(tags.count == 6)
        }
    }

    @Test func starringChangesTheListAndItsValidators() async throws {
        try await SampleServer.with { server async throws in
            let before = try await server.send("GET", "/user/starred", headers: Self.bearer)
            #expect(try await server.send("GET", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 404)
            #expect(try await server.send("PUT", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 204)
            #expect(try await server.send("GET", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 204)
            let after = try await server.send("GET", "/user/starred", headers: Self.bearer.merging(["If-None-Match": before.header("ETag") ?? ""]) { $1 })
            #expect(after.status == 200)
            #expect(try after.json().column("id") == ["1296269", "1300192", "724712", "100002"])
            #expect(after.header("Last-Modified") != before.header("Last-Modified"))
            #expect(try await server.send("DELETE", "/user/starred/octocat/Hello-World", headers: Self.bearer).status == 204)
            #expect(try await server.json("GET", "/users/octocat/starred").column("id") == ["1300192", "724712", "100002"])
            #expect(try await server.send("PUT", "/user/starred/nobody/nothing", headers: Self.bearer).status == 404)
            #expect(try await server.send("PUT", "/user/starred/octocat/repo-00002").status == 401)
        }
    }
}
