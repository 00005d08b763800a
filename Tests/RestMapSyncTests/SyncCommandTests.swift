import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestMapTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `restmap sync` as the built binary runs it, against the sample server's `/sync` API on
/// 127.0.0.1, with the store read back by plain SQL.
@Suite("restmap sync")
struct SyncCommandTests {
    static let schema = TestPaths.repository.appendingPathComponent("Schemas/sync.yaml").path

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func restmap(_ arguments: [String]) throws -> ProcessOutput {
        try ChildProcess.run(try TestPaths.built("restmap"), arguments)
    }

    static func sync(_ server: SampleServer, db: String, _ extra: [String] = []) throws -> ProcessOutput {
        try restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL] + extra)
    }

    /// The rows of a query, one line each (`|` between columns).
    static func sql(_ db: String, _ query: String) throws -> [String] {
        let run = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["sqlite3", db, query])
        guard run.status == 0 else { throw TestSupportError("sqlite3: \(run.errors)") }
        return run.output.split(separator: "\n").map(String.init)
    }

    /// The GETs the server answered per route pattern since it started.
    static func requests(_ server: SampleServer) throws -> [String: Int] {
        let data = try Data(contentsOf: URL(string: server.baseURL + "/sync/_stats")!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (object?["requests"] as? [String: Int] ?? [:]).filter { $0.value > 0 }
    }

    static func post(_ server: SampleServer, _ path: String) async throws {
        var request = URLRequest(url: URL(string: server.baseURL + path)!)
        request.httpMethod = "POST"
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    static let events = "/sync/accounts/:accountID/events"
    static let notes = "/sync/accounts/:accountID/notes"

    @Test("A first sync fans out over every stored parent, keeps one state per parent, and a second run fetches only what changed")
    func fanOutThenIncremental() async throws {
        try await SampleServer.with { server in
            let db = try Self.folder().appendingPathComponent("sync.sqlite").path
            let first = try Self.sync(server, db: db)
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output == "accounts: 1 run, 1 pages, 3 records\nevents: 3 runs, 3 pages, 60 records\nnotes: 3 runs, 3 pages, 15 records\n")
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["60|60"])
            #expect(try Self.sql(db, "SELECT key FROM rm_checkpoints ORDER BY key") == [
                "sync/accounts/", "sync/events/accountID=1", "sync/events/accountID=2", "sync/events/accountID=3",
                "sync/notes/accountID=1", "sync/notes/accountID=2", "sync/notes/accountID=3",
            ])
            // Each account's state is its own newest event: events k are k minutes after 2025-12-01.
            #expect(try Self.sql(db, "SELECT json_extract(value, '$.highWater.date._0') IS NOT NULL FROM rm_checkpoints WHERE key = 'sync/events/accountID=2'") == ["1"])
            let status = try Self.restmap(["sync", "status", "--schema", Self.schema, "--db", db])
            #expect(status.output.contains("events [accountID=2]: cursor 2025-12-01T00:40:00Z, 20 records, 1 pages"), "\(status.output)")
            #expect(try Self.requests(server) == ["/sync/accounts": 1, Self.events: 3, Self.notes: 3])

            try await Self.post(server, "/sync/_mutate?updates=2&inserts=3&notes=1&seed=1")
            let second = try Self.sync(server, db: db, ["--format", "json"])
            #expect(second.status == 0, "\(second.errors)")
            // One request per (resource, parent): the changed events and those inside the 60 s lookback.
            #expect(try Self.requests(server) == ["/sync/accounts": 2, Self.events: 6, Self.notes: 6])
            #expect(second.output.contains(#""resource":"events""#))
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["63|63"])
            #expect(try Self.sql(db, "SELECT count(*) FROM Event WHERE title LIKE '%(edited)'") == ["2"])
            // The notes cannot be filtered: all are read, only the newer ones are kept and counted.
            #expect(second.output.contains(#""pages":3,"parents":3,"records":3,"resource":"notes""#), "\(second.output)")
            #expect(try Self.sql(db, "SELECT count(*) FROM Note") == ["15"])
        }
    }

    @Test("kill -9 mid-sync, then the same command: every event once, no state ahead of the data, at most the page in flight fetched again")
    func killedSyncResumes() async throws {
        // 2 accounts × 1,000 events in pages of 50: 40 pages.
        try await SampleServer.with(["--sync-accounts", "2", "--sync-events", "1000"]) { server in
            let folder = try Self.folder()
            let db = folder.appendingPathComponent("sync.sqlite").path
            let log = folder.appendingPathComponent("sync.log")
            try Data().write(to: log)
            let process = Process()
            process.executableURL = try TestPaths.built("restmap")
            process.arguments = ["sync", "--schema", Self.schema, "--db", db, "--base-url", server.baseURL]
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Wait (bounded) until a few pages of the first account's events are saved.
            for _ in 0..<5_000 where process.isRunning {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if text.contains("sync events [accountID=1]: page 7,") { break }
                usleep(2_000)
            }
            try #require(process.isRunning, "the sync ended before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            // The state is never ahead of the data: the newest stored event is at least the state.
            let saved = try Self.sql(db, "SELECT count(*) FROM Event")
            let state = try Self.sql(db, "SELECT json_extract(value, '$.resume.number') FROM rm_checkpoints WHERE key = 'sync/events/accountID=1'")
            let resumePage = try #require(Int(state.first ?? ""), "no resume point after \(saved) events")
            #expect(Int(saved.first ?? "") == (resumePage - 1) * 50)

            let resumed = try Self.sync(server, db: db)
            #expect(resumed.status == 0, "\(resumed.errors)")
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["2000|2000"])
            #expect(try Self.sql(db, "SELECT count(*) FROM rm_checkpoints WHERE json_extract(value, '$.resume') IS NOT NULL") == ["0"])
            // 40 pages of events; the kill may cost the page in flight, and nothing else.
            let eventRequests = try Self.requests(server)[Self.events] ?? 0
            #expect((40...41).contains(eventRequests), "\(eventRequests) event requests")
        }
    }

    @Test("status lists each state; reset forgets one parent's, and the next run reads that parent from the start")
    func statusAndReset() async throws {
        try await SampleServer.with { server in
            let db = try Self.folder().appendingPathComponent("sync.sqlite").path
            #expect(try Self.sync(server, db: db).status == 0)
            let reset = try Self.restmap(["sync", "reset", "--schema", Self.schema, "--db", db, "events", "--parent", "accountID=2"])
            #expect(reset.status == 0, "\(reset.errors)")
            #expect(reset.errors.contains("forgot 1 state of events"))
            let status = try Self.restmap(["sync", "status", "--schema", Self.schema, "--db", db])
            #expect(status.output.split(separator: "\n").filter { $0.hasPrefix("events") }.count == 2, "\(status.output)")
            let again = try Self.sync(server, db: db, ["events"])
            #expect(again.status == 0, "\(again.errors)")
            // Accounts 1 and 3 re-read their lookback margin (2 events each); account 2 all 20.
            #expect(again.output == "events: 3 runs, 3 pages, 24 records\n")
            let unknown = try Self.sync(server, db: db, ["evnts"])
            #expect(unknown.status == 1)
            #expect(unknown.errors.contains("no sync resource named 'evnts'"))
        }
    }

    /// Schemas/sync.yaml with the events cursor replaced (YAML lines at the cursor's indentation).
    static func schema(eventsCursor: String, in folder: URL) throws -> String {
        let text = try String(contentsOfFile: schema, encoding: .utf8)
        let original = """
                  attribute: updatedAt
                  parameter: since                          # GET …/events?since=<state − lookback>
                  lookback: 60                              # seconds re-read before the state
                  ordered: true                             # the API answers oldest first
            """
        #expect(text.contains(original), "Schemas/sync.yaml changed: update this test")
        let path = folder.appendingPathComponent("sync.yaml").path
        try text.replacingOccurrences(of: original, with: eventsCursor).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("Date windows ask for each [since, until) range up to now, then only the window from the state")
    func dateWindows() async throws {
        try await SampleServer.with { server in
            let folder = try Self.folder()
            let schema = try Self.schema(eventsCursor: """
                      attribute: updatedAt
                      parameter: since
                      endParameter: until
                      start: "2025-11-01T00:00:00Z"
                      window: 2592000
                """, in: folder)
            let db = folder.appendingPathComponent("sync.sqlite").path
            let first = try Self.restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL, "events", "accounts"])
            #expect(first.status == 0, "\(first.errors)")
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["60|60"])
            // 30-day windows from 2025-11-01 to now: every one asked for each account.
            let windows = Int((Date().timeIntervalSince1970 - 1_761_955_200) / 2_592_000) + 1
            let firstRequests = try Self.requests(server)[Self.events] ?? 0
            #expect((3 * windows...3 * (windows + 1)).contains(firstRequests), "\(firstRequests) requests for \(windows) windows")
            // The state is the last window's end: the next run asks for one window per account.
            let second = try Self.restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL, "events"])
            #expect(second.status == 0, "\(second.errors)")
            #expect((try Self.requests(server)[Self.events] ?? 0) - firstRequests == 3)
            #expect(second.output == "events: 3 runs, 3 pages, 0 records\n")
        }
    }

    @Test("A full refresh re-reads everything and removes, per parent, the records the source no longer has")
    func fullRefreshRemovesWhatIsGone() async throws {
        try await SampleServer.with { server in
            let db = try Self.folder().appendingPathComponent("sync.sqlite").path
            #expect(try Self.sync(server, db: db).status == 0)
            try await Self.post(server, "/sync/_mutate?deletes=4&seed=3")
            // An incremental run cannot see deletions: the API sends no tombstones.
            #expect(try Self.sync(server, db: db, ["events"]).status == 0)
            #expect(try Self.sql(db, "SELECT count(*) FROM Event") == ["60"])
            let refresh = try Self.sync(server, db: db, ["events", "--full-refresh"])
            #expect(refresh.status == 0, "\(refresh.errors)")
            #expect(refresh.output == "events: 3 runs, 3 pages, 56 records\n")
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["56|56"])
            #expect(try Self.sql(db, "SELECT count(*) FROM Account") == ["3"])
        }
    }

    @Test("A schema change of a resource's cursor starts its state over, with a note")
    func cursorChangeResetsState() async throws {
        try await SampleServer.with { server in
            let folder = try Self.folder()
            let db = folder.appendingPathComponent("sync.sqlite").path
            #expect(try Self.sync(server, db: db).status == 0)
            let changed = try Self.schema(eventsCursor: """
                      attribute: updatedAt
                      parameter: updated_after
                """, in: folder)
            let run = try Self.restmap(["sync", "--schema", changed, "--db", db, "--base-url", server.baseURL, "events", "--concurrency", "3"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.contains("note: events [accountID=2]: the cursor changed in the schema; its state starts over"), "\(run.errors)")
            #expect(run.output == "events: 3 runs, 3 pages, 60 records\n")
        }
    }

    static let foldersSchema = """
        restmap: 1
        name: folders
        entities:
          Folder:
            identifiedBy: folderID
            attributes:
              folderID: { from: id, type: integer }
              parentID: { from: parent_id, type: integer }
              name: name
        responses:
          - { path: /sync/folders, entity: Folder }
          - { path: "/sync/folders/:folderID/folders", entity: Folder }
        routes:
          rootFolders: GET /sync/folders
          subfolders: GET /sync/folders/:folderID/folders
        sync:
          subfolders:
            route: subfolders
            entity: Folder
            parent: { entity: Folder, depth: DEPTH }
          rootFolders: { route: rootFolders, entity: Folder }
        """

    @Test("A resource over its own entity goes down the tree level by level, to its depth, after the resource it starts from")
    func foldersInFolders() async throws {
        try await SampleServer.with { server in
            let folder = try Self.folder()
            for (depth, expected) in [(1, 9), (5, 21)] {
                let schema = folder.appendingPathComponent("folders-\(depth).yaml").path
                try Self.foldersSchema.replacingOccurrences(of: "DEPTH", with: String(depth)).write(toFile: schema, atomically: true, encoding: .utf8)
                let db = folder.appendingPathComponent("folders-\(depth).sqlite").path
                let run = try Self.restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL])
                #expect(run.status == 0, "\(run.errors)")
                // 3 roots with 2 subfolders each, 3 levels: depth 1 reads the roots' subfolders only.
                #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT folderID) FROM Folder") == ["\(expected)|\(expected)"])
                #expect(run.output.hasPrefix("rootFolders: 1 run, 1 pages, 3 records\n"), "\(run.output)")
            }
            // Depth 5 stops when a level finds nothing new: 3 + 6 + 12 folders asked for their subfolders.
            #expect(try Self.requests(server)["/sync/folders/:folderID/folders"] == 3 + 3 + 6 + 12)
            let withoutDepth = folder.appendingPathComponent("folders-none.yaml").path
            try Self.foldersSchema.replacingOccurrences(of: ", depth: DEPTH", with: "").write(toFile: withoutDepth, atomically: true, encoding: .utf8)
            let refused = try Self.restmap(["validate", withoutDepth])
            #expect(refused.status == 1)
            #expect(refused.output.contains("fans out over its own entity 'Folder': give 'depth', the most levels to go down"), "\(refused.output)")
        }
    }

    @Test("A cursor the API hands back: the token of the last answer is the state, sent as the parameter next time")
    func tokenCursor() async throws {
        try await SampleServer.with { server in
            let folder = try Self.folder()
            let original = try String(contentsOfFile: Self.schema, encoding: .utf8)
            let schema = folder.appendingPathComponent("changes.yaml").path
            try original
                .replacingOccurrences(of: "  - { method: GET, path: \"/sync/accounts/:accountID/notes\", entity: Note }",
                                      with: "  - { method: GET, path: \"/sync/accounts/:accountID/changes\", keyPath: changes, entity: Event }")
                .replacingOccurrences(of: "\nsync:\n", with: """

                    sync:
                      changes:
                        route: changes
                        entity: Event
                        parent: { entity: Account }
                        cursor: { token: nextToken, parameter: token }

                    """)
                .replacingOccurrences(of: "\nroutes:\n", with: "\nroutes:\n  changes: GET /sync/accounts/:accountID/changes\n")
                .write(toFile: schema, atomically: true, encoding: .utf8)
            let db = folder.appendingPathComponent("sync.sqlite").path
            let first = try Self.restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL, "accounts", "changes"])
            #expect(first.status == 0, "\(first.errors)")
            #expect(first.output == "accounts: 1 run, 1 pages, 3 records\nchanges: 3 runs, 3 pages, 60 records\n")
            #expect(try Self.sql(db, "SELECT json_extract(value, '$.highWater.text._0') FROM rm_checkpoints WHERE key = 'sync/changes/accountID=1'")
                == ["1767225600"])
            try await Self.post(server, "/sync/_mutate?updates=2&inserts=3&seed=1")
            let second = try Self.restmap(["sync", "--schema", schema, "--db", db, "--base-url", server.baseURL, "changes"])
            #expect(second.status == 0, "\(second.errors)")
            #expect(second.output == "changes: 3 runs, 3 pages, 5 records\n")
            #expect(try Self.sql(db, "SELECT count(*), count(DISTINCT eventID) FROM Event") == ["63|63"])
            #expect(try Self.sql(db, "SELECT DISTINCT json_extract(value, '$.highWater.text._0') FROM rm_checkpoints WHERE key LIKE 'sync/changes/%'")
                == ["1767229200"])
        }
    }

    @Test("reset --parent forgets exactly that parent's state, not those whose key it begins (accountID=1 and accountID=10)")
    func resetOneParentOfMany() async throws {
        try await SampleServer.with(["--sync-accounts", "11"]) { server in
            let db = try Self.folder().appendingPathComponent("sync.sqlite").path
            #expect(try Self.sync(server, db: db, ["accounts", "events"]).status == 0)
            let reset = try Self.restmap(["sync", "reset", "--schema", Self.schema, "--db", db, "events", "--parent", "accountID=1"])
            #expect(reset.errors.contains("forgot 1 state of events"), "\(reset.errors)")
            #expect(try Self.sql(db, "SELECT count(*) FROM rm_checkpoints WHERE key LIKE 'sync/events/%'") == ["10"])
            #expect(try Self.sql(db, "SELECT count(*) FROM rm_checkpoints WHERE key = 'sync/events/accountID=10'") == ["1"])
        }
    }

    @Test("A state that no longer reads (edited by hand) stops status, and reset forgets it or sets it anew")
    func resetRepairsAStateThatDoesNotRead() async throws {
        try await SampleServer.with { server in
            let db = try Self.folder().appendingPathComponent("sync.sqlite").path
            #expect(try Self.sync(server, db: db, ["accounts", "events"]).status == 0)
            _ = try Self.sql(db, "UPDATE rm_checkpoints SET value = '{' WHERE key IN ('sync/events/accountID=1', 'sync/events/accountID=2')")
            #expect(try Self.restmap(["sync", "status", "--schema", Self.schema, "--db", db]).status != 0)
            let forget = try Self.restmap(["sync", "reset", "--schema", Self.schema, "--db", db, "events", "--parent", "accountID=1"])
            #expect(forget.status == 0 && forget.errors.contains("forgot 1 state of events"), "\(forget.errors)")
            let set = try Self.restmap(["sync", "reset", "--schema", Self.schema, "--db", db, "events", "--parent", "accountID=2",
                                        "--to", "2025-12-01T00:20:00Z"])
            #expect(set.status == 0, "\(set.errors)")
            let status = try Self.restmap(["sync", "status", "--schema", Self.schema, "--db", db])
            #expect(status.status == 0, "\(status.errors)")
            #expect(status.output.contains("events [accountID=2]: cursor 2025-12-01T00:20:00Z"), "\(status.output)")
            #expect(!status.output.contains("events [accountID=1]"), "\(status.output)")
        }
    }
}
