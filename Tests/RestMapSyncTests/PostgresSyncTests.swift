import Foundation
import RestMapTestSupport
import Testing

/// `restmap sync` into a PostgreSQL store: the same runs as into a SQLite file.
@Suite("restmap sync into PostgreSQL")
struct PostgresSyncTests {
    static func sql(_ database: String, _ query: String) throws -> [String] {
        let run = try PostgresServer.psql(database, query)
        guard run.status == 0 else { throw TestSupportError("psql: \(run.errors)") }
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test("A first sync, an incremental one and a full refresh keep the store and its states as in SQLite")
    func syncIntoPostgres() async throws {
        let database = try PostgresServer.freshDatabase()
        try await SampleServer.with { server in
            let first = try SyncCommandTests.sync(server, db: database)
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output == "accounts: 1 run, 1 pages, 3 records\nevents: 3 runs, 3 pages, 60 records\nnotes: 3 runs, 3 pages, 15 records\n")
            #expect(try Self.sql(database, #"SELECT count(*), count(DISTINCT "eventID") FROM sync."Event""#) == ["60|60"])
            #expect(try Self.sql(database, #"SELECT key FROM sync.rm_checkpoints ORDER BY key COLLATE "C""#) == [
                "sync/accounts/", "sync/events/accountID=1", "sync/events/accountID=2", "sync/events/accountID=3",
                "sync/notes/accountID=1", "sync/notes/accountID=2", "sync/notes/accountID=3",
            ])
            let status = try SyncCommandTests.restmap(["sync", "status", "--schema", SyncCommandTests.schema, "--db", database])
            #expect(status.output.contains("events [accountID=2]: cursor 2025-12-01T00:40:00Z, 20 records, 1 pages"), "\(status.output)")

            try await SyncCommandTests.post(server, "/sync/_mutate?updates=2&inserts=3&deletes=4&seed=1")
            let second = try SyncCommandTests.sync(server, db: database, ["events"])
            #expect(second.status == 0, "\(second.errors)")
            #expect(try Self.sql(database, #"SELECT count(*), count(DISTINCT "eventID") FROM sync."Event""#) == ["63|63"])
            let refresh = try SyncCommandTests.sync(server, db: database, ["events", "--full-refresh"])
            #expect(refresh.status == 0, "\(refresh.errors)")
            #expect(try Self.sql(database, #"SELECT count(*), count(DISTINCT "eventID") FROM sync."Event""#) == ["59|59"])
        }
    }
}
