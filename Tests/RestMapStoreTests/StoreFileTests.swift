import Foundation
import RestMap
import RestMapStore
import RestMapTestSupport
import Testing

/// A small schema with text, a relationship, a search rule and an orphans rule.
let noteSchema = """
    restmap: 1
    name: notes
    entities:
      Note:
        identifiedBy: id
        attributes:
          id: { from: id, type: integer }
          text: text
          price: { from: price, type: decimal }
    responses:
      - { path: /notes, entity: Note }
    store:
      orphans:
        - { path: /notes, entity: Note }
      search: { Note: [text] }
    """

/// The same schema with one more attribute: opening a store built by `noteSchema` migrates it.
let noteSchemaWithTitle = noteSchema.replacingOccurrences(of: "text: text\n", with: "text: text\n      title: title\n")

/// The store's files as input: exact text, damaged tables, missing and read-only files, and
/// stores created by two processes at once. Each runs the built `restmap` binary.
@Suite struct StoreFileTests {
    /// A folder with the note schema and a body file.
    struct Workspace {
        let folder: URL
        var schema: String { folder.appendingPathComponent("notes.yaml").path }
        var db: String { folder.appendingPathComponent("notes.sqlite").path }

        init(body: String = #"[{"id": 1, "text": "a\u0000b", "price": 1.5}, {"id": 2, "text": "plain", "price": 2}]"#) throws {
            folder = try StoreFixture.folder()
            try noteSchema.write(toFile: schema, atomically: true, encoding: .utf8)
            try body.write(toFile: file("notes.json"), atomically: true, encoding: .utf8)
        }

        func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

        /// `restmap store import` of a body file as a GET of /notes.
        func importBody(_ name: String = "notes.json", schema: String? = nil) throws -> Program.Run {
            try Program.restmap(["store", "import", "--schema", schema ?? self.schema, "--db", db, "--path", "/notes", file(name)])
        }

        func restmap(_ arguments: [String]) throws -> Program.Run {
            try Program.restmap(arguments.map { $0 == "SCHEMA" ? schema : $0 == "DB" ? db : $0 })
        }

