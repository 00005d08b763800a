import Foundation
import RestMapTestSupport
import Testing

/// Several `restmap sync` processes writing one store at once: each (resource, parent) is synced
/// by one of them at a time, under its lock in the store.
@Suite("restmap sync, several processes at once")
struct ConcurrentSyncTests {
    enum Database: String, CaseIterable, Sendable, CustomStringConvertible {
        case sqlite, postgres

        var description: String { rawValue }

        func fresh() throws -> String {
            switch self {
            case .sqlite: try SyncCommandTests.folder().appendingPathComponent("sync.sqlite").path
            case .postgres: try PostgresServer.freshDatabase()
            }
        }

        /// Every stored event, a line each.
        func events(_ db: String) throws -> [String] {
            switch self {
            case .sqlite: try SyncCommandTests.sql(db, "SELECT eventID, accountID, title, updatedAt FROM Event ORDER BY eventID")
            case .postgres: try PostgresSyncTests.sql(db, #"SELECT "eventID", "accountID", title, "updatedAt" FROM sync."Event" ORDER BY "eventID""#)
            }
        }
    }

    /// `restmap sync status` without the times of the last runs.
    static func states(_ db: String) throws -> [String] {
        let status = try SyncCommandTests.restmap(["sync", "status", "--schema", SyncCommandTests.schema, "--db", db])
        try #require(status.status == 0, "\(status.errors)")
        return status.output.split(separator: "\n").map { String($0).replacing(/, last run [^,]+/, with: "") }
    }

    @Test("Four syncs at once leave the records and states four syncs one after the other leave, and read no page more",
          arguments: Database.allCases)
    func fourSyncsAtOnceEqualFourInTurn(_ database: Database) async throws {
        // 3 accounts × 200 events in pages of 50.
        try await SampleServer.with(["--sync-accounts", "3", "--sync-events", "200"]) { server in
            let inTurn = try database.fresh()
            for _ in 1...4 {
                let run = try SyncCommandTests.sync(server, db: inTurn)
                #expect(run.status == 0, "\(run.errors)")
            }
            let requestsInTurn = try SyncCommandTests.requests(server)[SyncCommandTests.events] ?? 0
            // The first run reads 4 pages per account, each later one the lookback before its state: 1 page.
            #expect(requestsInTurn == 12 + 3 * 3)

            let atOnce = try database.fresh()
            let runs = try await withThrowingTaskGroup(of: ProcessOutput.self) { group in
                for _ in 1...4 { group.addTask { try await offPool { try SyncCommandTests.sync(server, db: atOnce) } } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for run in runs { #expect(run.status == 0, "\(run.errors)") }
            #expect(try database.events(atOnce) == database.events(inTurn))
            #expect(try database.events(atOnce).count == 600)
            #expect(try Self.states(atOnce) == Self.states(inTurn))
            // Two syncs of one (resource, parent) at once would each read all its pages (48 in all).
            let requestsAtOnce = (try SyncCommandTests.requests(server)[SyncCommandTests.events] ?? 0) - requestsInTurn
            #expect(requestsAtOnce == requestsInTurn)
        }
    }
}
