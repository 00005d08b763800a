import Foundation
import RestMap
import RestMapStore
import RestMapTestSupport
import Testing

/// Several `restmap store import` processes writing one PostgreSQL store at once.
@Suite struct ManyWritersTests {
    static let schema = """
        restmap: 1
        name: shop
        entities:
          Item:
            identifiedBy: id
            attributes: { id: { from: id, type: integer }, name: { from: name, type: string }, version: { from: version, type: integer } }
            relationships:
              owner: { from: owner, entity: Owner }
              labels: { from: labels, entity: Label, many: true }
          Owner: { identifiedBy: id, attributes: { id: { from: id, type: integer }, login: { from: login, type: string } } }
          Label: { identifiedBy: name, attributes: { name: { from: name, type: string } } }
        responses:
          - { entity: Item }
        store:
          modifiedBy: { Item: version }
        """

    /// Version `version` of the items it holds: 600 items, overlapping the next version's by 450.
    static func body(version: Int) -> String {
        let items = ((version - 1) * 150 ..< (version - 1) * 150 + 600).map { id in
            let owner = (id * 7 + version) % 50
            let labels = Set([(id + version) % 10, (id + 2 * version) % 10]).sorted().map { #"{"name": "l\#($0)"}"# }
            return #"{"id": \#(id), "name": "item \#(id) v\#(version)", "version": \#(version), "owner": {"id": \#(owner), "login": "u\#(owner)"}, "#
                + #""labels": [\#(labels.joined(separator: ", "))]}"#
        }
        return "[" + items.joined(separator: ",\n") + "]"
    }

    /// Every item with its owner and labels, and the row counts of every table.
    static func contents(_ database: String) throws -> [String] {
        try Engine.postgres.sql(database, """
            SELECT i.id, i.name, i.version, o.id, o.login, (SELECT string_agg(l.name, ',' ORDER BY j.position) FROM "Item.labels" j
                JOIN "Label" l ON l.rm_id = j.target WHERE j.source = i.rm_id)
            FROM "Item" i LEFT JOIN "Owner" o ON o.rm_id = i.owner ORDER BY i.id
            """, namespace: "shop")
            + Engine.postgres.sql(database, #"SELECT (SELECT count(*) FROM "Item"), (SELECT count(*) FROM "Owner"), "#
                + #"(SELECT count(*) FROM "Label"), (SELECT count(*) FROM "Item.labels")"#, namespace: "shop")
    }

    @Test func fourWritersOverOverlappingRecordsLeaveWhatOneWriterLeaves() throws {
        let folder = try StoreFixture.folder()
        let schema = folder.appendingPathComponent("shop.yaml")
        try Self.schema.write(to: schema, atomically: true, encoding: .utf8)
        let bodies = try (1...4).map { version in
            let file = folder.appendingPathComponent("v\(version).json")
            try Self.body(version: version).write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        @Sendable func importing(_ database: String, _ files: [String]) throws -> [String] {
            try files.compactMap { file in
                let run = try Program.restmap(["store", "import", "--schema", schema.path, "--db", database, file])
                return run.status == 0 ? nil : "\(file): \(run.errors)"
            }
        }
        let serial = try PostgresServer.freshDatabase()
        #expect(try importing(serial, bodies).isEmpty)

        // Four processes at once, each importing every version, each in another order, twice.
        let shared = try PostgresServer.freshDatabase()
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { writer in
            let order = (0..<4).map { bodies[($0 + writer) % 4] }
            do { failures.add(try importing(shared, writer % 2 == 0 ? order + order : order.reversed() + order)) } catch { failures.add(["\(error)"]) }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let expected = try Self.contents(serial)
        #expect(expected.count == 1051 && expected.last == "1050|50|10|2100")
        #expect(try Self.contents(shared) == expected)
    }

    /// Only a save into an empty table takes the bulk insert: its rows get their ids in the
    /// body's order (drawn beforehand), while a later save of new identities upserts them, and
    /// `ON CONFLICT` inserts in identity order.
    @Test func onlyASaveIntoAnEmptyTableInsertsInBulk() async throws {
        let mapper = try StoreFixture.mapper(yaml: Self.schema)
        let (store, database) = try await Engine.postgres.newStore(mapper, name: "shop")
        func items(_ ids: [Int]) -> String {
            "[" + ids.map { #"{"id": \#($0), "name": "item \#($0)", "version": 1}"# }.joined(separator: ",") + "]"
        }
        #expect(try await StoreFixture.save(store, path: "/items", body: items((0..<300).reversed())).inserted == 300)
        #expect(try await StoreFixture.save(store, path: "/items", body: items((300..<600).reversed())).inserted == 300)
        let byRowID = try Engine.postgres.sql(database, #"SELECT id FROM "Item" ORDER BY rm_id"#, namespace: "shop")
        let expected: [String] = (0..<300).reversed().map { String($0) } + (300..<600).map { String($0) }
        #expect(byRowID == expected)
        try store.close()
    }

    /// A save into an empty table inserts its new identities without looking for conflicts.
    /// When another transaction inserted one of them meanwhile (here a psql session that holds
    /// item 150 uncommitted), the insert waits for it, fails with a unique violation once it
    /// commits, and the save runs again, upserting: nothing lost, nothing doubled.
    @Test func aBulkInsertIntoAnEmptyTableThatAnotherWriterFillsIsRunAgain() async throws {
        let mapper = try StoreFixture.mapper(yaml: Self.schema)
        let (store, database) = try await Engine.postgres.newStore(mapper, name: "shop")
        let holder = try Program.start(URL(fileURLWithPath: "/usr/bin/env"), ["psql", database, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", """
            BEGIN; SET search_path TO shop;
            INSERT INTO "Item" (id, name, version) VALUES (150, '"held"', 9); SELECT pg_sleep(1.5); COMMIT
            """])
        var holding = false
        for _ in 0..<100 where !holding {   // at most 5 s for psql to start and insert
            holding = try Engine.postgres.sql(database, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'") == ["1"]
            if !holding { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(holding)
        let summary = try await StoreFixture.save(store, path: "/items", body: Self.body(version: 1))
        holder.waitUntilExit()
        #expect(holder.terminationStatus == 0)
        // Item 150's held version (9) is newer than the body's (1): it stays, as `modifiedBy` says.
        #expect(summary.inserted == 600 - 1 + 50 + 10 && summary.skippedNotNewer == 1)
        let items = try Engine.postgres.sql(database, #"SELECT count(*), count(DISTINCT id), count(owner) FROM "Item""#, namespace: "shop")
        #expect(items == ["600|600|599"])
        try store.close()
    }
}

/// Failures collected from several threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []

    func add(_ more: [String]) { lock.withLock { failures += more } }
    var all: [String] { lock.withLock { failures } }
}
