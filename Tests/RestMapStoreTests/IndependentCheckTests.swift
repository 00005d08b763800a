import Foundation
import RestMap
import RestMapStore
import Testing

/// The store read by another program with plain SQL: Python's sqlite3 module, and the CLI.
@Suite struct IndependentCheckTests {
    /// Checks what the schemas imply, with no knowledge of RestMap's code.
    static let script = #"""
    import sqlite3, sys
    tasks = sqlite3.connect(sys.argv[1])
    # Records, with exact identities.
    assert tasks.execute("SELECT count(*) FROM Task").fetchone()[0] == 11
    assert [r[0] for r in tasks.execute("SELECT name FROM User ORDER BY userID")] == ["Blake Watters", "Jeremy Ellison", "Rachit Shukla"]
    # A unique index over the identification attribute.
    unique = [r for r in tasks.execute("PRAGMA index_list('Task')") if r[2] == 1]
    assert [[c[2] for c in tasks.execute("PRAGMA index_info('%s')" % r[1])] for r in unique] == [["taskID"]], unique
    try:
        tasks.execute("INSERT INTO Task (taskID, name) VALUES (1, 'duplicate')")
        raise SystemExit("a duplicate identity was accepted")
    except sqlite3.IntegrityError:
        pass
    # Foreign keys: the task's assignee, and the project's tasks through the join table.
    fks = [(r[2], r[3], r[4]) for r in tasks.execute("PRAGMA foreign_key_list('Task')")]
    assert ("User", "assignedUser", "rm_id") in fks, fks
    wrong = tasks.execute("SELECT count(*) FROM Task t JOIN User u ON u.rm_id = t.assignedUser WHERE u.userID <> t.assignedUserID").fetchone()[0]
    assert wrong == 0
    assert tasks.execute("SELECT count(*) FROM Task WHERE assignedUser IS NULL").fetchone()[0] == 0
    order = [r[0] for r in tasks.execute('''SELECT t.taskID FROM "Project.tasks" j JOIN Project p ON p.rm_id = j.source
        JOIN Task t ON t.rm_id = j.target WHERE p.projectID = 456 ORDER BY j.position''')]
    assert order == [5, 6, 7, 8], order
    assert tasks.execute("PRAGMA foreign_key_check").fetchall() == []
    print("tasks ok")

