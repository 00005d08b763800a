import RestMapTestSupport
import Testing

@Suite("RSAPI session tokens, users, groups, MANY and DATA")
struct RSAPITests {
    static let credentials = Array("email=steve%40boundaboutwith.us&password=sample-password".utf8)
    static let form = ["Content-Type": "application/x-www-form-urlencoded"]

    static func login(_ server: SampleServer) async throws -> String {
        let answer = try await server.json("POST", "/api/users/login", headers: form, body: credentials)
        return try #require(answer["api_token"]?.stringValue)
    }

    @Test func loginIssuesANewTokenEachTimeAndRefusesWrongPasswords() async throws {
        try await SampleServer.with { server async throws in
            let first = try await Self.login(server)
            let second = try await Self.login(server)
            #expect(first != second)
            let byQuery = try await server.json("GET", "/api/users/login?email=steve%40boundaboutwith.us&password=sample-password")
            #expect(byQuery["user_id"]?.int == 3)
            let refused = try await server.send("POST", "/api/users/login", headers: Self.form, body: Array("email=steve%40boundaboutwith.us&password=nope".utf8))
            #expect(refused.status == 401)
            #expect(!refused.text.contains("nope"))
        }
    }

    @Test func everyRouteNeedsTheTokenInAnyOfItsForms() async throws {
        try await SampleServer.with { server async throws in
            #expect(try await server.json("GET", "/api/users", status: 401)["error"]?.stringValue == "Authentication required")
            let token = try await Self.login(server)
            for headers in [["Authorization": "Bearer \(token)"], ["Authorization": "Token token=\"\(token)\""], ["X-API-Token": token]] {
                #expect(try await server.json("GET", "/api/users", headers: headers).column("user_id") == ["3", "4"])
            }
            #expect(try await server.json("GET", "/api/users/3?api_token=\(token)")["avatar_sm"]?.stringValue == "http://www.yourproduction.com/avatars/3_sm.png")
            let wrong = try await server.send("GET", "/api/users", headers: ["X-API-Token": "rsapi-0-forged"])
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Token") == true)
        }
    }

    @Test func expiredTokensAreRefusedUntilTheNextLogin() async throws {
        try await SampleServer.with { server async throws in
            let token = try await Self.login(server)
            #expect(try await server.send("POST", "/api/tokens/expire", headers: ["X-API-Token": token]).status == 204)
            #expect(try await server.json("GET", "/path/to/data", headers: ["X-API-Token": token], status: 401)["error"]?.stringValue == "Invalid or expired token")
            let renewed = try await Self.login(server)
            #expect(try await server.json("GET", "/path/to/data", headers: ["X-API-Token": renewed])["unread_count"]?.int == 3)
        }
    }

    @Test func expireTokenFaultRefusesTheFirstRequestsOfItsKey() async throws {
        try await SampleServer.with { server async throws in
            let token = try await Self.login(server)
            let target = "/api/users/4?expire-token=1&fault-id=rsapi-expire"
            #expect(try await server.send("GET", target, headers: ["X-API-Token": token]).status == 401)
            #expect(try await server.json("GET", target, headers: ["X-API-Token": token])["name"]?.stringValue == "Jeff")
        }
    }

    @Test func usersGroupsManyAndData() async throws {
        try await SampleServer.with { server async throws in
            let auth = ["X-API-Token": try await Self.login(server)]
            #expect(try await server.json("GET", "/api/users/1", headers: auth)["name"]?.stringValue == "Michael")
            _ = try await server.json("GET", "/api/users/99", headers: auth, status: 404)
            #expect(try await server.json("GET", "/api/groups/1/all_named/cyclists", headers: auth).column("id") == ["5"])
            let many = try await server.json("GET", "/path/to/objects", headers: auth)
            #expect(many[0]?["Group"]?.column("name") == ["Hikers", "Cyclists"])
            #expect(try await server.json("GET", "/path/to/data", headers: auth)["tours"]?.count == 2)
            let created = try await server.json("POST", "/api/users", headers: auth.merging(Self.form) { $1 }, body: Array("name=stringObject&email=name%40name.com".utf8), status: 201)
            #expect(created["user_id"]?.int == 5)
            #expect(created["group_id"]?.isNull == true)
            #expect(try await server.json("GET", "/api/users", headers: auth).column("user_id") == ["3", "4", "5"])
            _ = try await server.json("POST", "/api/users", headers: auth.merging(Self.form) { $1 }, body: Array("name=x".utf8), status: 422)
        }
    }
}