        /// The files in the folder, by name.
        func files() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) }
    }

    // MARK: 26.2: text with U+0000

    @Test func textWithANulCharacterReadsBackWhole() throws {
        let work = try Workspace()
        let saved = try work.importBody()
        #expect(saved.status == 0, "\(saved.errors)")
        #expect(try Program.sqlite(work.db, "SELECT length(CAST(text AS BLOB)) FROM Note WHERE id = 1") == ["3"])
        let nul = #""text":"a\u0000b""#
        let query = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note", "--where", "id=1", "--format", "ndjson"])
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.contains(nul), "\(query.output)")
        let byPath = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "--path", "/notes", "--format", "ndjson"])
        #expect(byPath.output.contains(nul), "\(byPath.output)")
        let search = try work.restmap(["store", "search", "--schema", "SCHEMA", "--db", "DB", "a", "--format", "ndjson"])
        #expect(search.output.contains(nul), "\(search.output)")
        let offline = try work.restmap(["get", "--schema", "SCHEMA", "--base-url", "http://127.0.0.1:9", "--store", "DB", "--offline",
                                        "/notes", "--format", "ndjson"])
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(offline.output.contains(nul), "\(offline.output)")
    }

    @Test func aTextIdentityWithANulCharacterIsMatchedWhole() async throws {
        // Filters and tombstones bind text by its length: "a\0b" is not "a".
        let db = try StoreFixture.folder().appendingPathComponent("keys.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: """
            restmap: 1
            entities:
              Key: { identifiedBy: name, attributes: { name: name, gone: { from: gone, type: boolean } } }
            responses:
              - { entity: Key }
            store:
              tombstone: { Key: { gone: true } }
            """))
        try await StoreFixture.save(store, path: "/keys", body: #"[{"name": "a"}, {"name": "a\u0000b"}]"#)
        let found = try await store.records(StoreQuery(entity: "Key", filters: [("name", .string("a\u{0}b"))]))
        #expect(found.map { $0.name.string } == ["a\u{0}b"])
        let summary = try await StoreFixture.save(store, path: "/keys", body: #"[{"name": "a\u0000b", "gone": true}]"#)
        #expect(summary.deletedTombstones == 1)
        #expect(try await store.records(StoreQuery(entity: "Key")).map { $0.name.string } == ["a"])
        try store.close()
    }

    // MARK: 26.3: a damaged store file is an error, not a crash

    @Test func aDamagedPathsTableIsAnErrorNamingTheFileAndTable() throws {
        let work = try Workspace()
        #expect(try work.importBody().status == 0)
        // The table rebuilt without STRICT, so that it can hold what a damaged file might.
        let pristine = try Data(contentsOf: URL(fileURLWithPath: work.db))
        let bad = ["5", "NULL", "'[[\"Note\"]]'", "'[[\"Nobody\", 1]]'", "'[[\"Note\", \"one\"]]'", "'not json'", "x'00ff'", "'{\"a\": 1}'"]
        for value in bad {
            try pristine.write(to: URL(fileURLWithPath: work.db))
            _ = try Program.sqlite(work.db, """
                DROP TABLE rm_paths; CREATE TABLE rm_paths (path TEXT PRIMARY KEY, generation INTEGER, roots);
                INSERT INTO rm_paths VALUES ('/notes', 1, \(value));
                """)
            for arguments in [["store", "query", "--schema", "SCHEMA", "--db", "DB", "--path", "/notes"],
                              ["get", "--schema", "SCHEMA", "--base-url", "http://127.0.0.1:9", "--store", "DB", "--offline", "/notes"]] {
                let run = try work.restmap(arguments)
                #expect(run.status == 1, "\(value): \(run.status) \(run.errors)")
                #expect(run.errors.contains("\(work.db): table rm_paths"), "\(value): \(run.errors)")
                #expect(run.errors.contains("PRAGMA quick_check"), "\(value): \(run.errors)")
                #expect(!run.errors.contains("Fatal error") && run.output.isEmpty, "\(value): \(run.errors)")
            }
        }
    }

    @Test func damagedTablesOfTheStoreAreErrorsNamingTheFile() throws {
        let work = try Workspace()
        #expect(try work.importBody().status == 0)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: work.db))
        let damage = [
            // The layout record: not JSON, a number, absent.
            ("UPDATE rm_schema SET value = 'garbage' WHERE key = 'layout'", "layout record is missing or unreadable"),
            ("DROP TABLE rm_schema; CREATE TABLE rm_schema (key TEXT PRIMARY KEY, value); INSERT INTO rm_schema VALUES ('layout', 7)",
             "table rm_schema, column 'value'"),
            ("DELETE FROM rm_schema WHERE key = 'layout'", "layout record is missing or unreadable"),
            ("UPDATE rm_schema SET value = '99' WHERE key = 'format'", "the store's format is '99'"),
            ("DROP TABLE rm_paths", "not a RestMap store"),
        ]
        for (sql, message) in damage {
            try pristine.write(to: URL(fileURLWithPath: work.db))
            _ = try Program.sqlite(work.db, sql)
            let run = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note"])
            #expect(run.status == 1, "\(sql): \(run.errors)")
            #expect(run.errors.contains(work.db) && run.errors.contains(message), "\(sql): \(run.errors)")
        }
        // A rows table that holds a value of the wrong type where a row id belongs.
        try pristine.write(to: URL(fileURLWithPath: work.db))
        _ = try Program.sqlite(work.db, """
            PRAGMA foreign_keys = OFF; DROP TRIGGER "Note.search.insert"; DROP TRIGGER "Note.search.delete"; DROP TRIGGER "Note.search.update";
            ALTER TABLE Note RENAME TO old; CREATE TABLE Note (rm_id, id, text, price); INSERT INTO Note SELECT 'x' || rm_id, id, text, price FROM old;
            """)
        let run = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note"])
        #expect(run.status == 1 && run.errors.contains("\(work.db): table \"Note\", column 'rm_id'"), "\(run.errors)")
        // Not a database at all.
        try Data("not a database, but long enough to have a header of 100 bytes: ................................".utf8)
            .write(to: URL(fileURLWithPath: work.db))
        let garbage = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note"])
        #expect(garbage.status == 1 && garbage.errors.contains("\(work.db): file is not a database"), "\(garbage.errors)")
        #expect(garbage.errors.contains("PRAGMA quick_check"))
    }

    // MARK: 21.13: reading never creates

    @Test func readingCommandsRefuseAMissingStoreAndCreateNothing() throws {
        let work = try Workspace()
        let typo = work.file("taks.sqlite")
        let commands = [
            ["store", "query", "--schema", "SCHEMA", "--db", typo, "Note"],
            ["store", "query", "--schema", "SCHEMA", "--db", typo, "--path", "/notes"],
            ["store", "search", "--schema", "SCHEMA", "--db", typo, "plain"],
            ["get", "--schema", "SCHEMA", "--base-url", "http://127.0.0.1:9", "--store", typo, "--offline", "/notes"],
        ]
        let before = try work.files()
        for arguments in commands {
            let run = try work.restmap(arguments)
            #expect(run.status == 1, "\(arguments): \(run.errors)")
            #expect(run.errors.contains("\(typo): no such store"), "\(arguments): \(run.errors)")
            #expect(run.output.isEmpty)
            #expect(try work.files() == before, "\(arguments) created files")
        }
    }

    @Test func readingNeverMigratesAStoreBuiltByAnEarlierSchema() throws {
        let work = try Workspace()
        #expect(try work.importBody().status == 0)
        let newer = work.file("notes-with-title.yaml")
        try noteSchemaWithTitle.write(toFile: newer, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: work.db))
        for arguments in [["store", "query", "--schema", newer, "--db", "DB", "Note"], ["store", "search", "--schema", newer, "--db", "DB", "plain"],
                          ["store", "query", "--schema", newer, "--db", "DB", "--path", "/notes"]] {
            let run = try work.restmap(arguments)
            #expect(run.status == 1, "\(run.errors)")
            #expect(run.errors.contains("\(work.db): the store was built by an earlier version of schema 'notes'"), "\(run.errors)")
            #expect(run.errors.contains("import with this schema"), "\(run.errors)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.db)) == before)
        #expect(try Program.sqlite(work.db, "SELECT count(*) FROM pragma_table_info('Note') WHERE name = 'title'") == ["0"])
        // Importing with the newer schema migrates; then it reads.
        #expect(try work.importBody(schema: newer).status == 0)
        let read = try work.restmap(["store", "query", "--schema", newer, "--db", "DB", "Note"])
        #expect(read.status == 0 && read.errors.contains("2 records"), "\(read.errors)")
        // --rebuild belongs to import.
        let rebuild = try work.restmap(["store", "query", "--schema", newer, "--db", "DB", "--rebuild", "Note"])
        #expect(rebuild.status != 0 && rebuild.errors.contains("--rebuild applies to 'store import'"), "\(rebuild.errors)")
    }

    @Test func aSeedIsOneSelfContainedFileAndAFailedSeedLeavesNothing() throws {
        let work = try Workspace()
        let seeded = try work.restmap(["seed", "--schema", "SCHEMA", "--db", "DB", work.file("notes.json") + ":/notes"])
        #expect(seeded.status == 0, "\(seeded.errors)")
        #expect(try work.files() == ["notes.yaml", "notes.json", "notes.sqlite"])
        #expect(try Program.sqlite(work.db, "PRAGMA journal_mode") == ["delete"])
        let before = try Data(contentsOf: URL(fileURLWithPath: work.db))
        // A body with a record that fails to map: nothing is written, the existing file stays.
        try #"[{"id": 3, "text": "new"}, {"id": "not a number", "text": "bad"}]"#.write(toFile: work.file("bad.json"), atomically: true, encoding: .utf8)
        let failed = try work.restmap(["seed", "--schema", "SCHEMA", "--db", "DB", work.file("bad.json") + ":/notes"])
        #expect(failed.status == 1)
        #expect(failed.errors.contains("\(work.db) was not written"), "\(failed.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.db)) == before)
        #expect(try work.files() == ["notes.yaml", "notes.json", "notes.sqlite", "bad.json"])
        // Into a new file: nothing appears.
        let fresh = work.file("fresh.sqlite")
        #expect(try work.restmap(["seed", "--schema", "SCHEMA", "--db", fresh, work.file("bad.json")]).status == 1)
        #expect(try work.files() == ["notes.yaml", "notes.json", "notes.sqlite", "bad.json"])
        // The seeded file reads, and imports turn WAL mode back on.
        let read = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note"])
        #expect(read.status == 0 && read.errors.contains("2 records"))
        #expect(try work.files() == ["notes.yaml", "notes.json", "notes.sqlite", "bad.json"])
        #expect(try work.importBody().status == 0)
        #expect(try Program.sqlite(work.db, "PRAGMA journal_mode") == ["wal"])
    }

    // MARK: 26.11: a read-only store file reads

    /// Runs `restmap` as a user who cannot write the store: `nobody` through `setpriv` when the
    /// tests run as root (root writes any file), else the current user.
    func restmapWithoutWriteAccess(_ arguments: [String]) throws -> Program.Run {
        guard geteuid() == 0 else { return try Program.restmap(arguments) }
        return try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                    ["--reuid=65534", "--regid=65534", "--clear-groups", try TestPaths.built("restmap").path] + arguments)
    }

    @Test func aReadOnlyStoreFileIsRead() throws {
        let work = try Workspace()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: work.folder.path)
        for file in ["notes.yaml", "notes.json"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: work.file(file))
        }
        // A seeded store (rollback journal) in a folder nobody else may write.
        let seeded = try work.restmap(["seed", "--schema", "SCHEMA", "--db", "DB", work.file("notes.json") + ":/notes"])
        #expect(seeded.status == 0, "\(seeded.errors)")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: work.db)
        let before = try Data(contentsOf: URL(fileURLWithPath: work.db))
        for arguments in [["store", "query", "--schema", work.schema, "--db", work.db, "Note"],
                          ["store", "query", "--schema", work.schema, "--db", work.db, "--path", "/notes"],
                          ["store", "search", "--schema", work.schema, "--db", work.db, "plain"]] {
            let run = try restmapWithoutWriteAccess(arguments)
            #expect(run.status == 0, "\(arguments): \(run.errors)")
            #expect(run.output.contains("plain"), "\(arguments): \(run.output)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.db)) == before)

        // An imported store (WAL) whose folder the reader may write (its -shm file goes there).
        let imported = try Workspace()
        #expect(try imported.importBody().status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: imported.folder.path)
        for file in ["notes.yaml", "notes.json"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: imported.file(file))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: imported.db)
        let run = try restmapWithoutWriteAccess(["store", "query", "--schema", imported.schema, "--db", imported.db, "Note"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors.contains("2 records"), "\(run.errors)")
    }

    // MARK: 26.10: two imports create one store at once

    @Test func twoImportsCreatingTheSameStoreBothSucceed() throws {
        let work = try Workspace()
        let restmap = try TestPaths.built("restmap")
        let rounds = 25
        var failures: [String] = []
        for round in 0..<rounds {
            let db = work.file("race-\(round).sqlite")
            let processes = try (0..<2).map { _ in
                let process = Process()
                process.executableURL = restmap
                process.arguments = ["store", "import", "--schema", work.schema, "--db", db, "--path", "/notes", work.file("notes.json")]
                let errors = Pipe()
                process.standardOutput = FileHandle.nullDevice
                process.standardError = errors
                try process.run()
                return (process, errors)
            }
            for (process, errors) in processes {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                if process.terminationStatus != 0 { failures.append("round \(round): \(message)") }
            }
            #expect(try Program.sqlite(db, "SELECT count(*) FROM Note") == ["2"])
        }
        #expect(failures.isEmpty, "\(failures.count) of \(2 * rounds) imports failed: \(failures.prefix(3))")
    }

    // MARK: 21.7: the summary tells the truth

    @Test func importingTheSameBodyAgainIsUnchangedWithOrphansAndSearch() async throws {
        let work = try Workspace()
        #expect(try work.importBody().output.contains("inserted 2, updated 0, unchanged 0"))
        let again = try work.importBody()
        #expect(again.output.contains("inserted 0, updated 0, unchanged 2, deleted 0 orphans"), "\(again.output)")
        // MongoHQ's schema has both rules too.
        let db = work.file("mongohq.sqlite")
        let arguments = ["store", "import", "--schema", "Schemas/mongohq.yaml", "--db", db, "--path", "/databases/shop/collections",
                         "Samples/mongohq/collections.json"]
        #expect(try Program.restmap(arguments).output.contains("inserted 2, updated 0, unchanged 0"))
        let second = try Program.restmap(arguments)
        #expect(second.output.contains("inserted 0, updated 0, unchanged 2, deleted 0 orphans"), "\(second.output)")

        // The change feed: the same body again brings no element; a changed value brings one update.
        let store = try RecordStore(path: work.db, mapper: try StoreFixture.mapper(yaml: noteSchema))
        let feed = store.changes(StoreQuery(entity: "Note"))
        var iterator = feed.makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.inserted.count == 2)
        let same = try await StoreFixture.save(store, path: "/notes", body: #"[{"id": 1, "text": "a\u0000b", "price": 1.5}, {"id": 2, "text": "plain", "price": 2}]"#)
        #expect(same.updated == 0 && same.unchanged == 2)
        let changed = try await StoreFixture.save(store, path: "/notes", body: #"[{"id": 1, "text": "a\u0000b", "price": 1.5}, {"id": 2, "text": "changed", "price": 2}]"#)
        #expect(changed.updated == 1 && changed.unchanged == 1)
        let next = try #require(try await iterator.next())
        #expect(next.updated.map { $0.text.string } == ["changed"] && next.inserted.isEmpty && next.deleted.isEmpty)
        try store.close()
    }

    // MARK: 26.1: --where compares whole values

    @Test func whereRefusesAValueThatIsNotEntirelyANumber() throws {
        let work = try Workspace()
        #expect(try work.importBody().status == 0)
        for filter in ["id=99 bottles", "id=0x10", "id=-", "id=1abc", "price=1.5x"] {
            let run = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note", "--where", filter])
            #expect(run.status == 1, "\(filter): \(run.output)")
            #expect(run.output.isEmpty, "\(filter): \(run.output)")
            #expect(run.errors.contains(String(filter.split(separator: "=")[1])), "\(filter): \(run.errors)")
        }
        let exact = try work.restmap(["store", "query", "--schema", "SCHEMA", "--db", "DB", "Note", "--where", "id=2", "--where", "price=2.0"])
        #expect(exact.status == 0 && exact.errors.contains("1 record"), "\(exact.errors)")
    }
}
