import Foundation
import RestMap
import RestMapStore
import Testing

let itemSchema = """
    restmap: 1
    name: items
    entities:
      Item:
        identifiedBy: id
        attributes:
          id: { from: id, type: integer }
          name: name
          batch: { from: batch, type: integer }
    responses:
      - { entity: Item }
    store:
      search: { Item: [name] }
    """

/// `count` items as a JSON array, ids from `first`.
func items(_ count: Int, from first: Int = 0, batch: Int = 0) -> String {
    "[" + (first..<first + count).map { #"{"id": \#($0), "name": "item number \#($0) of batch \#(batch)", "batch": \#(batch)}"# }
        .joined(separator: ",") + "]"
}

@Suite struct CrashSafetyTests {
    @Test func killingAnImportMidWayLeavesTheStoreIntactAndAsBefore() throws {
        let folder = try StoreFixture.folder()
        let schema = folder.appendingPathComponent("items.yaml")
        try itemSchema.write(to: schema, atomically: true, encoding: .utf8)
        let db = folder.appendingPathComponent("items.sqlite").path
        let small = folder.appendingPathComponent("small.json")
        try items(200).write(to: small, atomically: true, encoding: .utf8)
        let baseline = try Program.restmap(["store", "import", "--schema", schema.path, "--db", db, small.path])
        #expect(baseline.status == 0, "\(baseline.errors)")
        let before = try Program.sqlite(db, ".dump")
        #expect(before.count > 200)

        // A body large enough that the single transaction spills pages into the WAL long before it commits.
        let large = folder.appendingPathComponent("large.json")
        try items(400_000, from: 100, batch: 1).write(to: large, atomically: true, encoding: .utf8)
        let process = try Program.start(Program.restmap, ["store", "import", "--schema", schema.path, "--db", db, large.path])
        let wal = db + "-wal"
        var walSize = 0
        for _ in 0..<60_000 where process.isRunning {
            walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
            if walSize > 8 << 20 { break }
            usleep(1000)
        }
        try #require(process.isRunning, "the import ended before it could be interrupted")
        #expect(walSize > 8 << 20)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        #expect(try Program.sqlite(db, "PRAGMA integrity_check") == ["ok"])
        #expect(try Program.sqlite(db, ".dump") == before)
        #expect(try Program.sqlite(db, #"SELECT count(*) FROM "Item.search" WHERE "Item.search" MATCH '"batch 1"'"#) == ["0"])
    }

    @Test func severalTasksMapAndSaveWhileAnotherReads() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("items.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: itemSchema))
        let writers = 4, responses = 15, perResponse = 40
        let total = writers * responses * perResponse
        let observed = try await withThrowingTaskGroup(of: [Int].self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for response in 0..<responses {
                        let first = (writer * responses + response) * perResponse
                        let body = items(perResponse, from: first, batch: writer)
                        let result = try store.mapper.map(Response(path: "/", body: body))
                        try await store.save(result, of: Response(method: "POST", path: "/", body: body))
                    }
                    return []
                }
            }
            group.addTask {
                var counts: [Int] = []
                for _ in 0..<100_000 {
                    let count = try await store.counts().first?.count ?? -1
                    counts.append(count)
                    if count == total { break }
                    await Task.yield()
                }
                return counts
            }
            var all: [Int] = []
            for try await counts in group { all += counts }
            return all
        }
        // Readers see whole saves only, never a part of one, and never go back.
        #expect(observed.allSatisfy { $0 % perResponse == 0 })
        #expect(observed == observed.sorted())
        #expect(observed.last == total)
        #expect(try await store.counts().first?.count == total)
        #expect(try await store.integrityCheck() == "ok")
        try store.close()
    }
}
