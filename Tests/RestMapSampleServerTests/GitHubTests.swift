import Foundation
import Testing

@Suite("GitHub-like users, repositories and starred")
struct GitHubTests {
    static let bearer = ["Authorization": "Bearer sample-token"]

    /// Follows `rel="next"` from `target`, at most `limit` pages; the pages and their element ids.
    static func walk(_ server: SampleServer, _ target: String, headers: [String: String] = [:], limit: Int = 50) throws -> (pages: Int, ids: [String]) {
        var next: String? = target
        var pages = 0
        var ids: [String] = []
        while let current = next, pages < limit {
            let reply = try server.send("GET", current, headers: headers)
            #expect(reply.status == 200, "GET \(current)")
            ids += try reply.json().column("id")
            pages += 1
            next = reply.links["next"].map { url in
                #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/"))
                return String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
            }
        }
        return (pages, ids)
    }

    @Test func userEndpointsNeedTheBearerToken() throws {
        try SampleServer.with { server throws in
            let missing = try server.send("GET", "/user")
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try missing.json()["message"]?.stringValue == "Requires authentication")
            #expect(try server.json("GET", "/user", headers: ["Authorization": "Bearer nope"], status: 401)["message"]?.stringValue == "Bad credentials")
            #expect(try server.json("GET", "/user", headers: Self.bearer)["login"]?.stringValue == "octocat")
            #expect(try server.json("GET", "/user", headers: ["Authorization": "token sample-token"])["public_repos"]?.int == 2)
        }
    }

    @Test func tokenIsConfigurable() throws {
        try SampleServer.with(["--token", "other-token"]) { server throws in
            #expect(try server.send("GET", "/user", headers: Self.bearer).status == 401)
            #expect(try server.send("GET", "/user", headers: ["Authorization": "Bearer other-token"]).status == 200)
        }
    }

    @Test func usersAndRepositoriesByName() throws {
        try SampleServer.with { server throws in
            #expect(try server.json("GET", "/users/RestKit")["id"]?.int == 200917)
            #expect(try server.json("GET", "/users/no-such-user-xyz", status: 404)["message"]?.stringValue == "Not Found")
            #expect(try server.json("GET", "/repos/octocat/Spoon-Knife")["stargazers_count"]?.int == 1203)
            #expect(try server.json("GET", "/repos/octocat/repo-00007")["full_name"]?.stringValue == "octocat/repo-00007")
            _ = try server.json("GET", "/repos/octocat/repo-99999", status: 404)
        }
    }

    @Test func starredFollowsLinkPagesToTheEnd() throws {
        try SampleServer.with { server throws in
            let first = try server.send("GET", "/users/octocat/starred?per_page=1")
            #expect(first.links["next"]?.hasSuffix("page=2&per_page=1") == true)
            #expect(first.links["last"]?.hasSuffix("page=3&per_page=1") == true)
            #expect(first.links["prev"] == nil)
            let walked = try Self.walk(server, "/users/octocat/starred?per_page=1")
            #expect(walked.pages == 3)
            #expect(walked.ids == ["1296269", "1300192", "724712"])
            let past = try server.send("GET", "/users/octocat/starred?per_page=1&page=9")
            #expect(try past.json().count == 0)
            #expect(past.links["next"] == nil)
            #expect(past.links["prev"]?.hasSuffix("page=3&per_page=1") == true)
        }
    }

    @Test func generatedRepositoriesAreDeterministicAndPaged() throws {
        try SampleServer.with(["--repositories", "45"]) { server throws in
            let walked = try Self.walk(server, "/users/octocat/repos?per_page=20")
            #expect(walked.pages == 3)
            #expect(walked.ids == (1...45).map { String(100_000 + $0) })
            let again = try SampleServer.with(["--repositories", "45"]) { other in try other.send("GET", "/users/octocat/repos?page=2&per_page=20").body }
            #expect(try server.send("GET", "/users/octocat/repos?page=2&per_page=20").body == again)
            let clamped = try server.send("GET", "/users/octocat/repos?per_page=500")
            #expect(try clamped.json().count == 45)
            #expect(clamped.links["last"]?.hasSuffix("page=1&per_page=100") == true)
        }
    }

    @Test func entityTagsAndLastModifiedAnswer304() throws {
        try SampleServer.with { server throws in
            let first = try server.send("GET", "/users/octocat/starred")
            let tag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            let unchanged = try server.send("GET", "/users/octocat/starred", headers: ["If-None-Match": tag])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == tag)
            #expect(try server.send("GET", "/users/octocat/starred", headers: ["If-None-Match": "\"other\""]).status == 200)
            #expect(try server.send("GET", "/users/octocat/starred", headers: ["If-Modified-Since": modified]).status == 304)
            #expect(try server.send("GET", "/users/octocat/starred", headers: ["If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT"]).status == 200)
        }
    }

    @Test func starringChangesTheListAndItsValidators() throws {
        try SampleServer.with { server throws in
            let before = try server.send("GET", "/user/starred", headers: Self.bearer)
            #expect(try server.send("GET", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 404)
            #expect(try server.send("PUT", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 204)
            #expect(try server.send("GET", "/user/starred/octocat/repo-00002", headers: Self.bearer).status == 204)
            let after = try server.send("GET", "/user/starred", headers: Self.bearer.merging(["If-None-Match": before.header("ETag") ?? ""]) { $1 })
            #expect(after.status == 200)
            #expect(try after.json().column("id") == ["1296269", "1300192", "724712", "100002"])
            #expect(after.header("Last-Modified") != before.header("Last-Modified"))
            #expect(try server.send("DELETE", "/user/starred/octocat/Hello-World", headers: Self.bearer).status == 204)
            #expect(try server.json("GET", "/users/octocat/starred").column("id") == ["1300192", "724712", "100002"])
            #expect(try server.send("PUT", "/user/starred/nobody/nothing", headers: Self.bearer).status == 404)
            #expect(try server.send("PUT", "/user/starred/octocat/repo-00002").status == 401)
        }
    }
}
