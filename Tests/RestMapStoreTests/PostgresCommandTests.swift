import Foundation
import RestMapTestSupport
import Testing

/// `restmap store` on PostgreSQL: the same commands, a URL instead of a file.
@Suite struct PostgresCommandTests {
    @Test func importQueryAndSearchTakeAURLAndNeverPrintItsPassword() throws {
        let database = try PostgresServer.freshDatabase()
        // The test server trusts loopback connections: the password is read, sent and ignored.
        let url = database.replacingOccurrences(of: "postgres@", with: "postgres:s3cret-pw@")
        let common = ["--schema", "Schemas/mongohq.yaml", "--db", url]
        let imported = try Program.restmap(["store", "import"] + common + ["--path", "/databases/shop/collections", "Samples/mongohq/collections.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "inserted 2, updated 0, unchanged 0, deleted 0 orphans, skipped 0 not newer\n")
        let query = try Program.restmap(["store", "query"] + common + ["Collection", "--order", "name", "--format", "ndjson"])
        #expect(query.status == 0 && query.output.split(separator: "\n").count == 2, "\(query.errors)")
        let search = try Program.restmap(["store", "search", "--schema", "Schemas/mongohq.yaml", "mov", "--format", "ndjson"],
                                         environment: ["RESTMAP_DATABASE_URL": url])
        #expect(search.status == 0 && search.output.contains(#""name":"movies""#), "\(search.errors)")
        // The same records as a SQLite store gives.
        let file = try StoreFixture.folder().appendingPathComponent("mongohq.sqlite").path
        _ = try Program.restmap(["store", "import", "--schema", "Schemas/mongohq.yaml", "--db", file, "--path", "/databases/shop/collections",
                                 "Samples/mongohq/collections.json"])
        let fromFile = try Program.restmap(["store", "query", "--schema", "Schemas/mongohq.yaml", "--db", file, "Collection", "--order", "name", "--format", "ndjson"])
        #expect(fromFile.output == query.output)

        let missing = url.replacingOccurrences(of: "/restmap_test_", with: "/no_such_")
        let failed = try Program.restmap(["store", "query", "--schema", "Schemas/mongohq.yaml", "--db", missing, "Collection"])
        #expect(failed.status == 1 && failed.errors.contains("does not exist"), "\(failed.errors)")
        let notThere = try Program.restmap(["store", "query", "--schema", "Schemas/github.yaml", "--db", url, "Repository"])
        #expect(notThere.status == 1 && notThere.errors.contains("no store of schema 'github'"), "\(notThere.errors)")
        for run in [imported, query, search, failed, notThere] {
            #expect(!(run.output + run.errors).contains("s3cret-pw"))
        }
    }

    @Test func seedReplacesAPostgresStoreOnlyWhenEveryFileWasSaved() throws {
        let database = try PostgresServer.freshDatabase()
        let seed = ["seed", "--schema", "Schemas/mongohq.yaml", "--db", database]
        let first = try Program.restmap(seed + ["Samples/mongohq/databases.json:/databases"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("Database: 2\n"))
        let bad = try StoreFixture.folder().appendingPathComponent("bad.json")
        try #"[{"name": "#.write(to: bad, atomically: true, encoding: .utf8)
        let failed = try Program.restmap(seed + ["Samples/mongohq/collections.json:/databases/shop/collections", bad.path + ":/databases"])
        #expect(failed.status == 1 && failed.errors.contains("was not written"), "\(failed.errors)")
        let namespaces = #"SELECT nspname FROM pg_namespace WHERE nspname LIKE 'mongohq%' ORDER BY 1"#
        #expect(try Engine.postgres.sql(database, namespaces) == ["mongohq"], "the failed seed's namespace is gone")
        #expect(try Engine.postgres.sql(database, #"SELECT count(*) FROM "Database""#, namespace: "mongohq") == ["2"])
        #expect(try Engine.postgres.sql(database, #"SELECT count(*) FROM "Collection""#, namespace: "mongohq") == ["0"])
        let second = try Program.restmap(seed + ["Samples/mongohq/collections.json:/databases/shop/collections"])
        #expect(second.status == 0, "\(second.errors)")
        #expect(try Engine.postgres.sql(database, #"SELECT count(*) FROM "Database""#, namespace: "mongohq") == ["0"], "replaced, not added to")
        #expect(try Engine.postgres.sql(database, #"SELECT count(*) FROM "Collection""#, namespace: "mongohq") == ["2"])
    }
}
