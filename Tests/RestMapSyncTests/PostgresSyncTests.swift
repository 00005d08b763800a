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

    @Test("Syncs on several machines share a rotating OAuth 2.0 refresh token through the store, each refreshing from the latest")
    func refreshTokenInTheStore() async throws {
        let folder = try SyncCommandTests.folder()
        let text = try String(contentsOfFile: SyncCommandTests.schema, encoding: .utf8)
        #expect(text.contains("plugins: [dates]\n"), "Schemas/sync.yaml changed: update this test")
        let schema = folder.appendingPathComponent("sync.yaml").path
        // No tokenStore file: the initial token comes from the environment, the later ones from the store.
        try text.replacingOccurrences(of: "plugins: [dates]\n", with: """
            plugins: [dates]
            auth:
              oauth2: { tokenURL: /oauth/token, grant: refreshToken, clientID: { env: OAUTH_ID }, clientSecret: { env: OAUTH_SECRET }, refreshToken: { env: OAUTH_REFRESH } }

            """).write(toFile: schema, atomically: true, encoding: .utf8)
        let environment = ["OAUTH_ID": "sample-client", "OAUTH_SECRET": "sample-client-secret", "OAUTH_REFRESH": "sample-refresh-token"]
        func syncs(_ server: SampleServer, _ database: String, _ extra: [String]) async throws -> [ProcessOutput] {
            try await withThrowingTaskGroup(of: ProcessOutput.self) { group in
                for _ in 1...3 {
                    group.addTask {
                        try await offPool {
                            try ChildProcess.run(try TestPaths.built("restmap"), ["sync", "--schema", schema, "--db", database, "--base-url", server.baseURL,
                                                                                 "--verbose", "accounts"] + extra, environment: environment)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Without a shared keeper every process starts from the initial token, which the first refresh spends.
        try await SampleServer.with { server in
            let runs = try await syncs(server, try PostgresServer.freshDatabase(), [])
            #expect(runs.filter { $0.status == 0 }.count == 1)
            #expect(runs.filter { $0.errors.contains("invalid_grant") }.count == 2)
        }
        try await SampleServer.with { server in
            let database = try PostgresServer.freshDatabase()
            let runs = try await syncs(server, database, ["--token-in-store"])
            let kept = try Self.sql(database, "SELECT value FROM sync.rm_checkpoints WHERE starts_with(key, 'oauth2/')")
            #expect(kept.count == 1 && kept.first != "sample-refresh-token")
            for run in runs {
                #expect(run.status == 0, "\(run.errors)")
                #expect(run.errors.contains("the OAuth 2.0 refresh token was rotated; kept in the store postgres://"), "\(run.errors)")
                #expect(!run.errors.contains(kept.first ?? "?") && !run.output.contains(kept.first ?? "?"), "the refresh token is never printed")
            }
            #expect(try Self.sql(database, #"SELECT count(*) FROM sync."Account""#) == ["3"])
        }
    }
}