    mongo = sqlite3.connect(sys.argv[2])
    # Orphans: the second GET of shop's collections removed one there, none in blog.
    rows = mongo.execute("SELECT databaseID, name FROM Collection ORDER BY databaseID, name").fetchall()
    assert rows == [("blog", "movies"), ("blog", "some_collection"), ("shop", "movies")], rows
    # The full-text index of store.search, prefix and case-insensitive.
    hits = mongo.execute('''SELECT c.databaseID FROM "Collection.search" s JOIN Collection c ON c.rm_id = s.rowid
        WHERE "Collection.search" MATCH 'MOV*' ORDER BY c.databaseID''').fetchall()
    assert hits == [("blog",), ("shop",)], hits
    assert mongo.execute('''SELECT count(*) FROM "Collection.search" WHERE "Collection.search" MATCH 'some*' ''').fetchone()[0] == 1
    assert mongo.execute("SELECT value FROM rm_schema WHERE key = 'schemaName'").fetchone()[0] == "mongohq"
    print("mongohq ok")
    """#

    @Test func pythonFindsRecordsIdentitiesForeignKeysOrphanDeletionsAndTheSearchIndex() async throws {
        let folder = try StoreFixture.folder()
        let tasksDB = folder.appendingPathComponent("tasks.sqlite").path
        let mongoDB = folder.appendingPathComponent("mongohq.sqlite").path
        let tasks = try RecordStore(path: tasksDB, mapper: try StoreFixture.mapper(schema: "tasks.yaml"))
        try await tasks.importResponse(Response(path: "/task_list", body: try StoreFixture.sample("tasks/task_list.json")))
        try tasks.close()
        let mongo = try RecordStore(path: mongoDB, mapper: try StoreFixture.mapper(schema: "mongohq.yaml"))
        let collections = try StoreFixture.sample("mongohq/collections.json")
        for database in ["shop", "blog"] {
            try await mongo.importResponse(Response(path: "/databases/\(database)/collections", body: collections))
        }
        try await StoreFixture.save(mongo, path: "/databases/shop/collections", body: #"[{"name": "movies"}]"#)
        try mongo.close()

        let script = folder.appendingPathComponent("check.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let run = try Program.run(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, tasksDB, mongoDB])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "tasks ok\nmongohq ok\n")
    }
}

/// `restmap store import|query|search` and their summary lines.
@Suite struct StoreCommandTests {
    @Test func importQueryAndSearchFromTheCommandLine() throws {
        let db = try StoreFixture.folder().appendingPathComponent("github.sqlite").path
        let common = ["--schema", "Schemas/github.yaml", "--db", db]
        let imported = try Program.restmap(["store", "import"] + common + ["--path", "/users/octocat/starred", "Samples/github/starred.json"])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "inserted 5, updated 0, unchanged 0, deleted 0 orphans, skipped 0 not newer\n")

        let query = try Program.restmap(["store", "query"] + common
            + ["Repository", "--where", "ownerLogin=octocat", "--order", "stargazersCount:desc", "--limit", "1", "--format", "ndjson"])
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.hasPrefix(#"{"$entity":"Repository","repositoryId":1300192,"#))
        #expect(query.output.contains(#""owner":{"$entity":"User","login":"octocat""#))
        #expect(query.errors == "1 record\n")

        let csv = try Program.restmap(["store", "query"] + common + ["Repository", "--order", "name", "--format", "csv", "--depth", "0"])
        #expect(csv.output.split(separator: "\r\n").first?.hasPrefix("$entity,repositoryId,name,fullName") == true)
        #expect(csv.output.split(separator: "\r\n").count == 4)

        let offline = try Program.restmap(["store", "query"] + common + ["--path", "/users/octocat/starred", "--format", "ndjson"])
        #expect(offline.output.split(separator: "\n").count == 3)
        let missing = try Program.restmap(["store", "query"] + common + ["--path", "/users/nobody/starred"])
        #expect(missing.status == 1 && missing.errors.contains("no saved GET of /users/nobody/starred"))

        let search = try Program.restmap(["store", "search"] + common + ["Repository", "hello", "WOR", "--format", "ndjson"])
        #expect(search.status == 0, "\(search.errors)")
        #expect(search.output.contains(#""fullName":"octocat/Hello-World""#))
        #expect(search.errors == "1 record\n")

        let unknown = try Program.restmap(["store", "query"] + common + ["Repo"])
        #expect(unknown.status == 1 && unknown.errors.contains("unknown entity 'Repo'"))
        let badFilter = try Program.restmap(["store", "query"] + common + ["Repository", "--where", "stargazersCount=many"])
        #expect(badFilter.status == 1 && badFilter.errors.contains("Repository.stargazersCount"))
    }

    @Test func aDestructiveSchemaChangeIsRefusedByName() throws {
        let folder = try StoreFixture.folder()
        let db = folder.appendingPathComponent("items.sqlite").path
        let schema = folder.appendingPathComponent("items.yaml")
        try itemSchema.write(to: schema, atomically: true, encoding: .utf8)
        let body = folder.appendingPathComponent("items.json")
        try items(3).write(to: body, atomically: true, encoding: .utf8)
        #expect(try Program.restmap(["store", "import", "--schema", schema.path, "--db", db, body.path]).status == 0)
        try itemSchema.replacingOccurrences(of: "      batch: { from: batch, type: integer }\n", with: "")
            .write(to: schema, atomically: true, encoding: .utf8)
        let refused = try Program.restmap(["store", "import", "--schema", schema.path, "--db", db, body.path])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("attribute 'Item.batch' was removed"))
        #expect(refused.errors.contains("--rebuild"))
        let rebuilt = try Program.restmap(["store", "import", "--schema", schema.path, "--db", db, "--rebuild", body.path])
        #expect(rebuilt.output == "inserted 3, updated 0, unchanged 0, deleted 0 orphans, skipped 0 not newer\n")
    }
}
