import Foundation
import RestMapTestSupport
import Testing

@Suite("MongoHQ databases, collections and documents")
struct MongoHQTests {
    static let key = ["MongoHQ-API-Token": "sample-api-key"]

    @Test func databasesNeedTheAPIKeyInTheHeaderOrTheQuery() async throws {
        try await SampleServer.with { server async throws in
            let missing = try await server.send("GET", "/databases")
            #expect(missing.status == 401)
            #expect(try missing.json()["code"]?.int == 1001)
            #expect(try await server.send("GET", "/databases", headers: ["MongoHQ-API-Token": "wrong"]).status == 401)
            let byHeader = try await server.json("GET", "/databases", headers: Self.key)
            #expect(byHeader.column("name") == ["Test", "Second"])
            #expect(byHeader[0]?["port"]?.int == 10097)
            let byQuery = try await server.json("GET", "/databases?_apikey=sample-api-key")
            #expect(byQuery.column("plan") == ["Sandbox", "Second"])
        }
    }

    @Test func collectionsAndDocumentsOfTheSample() async throws {
        try await SampleServer.with { server async throws in
            let collections = try await server.json("GET", "/databases/Test/collections", headers: Self.key)
            #expect(collections.column("name") == ["movies", "some_collection"])
            #expect(collections.column("count") == ["3", "0"])
            #expect(try await server.json("GET", "/databases/Second/collections", headers: Self.key).count == 0)
            let documents = try await server.json("GET", "/databases/Test/collections/movies/documents", headers: Self.key)
            #expect(documents.count == 3)
            #expect(documents[0]?["_id"]?["$oid"]?.stringValue == "51e0f0a6e4b0d1d6b5e1c3a1")
            #expect(documents[2]?["_id"]?.stringValue == "manually-assigned-id-243")
            let page = try await server.json("GET", "/databases/Test/collections/movies/documents?skip=1&limit=1", headers: Self.key)
            #expect(page.column("Rank") == ["242"])
        }
    }

    @Test func unknownDatabaseIsTheSeedsError1005() async throws {
        try await SampleServer.with { server async throws in
            let error = try await server.json("GET", "/databases/Nope/collections", headers: Self.key, status: 404)
            #expect(error["error"]?.stringValue == "No matching database associated with this account")
            #expect(error["code"]?.int == 1005)
        }
    }

    @Test func crudOverDatabasesCollectionsAndDocuments() async throws {
        try await SampleServer.with { server async throws in
            let json = ["Content-Type": "application/json"].merging(Self.key) { $1 }
            let database = try await server.json("POST", "/databases", headers: json, body: Array(#"{"name": "Third", "slug": "Micro"}"#.utf8), status: 201)
            #expect(database["plan"]?.stringValue == "Micro")
            _ = try await server.json("POST", "/databases", headers: json, body: Array(#"{"name": "Third"}"#.utf8), status: 409)

            let collection = try await server.json("POST", "/databases/Third/collections", headers: json, body: Array(#"{"name": "films"}"#.utf8), status: 201)
            #expect(collection["count"]?.int == 0)
            #expect(collection["storageSize"]?.int == 8192)
            _ = try await server.json("POST", "/databases/Third/collections", headers: json, body: Array(#"{}"#.utf8), status: 422)

            let created = try await server.json(
                "POST", "/databases/Third/collections/films/documents", headers: json,
                body: Array(#"{"document": {"Title": "Big Fish (2003)"}}"#.utf8), status: 201
            )
            let id = try #require(created["_id"]?["$oid"]?.stringValue)
            #expect(id.count == 24)
            _ = try await server.json("POST", "/databases/Third/collections/films/documents", headers: json, body: Array(#"{"_id": "plain", "Title": "Elf"}"#.utf8), status: 201)
            #expect(try await server.json("GET", "/databases/Third/collections/films", headers: Self.key)["count"]?.int == 2)

            let replaced = try await server.json("PUT", "/databases/Third/collections/films/documents/\(id)", headers: json, body: Array(#"{"Title": "Big Fish"}"#.utf8))
            #expect(replaced["Title"]?.stringValue == "Big Fish")
            #expect(replaced["_id"]?["$oid"]?.stringValue == id)
            #expect(try await server.json("GET", "/databases/Third/collections/films/documents/plain", headers: Self.key)["Title"]?.stringValue == "Elf")

            #expect(try await server.send("DELETE", "/databases/Third/collections/films/documents/plain", headers: Self.key).status == 204)
            _ = try await server.json("GET", "/databases/Third/collections/films/documents/plain", headers: Self.key, status: 404)
            let renamed = try await server.json("PUT", "/databases/Third/collections/films", headers: json, body: Array(#"{"name": "movies"}"#.utf8))
            #expect(renamed["count"]?.int == 1)
            #expect(try await server.send("DELETE", "/databases/Third/collections/movies", headers: Self.key).status == 204)
            #expect(try await server.json("GET", "/databases/Third/collections/movies", headers: Self.key, status: 404)["code"]?.int == 1006)
            #expect(try await server.send("DELETE", "/databases/Third", headers: Self.key).status == 204)
            #expect(try await server.json("GET", "/databases", headers: Self.key).column("name") == ["Test", "Second"])
        }
    }
}
