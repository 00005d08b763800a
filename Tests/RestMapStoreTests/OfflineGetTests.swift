import Foundation
import RestMapTestSupport
import Testing

/// `restmap get --store DB` against the sample server on 127.0.0.1, then `--offline` and a dead network.
@Suite struct OfflineGetTests {
    @Test(arguments: Engine.allCases) func getSavesPagesAndOfflineReadsThemBack(_ engine: Engine) throws {
        let db = try engine.newDatabase("mongohq")
        let server = try SampleServer()
        let baseURL = server.baseURL
        let secret = ["MONGOHQ_API_KEY": "sample-api-key"]   // the schema's apiKey
        let common = ["get", "--schema", "Schemas/mongohq.yaml", "--base-url", baseURL, "--store", db, "--format", "ndjson"]
        let online = try Program.restmap(common + ["/databases/Test/collections"], environment: secret)
        server.stop()
        #expect(online.status == 0, "\(online.errors)")
        #expect(online.errors.contains("restmap: store: inserted 2, updated 0, unchanged 0"))
        let columns = engine == .sqlite ? #""databaseID", name"# : #""databaseID" #>> '{}', name #>> '{}'"#   // `any`: jsonb in PostgreSQL
        #expect(try engine.sql(db, #"SELECT \#(columns) FROM "Collection" ORDER BY 2"#, namespace: "mongohq") == ["Test|movies", "Test|some_collection"])

        // On demand, by route: the same records, from the store alone.
        let offline = try Program.restmap(common + ["--offline", "collections", "--param", "databaseID=Test"], environment: secret)
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(offline.output == online.output)
        #expect(offline.errors.contains("2 records from the store (offline)"))

        // The server is gone: the network fails and the store answers.
        let fallback = try Program.restmap(common + ["/databases/Test/collections"], environment: secret)
        #expect(fallback.status == 0, "\(fallback.errors)")
        #expect(fallback.errors.contains("the network failed; reading /databases/Test/collections from the store"))
        #expect(fallback.output == online.output)

        let never = try Program.restmap(common + ["--offline", "/databases/Other/collections"], environment: secret)
        #expect(never.status == 1 && never.errors.contains("the store has no saved GET of /databases/Other/collections"))
    }

    @Test func aPaginatedTargetIsReadOfflineFromItsFirstPage() throws {
        let db = try StoreFixture.folder().appendingPathComponent("articles.sqlite").path
        let server = try SampleServer()
        let common = ["get", "--schema", "Schemas/articles.yaml", "--base-url", server.baseURL, "--store", db, "--format", "ndjson"]
        let online = try Program.restmap(common + ["pages"])
        server.stop()
        #expect(online.status == 0, "\(online.errors)")
        #expect(online.output.split(separator: "\n").count == 10)

        let offline = try Program.restmap(common + ["--offline", "pages"])
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(offline.output == online.output)
    }
}
