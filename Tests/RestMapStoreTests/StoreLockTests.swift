import Foundation
import RestMap
import RestMapStore
import Synchronization
import Testing

/// Named locks (`RecordStore.withLock`) and checkpoints written only over the value they expect.
@Suite struct StoreLockTests {
    static let schema = """
        restmap: 1
        entities:
          Note: { identifiedBy: id, attributes: { id: { from: id, type: integer }, text: text } }
        responses:
          - { entity: Note }
        """

    /// What the holders did, in order.
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// Waits (at most 10 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "timed out")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(arguments: Engine.allCases) func aLockHasOneHolderAtATimeAndOtherNamesDoNotWait(_ engine: Engine) async throws {
        let mapper = try StoreFixture.mapper(yaml: Self.schema)
        let (store, database) = try await engine.newStore(mapper, name: "locks")
        // A second store over the same database stands for another process.
        let other = try await engine.open(database, mapper: mapper)
        let log = Log()
        let (release, releasing) = AsyncStream.makeStream(of: Void.self)

        let holder = Task {
            try await store.withLock("sync/events/accountID=1") {
                log.add("A holds")
                for await _ in release { break }
                log.add("A releases")
            }
        }
        try await Self.eventually { log.all.contains("A holds") }

        let otherName = try await other.withLock("sync/events/accountID=2", whenBusy: { log.add("busy") }) { "free" }
        #expect(otherName == "free")
        let waiter = Task {
            try await other.withLock("sync/events/accountID=1", whenBusy: { log.add("B waits") }) {
                log.add("B holds")
            }
        }
        try await Self.eventually { log.all.contains("B waits") }
        #expect(log.all == ["A holds", "B waits"])
        releasing.yield()
        try await holder.value
        try await waiter.value
        #expect(log.all == ["A holds", "B waits", "A releases", "B holds"])

        // A holder that throws releases the lock too.
        await #expect(throws: StoreFixture.Failure.self) {
            try await store.withLock("sync/events/accountID=1") { throw StoreFixture.Failure(description: "failed") }
        }
        let busy = Mutex(false)
        try await other.withLock("sync/events/accountID=1", whenBusy: { busy.withLock { $0 = true } }) {}
        #expect(!busy.withLock { $0 })
        try other.close()
        try store.close()
    }

    @Test(arguments: Engine.allCases) func aCheckpointIsWrittenOnlyOverTheValueItExpects(_ engine: Engine) async throws {
        let (store, database) = try await engine.newStore(try StoreFixture.mapper(yaml: Self.schema), name: "checkpoints")
        try await store.setCheckpoints([StoreCheckpoint(key: "sync/notes/", value: "first", expected: .nothing)])
        await #expect(throws: CheckpointConflict(key: "sync/notes/")) {
            try await store.setCheckpoints([StoreCheckpoint(key: "sync/notes/", value: "again", expected: .nothing)])
        }
        await #expect(throws: CheckpointConflict(key: "sync/notes/")) {
            try await store.setCheckpoints([StoreCheckpoint(key: "sync/other/", value: "x", expected: .nothing),
                                            StoreCheckpoint(key: "sync/notes/", value: "stale", expected: .value("zeroth"))])
        }
        // All or none: the other checkpoint of the refused write is not there either.
        #expect(try await store.checkpoint(forKey: "sync/other/") == nil)
        try await store.setCheckpoints([StoreCheckpoint(key: "sync/notes/", value: "second", expected: .value("first"))])
        #expect(try await store.checkpoint(forKey: "sync/notes/")?.value == "second")

        // A save whose checkpoint conflicts stores none of its records.
        let response = Response(method: "GET", path: "/notes", status: 200, body: #"[{"id": 1, "text": "kept?"}]"#)
        let result = try store.mapper.map(response)
        await #expect(throws: CheckpointConflict(key: "sync/notes/")) {
            try await store.save(result, of: response, isCompletePage: false,
                                 checkpoints: [StoreCheckpoint(key: "sync/notes/", value: "third", expected: .value("first"))])
        }
        #expect(try await store.records(StoreQuery(entity: "Note")).isEmpty)
        #expect(try engine.sql(database, #"SELECT count(*) FROM "Note""#, namespace: "restmap") == ["0"])
        try await store.save(result, of: response, isCompletePage: false,
                             checkpoints: [StoreCheckpoint(key: "sync/notes/", value: "third", expected: .value("second"))])
        #expect(try await store.records(StoreQuery(entity: "Note")).map { $0.text.string } == ["kept?"])
        #expect(try await store.checkpoint(forKey: "sync/notes/")?.value == "third")
        try store.close()
    }
}
