import Foundation
import RestMap
import RestMapStore
import Synchronization
import Testing

@Suite struct ChangeFeedTests {
    @Test(arguments: Engine.allCases) func theFeedReportsInsertedUpdatedAndDeletedRecordsPerTransaction(_ engine: Engine) async throws {
        let (store, _) = try await engine.newStore(try StoreFixture.mapper(schema: "mongohq.yaml"), name: "mongohq")
        try await StoreFixture.save(store, path: "/databases/shop/collections", body: #"[{"name": "movies", "count": 1}]"#)
        let feed = store.changes(StoreQuery(entity: "Collection", filters: [("databaseID", .string("shop"))], order: [("name", true)]))
        var iterator = feed.makeAsyncIterator()

        let initial = try #require(try await iterator.next())
        #expect(initial.inserted.map { $0.name.string } == ["movies"] && initial.updated.isEmpty && initial.deleted.isEmpty)

        try await StoreFixture.save(store, path: "/databases/shop/collections",
                                    body: #"[{"name": "movies", "count": 2}, {"name": "books", "count": 0}]"#)
        let second = try #require(try await iterator.next())
        #expect(second.inserted.map { $0.name.string } == ["books"])
        #expect(second.updated.map { $0.count.int } == [2])
        #expect(second.records.map { $0.name.string } == ["books", "movies"])

        // A save outside the query's scope changes nothing in its result: no element for it.
        try await StoreFixture.save(store, path: "/databases/blog/collections", body: #"[{"name": "posts"}]"#)
        try await StoreFixture.save(store, path: "/databases/shop/collections", body: #"[{"name": "books", "count": 0}]"#)
        let third = try #require(try await iterator.next())
        #expect(third.deleted.map { $0.name.string } == ["movies"] && third.deleted.first?.count.int == 2)
        #expect(third.inserted.isEmpty && third.updated.isEmpty)
        try store.close()
    }

    @Test(arguments: Engine.allCases) func upsertsAloneReachTheFeed(_ engine: Engine) async throws {
        // No store rules: the save runs nothing but the upserts (and the GET path record).
        let (store, _) = try await engine.newStore(try StoreFixture.mapper(yaml: """
            restmap: 1
            entities:
              Note: { identifiedBy: id, attributes: { id: { from: id, type: integer }, text: text } }
            responses:
              - { entity: Note }
            """), name: "notes")
        try await StoreFixture.save(store, path: "/notes", body: #"[{"id": 1, "text": "a"}]"#)
        let next = try await Self.elements(of: store, StoreQuery(entity: "Note"),
                                           after: [[("/notes", #"[{"id": 1, "text": "b"}]"#)], [("/notes", #"[{"id": 2, "text": "c"}]"#)]])
        #expect(next.count == 3)
        #expect(next.dropFirst().first?.updated.map { $0.text.string } == ["b"])
        #expect(next.dropFirst(2).first?.inserted.map { $0.text.string } == ["c"])
        try store.close()
    }
}

extension ChangeFeedTests {
    /// The feed's first element, then one after each step's saves (a step saves one or more bodies
    /// as GETs of their paths). Bounded: after 20 s it returns the elements that came.
    static func elements(of store: RecordStore, _ query: StoreQuery,
                         after steps: [[(path: String, body: String)]]) async throws -> [StoreChanges] {
        let received = Received()
        let feed = store.changes(query)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = feed.makeAsyncIterator()
                for step in [[]] + steps {
                    for (path, body) in step { try await StoreFixture.save(store, path: path, body: body) }
                    guard let element = try await iterator.next() else { break }
                    received.elements.withLock { $0.append(element) }
                }
            }
            group.addTask { try await Task.sleep(for: .seconds(20)) }   // the feed must have answered by then
            try await group.next()
            group.cancelAll()
        }
        return received.elements.withLock { $0 }
    }

    /// The elements a feed gave so far.
    final class Received: Sendable {
        let elements = Mutex<[StoreChanges]>([])
    }

    @Test(arguments: Engine.allCases) func aChangeToARelatedRecordReachesTheFeedAndOtherEntitiesDoNot(_ engine: Engine) async throws {
        let (store, _) = try await engine.newStore(try StoreFixture.mapper(yaml: StoreFixture.repositoriesSchema), name: "feed")
        try await StoreFixture.save(store, path: "/repositories", body: #"[{"id": 1, "stars": 1, "owner": {"id": 7, "login": "ann"}}]"#)
        // The owner alone changes; then an entity the query does not read, and the repository.
        let elements = try await Self.elements(of: store, StoreQuery(entity: "Repository", depth: 1), after: [
            [("/owners", #"[{"id": 7, "login": "bea"}]"#)],
            [("/labels", #"[{"name": "swift"}]"#), ("/repositories", #"[{"id": 1, "stars": 2, "owner": {"id": 7, "login": "bea"}}]"#)],
        ])
        try #require(elements.count == 3, "the feed gave \(elements.count) of 3 elements in 20 s")
        #expect(elements[0].inserted.count == 1)
        // The repository, read with its owner, is updated when the owner alone changes.
        #expect(elements[1].updated.map { $0.owner.record?.login.string } == ["bea"])
        // The label's save yields no element: the next one is the repository's change.
        #expect(elements[2].updated.map { $0.stars.int } == [2] && elements[2].inserted.isEmpty && elements[2].deleted.isEmpty)
        try store.close()
    }
}

/// PostgreSQL's feed follows every writer: a save by another process reaches it.
@Suite struct PostgresChangeFeedTests {
    @Test func aSaveByAnotherProcessReachesTheFeed() async throws {
        let (store, db) = try await Engine.postgres.newStore(try StoreFixture.mapper(schema: "mongohq.yaml"), name: "mongohq")
        try await StoreFixture.save(store, path: "/databases/shop/collections", body: #"[{"name": "movies", "count": 1}]"#)
        var iterator = store.changes(StoreQuery(entity: "Collection", order: [("name", true)])).makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.records.map { $0.name.string } == ["movies"])
        let folder = try StoreFixture.folder()
        let body = folder.appendingPathComponent("books.json")
        try #"[{"name": "books", "count": 4}]"#.write(to: body, atomically: true, encoding: .utf8)
        let run = try Program.restmap(["store", "import", "--schema", "Schemas/mongohq.yaml", "--db", db,
                                       "--path", "/databases/shop/collections", body.path])
        #expect(run.status == 0, "\(run.errors)")
        let next = try #require(try await iterator.next())
        #expect(next.inserted.map { $0.name.string } == ["books"])
        #expect(next.deleted.map { $0.name.string } == ["movies"], "the import's orphan rule deleted it")
        try store.close()
    }
}
