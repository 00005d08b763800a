import Foundation
import RestMapTestSupport
import Testing

@Suite("Auth kinds on the articles")
struct AuthTests {
    static let basic = "Basic " + Data("sample-user:sample-password".utf8).base64EncodedString()

    @Test(arguments: [
        ("/auth/bearer/articles", ["Authorization": "Bearer sample-token"], ["Authorization": "Bearer wrong"]),
        ("/auth/header/articles", ["X-API-Key": "sample-api-key"], ["X-API-Key": "wrong"]),
        ("/auth/basic/articles", ["Authorization": basic], ["Authorization": "Basic " + Data("sample-user:wrong".utf8).base64EncodedString()]),
    ])
    func headerCredentials(path: String, accepted: [String: String], wrong: [String: String]) async throws {
        try await SampleServer.with { server async throws in
            let missing = try await server.send("GET", path)
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") != nil)
            #expect(try missing.json()["error"]?.stringValue == "Authentication required")
            let refused = try await server.send("GET", path, headers: wrong)
            #expect(refused.status == 401)
            #expect(!refused.text.contains("wrong"))
            #expect(try await server.json("GET", path, headers: accepted)["pagination"]?["total_objects"]?.int == 95)
        }
    }

    @Test func apiKeyInTheQuery() async throws {
        try await SampleServer.with { server async throws in
            #expect(try await server.send("GET", "/auth/query/articles").status == 401)
            #expect(try await server.send("GET", "/auth/query/articles?api_key=wrong").status == 401)
            #expect(try await server.json("GET", "/auth/query/articles?api_key=sample-api-key&page=10")["articles"]?.count == 5)
        }
    }

    @Test func credentialsAreConfigurable() async throws {
        try await SampleServer.with(["--api-key", "k2", "--username", "u2", "--password", "p2"]) { server async throws in
            #expect(try await server.send("GET", "/auth/query/articles?api_key=sample-api-key").status == 401)
            #expect(try await server.send("GET", "/auth/query/articles?api_key=k2").status == 200)
            let basic = "Basic " + Data("u2:p2".utf8).base64EncodedString()
            #expect(try await server.send("GET", "/auth/basic/articles", headers: ["Authorization": basic]).status == 200)
            #expect(try await server.send("GET", "/databases", headers: ["MongoHQ-API-Token": "k2"]).status == 200)
        }
    }
}
