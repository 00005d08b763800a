import Foundation
import GRDB

/// Creates the tables a layout implies, and migrates a store built by an earlier schema.
package enum StoreMigrator {
    /// The version of the store's own bookkeeping (the `rm_` tables and the layout JSON).
    package static let formatVersion = 1

    /// What the store remembers about the schema that built it.
    package struct Origin: Equatable, Sendable {
        package var schemaName: String
        package var schemaFile: String
        package var layout: StoreLayout
    }

    /// Brings the database to `origin.layout`: creates a new store, applies additive changes,
    /// and refuses destructive ones (naming each) unless `rebuild` drops everything first.
    static func prepare(_ db: Database, origin: Origin, rebuild: Bool, path: String) throws {
        if try db.tableExists(StoreSQL.schemaTable) {
            let stored = try storedOrigin(db, path: path, advice: "run with --rebuild to rebuild it")
            let changes = origin.layout.changes(from: stored.layout)
            if !changes.destructive.isEmpty {
                guard rebuild else { throw refusal(path, storedSchema: stored.schemaName, destructive: changes.destructive, reading: false) }
                try dropEverything(db)
                try create(db, origin.layout)
            } else {
                for migration in changes.additive { try apply(migration, db) }
            }
        } else {
            try create(db, origin.layout)
        }
        try record(origin, db)
    }

    /// Checks, without changing anything, that the store at `path` holds what `origin` needs
    /// to read it: the store's own tables, a format this version reads, and the same layout
    /// (a schema that would migrate the store is refused: importing with it migrates).
    static func checkForReading(_ db: Database, origin: Origin, path: String) throws {
        guard try db.tableExists(StoreSQL.schemaTable), try db.tableExists(StoreSQL.pathsTable) else {
            throw StoreError("\(path): not a RestMap store (it has no \(StoreSQL.schemaTable) and \(StoreSQL.pathsTable) tables)")
        }
        let stored = try storedOrigin(db, path: path, advice: "import into it with --rebuild to rebuild it")
        try checkLayoutForReading(stored, origin: origin, path: path)
    }

    /// The error of a destructive change, when opening for writing (`reading` false) or reading.
    package static func refusal(_ path: String, storedSchema: String, destructive: [String], reading: Bool) -> StoreError {
        StoreError("\(path): the store was built by schema '\(storedSchema)'; this schema changes it destructively: "
            + destructive.joined(separator: "; ")
            + (reading ? ". Reading does not change a store: import with --rebuild to rebuild it."
                : ". Run with --rebuild to drop and rebuild the store (its records are lost)."))
    }

    /// Throws unless the stored layout is the one `origin` reads (reading never migrates).
    package static func checkLayoutForReading(_ stored: (schemaName: String, layout: StoreLayout), origin: Origin, path: String) throws {
        let changes = origin.layout.changes(from: stored.layout)
        if !changes.destructive.isEmpty { throw refusal(path, storedSchema: stored.schemaName, destructive: changes.destructive, reading: true) }
        if !changes.additive.isEmpty || stored.layout != origin.layout {
            throw StoreError("\(path): the store was built by an earlier version of schema '\(stored.schemaName)'; "
                + "reading does not migrate it: import with this schema (restmap store import) to migrate it first")
        }
    }

    /// The schema name and layout of the `rm_schema` values (key → value), read exactly; a
    /// missing or bad record (or a newer format) is an error naming the store, `source` and `advice`.
    package static func storedOrigin(_ values: [String: String], path: String, source: String, advice: String) throws
        -> (schemaName: String, layout: StoreLayout) {
        if let format = values["format"], Int(format) != formatVersion {
            throw StoreError("\(path): \(source): the store's format is '\(format)'; this version of restmap reads format \(formatVersion)")
        }
        guard let text = values["layout"], let layout = try? JSONDecoder().decode(StoreLayout.self, from: Data(text.utf8)) else {
            throw StoreError("\(path): \(source): the store's layout record is missing or unreadable; \(advice)")
        }
        return (values["schemaName"] ?? "?", layout)
    }

    /// The `rm_schema` values that record `origin`.
    package static func values(of origin: Origin) throws -> [(key: String, value: String)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let layout = String(decoding: try encoder.encode(origin.layout), as: UTF8.self)
        return [("format", String(formatVersion)), ("schemaName", origin.schemaName), ("schemaFile", origin.schemaFile), ("layout", layout)]
    }

    /// The schema name and layout recorded in `rm_schema`, read exactly; a missing or bad
    /// record (or a newer format) is an error naming the file, the table and `advice`.
    private static func storedOrigin(_ db: Database, path: String, advice: String) throws -> (schemaName: String, layout: StoreLayout) {
        var values: [String: String] = [:]
        let source = "table \(StoreSQL.schemaTable)"
        try db.forEachRow("SELECT key, value FROM \(StoreSQL.schemaTable) WHERE key IN ('format', 'schemaName', 'layout')",
                          source: source) { row in
            values[try row.text(at: 0, "key")] = try row.text(at: 1, "value")
        }
        return try storedOrigin(values, path: path, source: source, advice: advice)
    }

    // MARK: Creating

    private static func create(_ db: Database, _ layout: StoreLayout) throws {
        try db.execute(sql: """
            CREATE TABLE \(StoreSQL.schemaTable) (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
            CREATE TABLE \(StoreSQL.pathsTable) (path TEXT PRIMARY KEY, generation INTEGER NOT NULL, roots TEXT NOT NULL) STRICT;
            """)
        for table in layout.tables { try createTable(table, db) }
    }

    private static func createTable(_ table: StoreLayout.Table, _ db: Database) throws {
        let q = StoreSQL.quote
        var definitions = ["\(q(StoreSQL.rowID)) INTEGER PRIMARY KEY"]
        definitions += table.columns.map { "\(q($0.name)) \($0.sqlType)" }
        definitions += table.links.filter(\.isColumn).map { foreignKeyColumn($0) }
        try db.execute(sql: "CREATE TABLE \(q(table.entity)) (\(definitions.joined(separator: ", "))) STRICT")
        if !table.identity.isEmpty {
            try db.execute(sql: "CREATE UNIQUE INDEX \(q(table.entity + ".identity")) ON \(q(table.entity)) "
                + "(\(table.identity.map(q).joined(separator: ", ")))")
        }
        for link in table.links { try createLink(link, of: table.entity, db) }
        try createSearch(table, db)
    }

    private static func foreignKeyColumn(_ link: StoreLayout.Link) -> String {
        "\(StoreSQL.quote(link.name)) INTEGER REFERENCES \(StoreSQL.quote(link.targets[0]))(\(StoreSQL.quote(StoreSQL.rowID))) ON DELETE SET NULL"
    }

    /// The foreign-key column's index, or the join table, of a relationship.
    private static func createLink(_ link: StoreLayout.Link, of entity: String, _ db: Database) throws {
        let q = StoreSQL.quote
        if link.isColumn {
            try db.execute(sql: "CREATE INDEX \(q("\(entity).\(link.name).fk")) ON \(q(entity)) (\(q(link.name)))")
            return
        }
        let join = StoreSQL.joinTable(entity, link.name)
        let target = link.isPolymorphic
            ? "target INTEGER NOT NULL, targetEntity TEXT NOT NULL"
            : "target INTEGER NOT NULL REFERENCES \(q(link.targets.first ?? entity))(\(q(StoreSQL.rowID))) ON DELETE CASCADE"
        try db.execute(sql: """
            CREATE TABLE \(join) (source INTEGER NOT NULL REFERENCES \(q(entity))(\(q(StoreSQL.rowID))) ON DELETE CASCADE,
                \(target), position INTEGER NOT NULL) STRICT;
            CREATE INDEX \(q("\(entity).\(link.name).source")) ON \(join) (source, position);
            CREATE INDEX \(q("\(entity).\(link.name).target")) ON \(join) (target);
            """)
    }

    /// The external-content FTS5 index of the `search` attributes, kept in sync by triggers.
    private static func createSearch(_ table: StoreLayout.Table, _ db: Database) throws {
        guard !table.search.isEmpty else { return }
        let q = StoreSQL.quote
        let fts = StoreSQL.searchTable(table.entity)
        let columns = table.search.map(q).joined(separator: ", ")
        let newValues = table.search.map { "new.\(q($0))" }.joined(separator: ", ")
        let oldValues = table.search.map { "old.\(q($0))" }.joined(separator: ", ")
        let command = q("\(table.entity).search")
        let rowID = q(StoreSQL.rowID)
        try db.execute(sql: """
            CREATE VIRTUAL TABLE \(fts) USING fts5(\(columns), content=\(q(table.entity)), content_rowid=\(rowID),
                tokenize='unicode61 remove_diacritics 2');
            CREATE TRIGGER \(q("\(table.entity).search.insert")) AFTER INSERT ON \(q(table.entity)) BEGIN
                INSERT INTO \(fts)(rowid, \(columns)) VALUES (new.\(rowID), \(newValues)); END;
            CREATE TRIGGER \(q("\(table.entity).search.delete")) AFTER DELETE ON \(q(table.entity)) BEGIN
                INSERT INTO \(fts)(\(command), rowid, \(columns)) VALUES ('delete', old.\(rowID), \(oldValues)); END;
            CREATE TRIGGER \(q("\(table.entity).search.update")) AFTER UPDATE ON \(q(table.entity)) BEGIN
                INSERT INTO \(fts)(\(command), rowid, \(columns)) VALUES ('delete', old.\(rowID), \(oldValues));
                INSERT INTO \(fts)(rowid, \(columns)) VALUES (new.\(rowID), \(newValues)); END;
            INSERT INTO \(fts)(\(command)) VALUES ('rebuild');
            """)
    }

    private static func dropSearch(_ entity: String, _ db: Database) throws {
        let q = StoreSQL.quote
        for suffix in ["insert", "delete", "update"] {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(q("\(entity).search.\(suffix)"))")
        }
        try db.execute(sql: "DROP TABLE IF EXISTS \(StoreSQL.searchTable(entity))")
    }

    // MARK: Migrating

    private static func apply(_ migration: StoreLayout.Migration, _ db: Database) throws {
        let q = StoreSQL.quote
        switch migration {
        case .createTable(let table):
            try createTable(table, db)
        case .addColumn(let entity, let column):
            try db.execute(sql: "ALTER TABLE \(q(entity)) ADD COLUMN \(q(column.name)) \(column.sqlType)")
        case .addLink(let entity, let link):
            if link.isColumn { try db.execute(sql: "ALTER TABLE \(q(entity)) ADD COLUMN \(foreignKeyColumn(link))") }
            try createLink(link, of: entity, db)
        case .reconnect:
            break   // connections are recomputed on every save that touches their entities
        case .reindexSearch(let old, let new):
            try dropSearch(old.entity, db)
            try createSearch(new, db)
        }
    }

    private static func dropEverything(_ db: Database) throws {
        try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
        let q = StoreSQL.quote
        for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'") {
            try db.execute(sql: "DROP TRIGGER \(q(name))")
        }
        // Virtual tables first: dropping one also drops its shadow tables.
        let tables = try Row.fetchAll(db, sql: """
            SELECT name, sql LIKE 'CREATE VIRTUAL%' AS virtual FROM sqlite_master
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY virtual DESC
            """)
        for row in tables {
            let name: String = row["name"]
            if try db.tableExists(name) { try db.execute(sql: "DROP TABLE \(q(name))") }
        }
    }

    private static func record(_ origin: Origin, _ db: Database) throws {
        for (key, value) in try values(of: origin) {
            try db.execute(sql: "INSERT INTO \(StoreSQL.schemaTable) (key, value) VALUES (?, ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE value <> excluded.value",
                arguments: [key, value])
        }
    }
}
