import Foundation
import RestMap
import RestMapStore
import Testing

/// The seed stories, persisted in real SQLite files.
@Suite struct SeedStoryTests {
    @Test func theTaskListIsPersistedWithUsersConnectedToTheirTasks() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("tasks.sqlite").path
        let mapper = try StoreFixture.mapper(schema: "tasks.yaml")
        let store = try RecordStore(path: db, mapper: mapper)
        let response = Response(path: "/task_list", body: try StoreFixture.sample("tasks/task_list.json"))
        let summary = try await store.importResponse(response).summary
        #expect(summary.inserted == 17)   // 3 projects, 3 users, 11 tasks
        let blake = try #require(try await store.record("User", identifiedBy: [.integer(1)]))
        #expect(blake.related("assignedTasks").map { $0.taskID.int } == [1, 2, 3, 4, 7])
        #expect(blake.related("projects").map { $0.projectID.int } == [123])
        let review = try #require(try await store.record("Task", identifiedBy: [.integer(7)]))
        #expect(review.assignedUser.name.string == "Blake Watters")
        let projects = try await store.records(StoreQuery(entity: "Project", order: [("name", true)], depth: 2))
        #expect(projects.map { $0.name.string } == ["Document Object Mapper", "Produce RestKit Sample Code", "Wash the Cat"])
        #expect(projects[0].related("tasks").map { $0.assignedUser.name.string } == Array(repeating: "Jeremy Ellison", count: 2)
            + ["Blake Watters", "Jeremy Ellison"])
        try store.close()
        #expect(try Program.sqlite(db, """
            SELECT t.taskID, u.name FROM Task t JOIN User u ON u.rm_id = t.assignedUser WHERE t.taskID IN (5, 7) ORDER BY t.taskID
            """) == ["5|Jeremy Ellison", "7|Blake Watters"])
    }

    @Test func mongoHQCollectionsAreReplacedPerDatabaseBySecondGet() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("mongohq.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(schema: "mongohq.yaml"))
        try await store.importResponse(Response(path: "/databases", body: try StoreFixture.sample("mongohq/databases.json")))
        let collections = try StoreFixture.sample("mongohq/collections.json")
        for database in ["shop", "blog"] {
            let first = try await store.importResponse(Response(path: "/databases/\(database)/collections", body: collections)).summary
            #expect(first.inserted == 2)
        }
        let second = try await StoreFixture.save(store, path: "/databases/shop/collections",
                                                 body: #"[{"name": "movies", "count": 4, "indexCount": 1, "storageSize": 16384}]"#)
        #expect(second.description == "inserted 0, updated 1, unchanged 0, deleted 1 orphans, skipped 0 not newer")
        let remaining = try await store.records(StoreQuery(entity: "Collection", order: [("databaseID", true), ("name", true)]))
        #expect(remaining.map { "\($0.databaseID.string ?? "")/\($0.name.string ?? "")" }
            == ["blog/movies", "blog/some_collection", "shop/movies"])
        #expect(remaining.last?.count.int == 4)
        #expect(try await store.records(forPath: "/databases/shop/collections")?.map { $0.name.string } == ["movies"])
        #expect(try await store.search("mov").count == 2)
        try store.close()
    }

    @Test func gitHubRepositoriesUpsertTwiceWithStarsChanging() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("github.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(schema: "github.yaml"))
        let starred = String(decoding: try StoreFixture.sample("github/starred.json"), as: UTF8.self)
        let first = try await StoreFixture.save(store, path: "/users/octocat/starred", body: starred)
        #expect(first.inserted == 5 && first.updated == 0)   // 3 repositories, 2 owners
        let moreStars = starred.replacingOccurrences(of: #""stargazers_count": 80"#, with: #""stargazers_count": 81"#)
            .replacingOccurrences(of: #""stargazers_count": 8213"#, with: #""stargazers_count": 9000"#)
        try #require(moreStars != starred, "the edited body must differ for the second import to update")
        let second = try await StoreFixture.save(store, path: "/users/octocat/starred", body: moreStars)
        #expect(second.description == "inserted 0, updated 2, unchanged 3, deleted 0 orphans, skipped 0 not newer")
        let repositories = try await store.records(StoreQuery(entity: "Repository", order: [("stargazersCount", false)]))
        #expect(repositories.map { $0.stargazersCount.int } == [9000, 1203, 81])
        #expect(repositories.first?.owner.login.string == "RestKit")
        try store.close()
        #expect(try Program.sqlite(db, "SELECT count(*) FROM Repository") == ["3"])
    }

    @Test func searchFindsStashboardMessages() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("stashboard.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(schema: "stashboard.yaml"))
        try await store.importResponse(Response(path: "/services", body: try StoreFixture.sample("stashboard/services.json")))
        try await store.importResponse(Response(path: "/services/aaron/events", body: try StoreFixture.sample("stashboard/aaron_events.json")))
        let operational = try await store.search("OPERAT", entity: "StatusItem")
        #expect(Set(operational.map { $0.serviceID.string }) == ["aaron", "alex", "arrow"])   // "operating" too
        #expect(try await store.search("alex operational", entity: "StatusItem").map { $0.serviceID.string } == ["alex"])
        // Every entity with search attributes: the service and its current event.
        #expect(try await store.search("databases accessible").map(\.entity).sorted() == ["Event", "StatusItem"])
        #expect(try await store.search("operational nowhere").isEmpty)
        let events = try await store.search("systems", entity: "Event")
        #expect(!events.isEmpty && events.allSatisfy { ($0.message.string ?? "").contains("systems") })
        // Stored records read back as mapping gives them, relationships two levels deep.
        let mapped = try store.mapper.map(Response(path: "/services", body: try StoreFixture.sample("stashboard/services.json")))
        let stored = try await store.records(forPath: "/services", depth: 2)
        #expect(stored.map { RecordWriter.json($0) } == RecordWriter.json(mapped.records))
        try store.close()
    }

    @Test func searchIgnoresCaseAndDiacriticsAndRanksBestFirst() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("bank.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: bankSchema))
        let people = [(1, "Zoë Ångström"), (2, "Zoe Anderson Zoe"), (3, "Crème Brûlée")]
        let body = "[" + people.map { account("x", Int64($0.0), owner: $0.0, ownerName: $0.1) }.joined(separator: ",") + "]"
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        #expect(try await store.search("zoe ANG").map { $0.name.string } == ["Zoë Ångström"])
        #expect(try await store.search("creme brul", entity: "Person").map { $0.id.int } == [3])
        #expect(try await store.search("zoe").first?.id.int == 2)   // two matches rank above one
        await #expect(throws: StoreError.self) { try await store.search("x", entity: "Card") }
        try store.close()
    }

    @Test func aSeededDatabaseIsReproducibleAndReopens() async throws {
        let folder = try StoreFixture.folder()
        let arguments = { (db: String) in
            ["seed", "--schema", "Schemas/tasks.yaml", "--db", db, "Samples/tasks/task_list.json:/task_list"]
        }
        let first = folder.appendingPathComponent("first.sqlite").path
        let second = folder.appendingPathComponent("second.sqlite").path
        let run = try Program.restmap(arguments(first))
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("Samples/tasks/task_list.json: inserted 17, updated 0"))
        #expect(run.output.contains("Task: 11"))
        #expect(try Program.restmap(arguments(second)).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))
        // Seeding again replaces the file, with the same bytes.
        #expect(try Program.restmap(arguments(second)).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(contentsOf: URL(fileURLWithPath: second)))

        let store = try RecordStore(path: first, mapper: try StoreFixture.mapper(schema: "tasks.yaml"))
        #expect(try await store.integrityCheck() == "ok")
        #expect(try await store.records(forPath: "/task_list")?.map { $0.projectID.int } == [123, 456, 789])
        let user = try await store.record("User", identifiedBy: [.integer(3)])
        #expect(user?.related("assignedTasks").count == 3)
        try store.close()
    }
}
