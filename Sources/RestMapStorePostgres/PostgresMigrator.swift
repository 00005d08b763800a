import Foundation
import PostgresNIO
import RestMapStore

/// Creating, migrating and checking a store's tables in its namespace, as `StoreMigrator` does
/// in a SQLite file: the layout is recorded in `rm_schema`; additive changes are applied,
/// destructive ones refused unless rebuilding. Runs under the store's advisory lock, so that
/// processes opening the store at once migrate it once.
extension PostgresEngine {
    /// Creates or migrates the store; `dropping` first drops whatever the namespace held.
    func prepare(rebuild: Bool, dropping: Bool = false) async throws {
        let origin = model.origin
        let lock = migrationLock
        try await transaction { [self] connection in
            try await connection.run("SELECT pg_advisory_xact_lock($1)", { var b = PostgresBindings(); b.append(lock); return b }(), logger: logger)
            if dropping { try await connection.run("DROP SCHEMA IF EXISTS \(names.namespace) CASCADE", logger: logger) }
            try await connection.run("CREATE SCHEMA IF NOT EXISTS \(names.namespace)", logger: logger)
            if let stored = try await storedOrigin(connection, advice: "run with --rebuild to rebuild it") {
                let changes = origin.layout.changes(from: stored.layout)
                if !changes.destructive.isEmpty {
                    guard rebuild else { throw StoreMigrator.refusal(location, storedSchema: stored.schemaName, destructive: changes.destructive, reading: false) }
                    try await connection.run("DROP SCHEMA \(names.namespace) CASCADE", logger: logger)
                    try await connection.run("CREATE SCHEMA \(names.namespace)", logger: logger)
                    try await create(origin.layout, connection)
                } else {
                    try await migrate(changes.additive, connection)
                }
            } else {
                try await create(origin.layout, connection)
            }
            for (key, value) in try StoreMigrator.values(of: origin) {
                try await connection.run("""
                    INSERT INTO \(names.table(StoreSQL.schemaTable)) (key, value) VALUES ($1, $2)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE \(names.table(StoreSQL.schemaTable)).value <> excluded.value
                    """, binds(key, value), logger: logger)
            }
        }
    }

    /// Drops the store's namespace and everything in it.
    func dropNamespace() async throws {
        try await transaction { [self] connection in
            try await connection.run("DROP SCHEMA IF EXISTS \(names.namespace) CASCADE", logger: logger)
        }
    }

    /// Makes this store's namespace the store of `target`, dropping what `target` held, in one
    /// transaction under `target`'s advisory lock (processes opening it wait, then see the new store).
    func rename(to target: String) async throws {
        let lock = Self.key(PostgresNames.short(target), "migrate")
        try await transaction { [self] connection in
            var binds = PostgresBindings()
            binds.append(lock)
            try await connection.run("SELECT pg_advisory_xact_lock($1)", binds, logger: logger)
            try await connection.run("DROP SCHEMA IF EXISTS \(PostgresNames.quote(target)) CASCADE", logger: logger)
            try await connection.run("ALTER SCHEMA \(names.namespace) RENAME TO \(PostgresNames.quote(target))", logger: logger)
        }
    }

    func checkForReading() async throws {
        let origin = model.origin
        try await reading { [self] connection in
            guard let stored = try await storedOrigin(connection, advice: "import into it with --rebuild to rebuild it") else {
                throw StoreError("\(location): no store of schema '\(origin.schemaName)' in PostgreSQL schema '\(namespace)' "
                    + "(a command that only reads never creates one; 'restmap store import' or 'restmap seed' builds it)")
            }
            try StoreMigrator.checkLayoutForReading(stored, origin: origin, path: location)
        }
    }

    /// The recorded schema name and layout; `nil` when the namespace holds no store.
    private func storedOrigin(_ connection: PostgresConnection, advice: String) async throws -> (schemaName: String, layout: StoreLayout)? {
        let exists = try await connection.rows("SELECT (to_regclass($1) IS NOT NULL)::text", binds("\(names.namespace).\(StoreSQL.schemaTable)"), logger: logger)
        guard exists.first?.first == "true" else { return nil }
        var values: [String: String] = [:]
        for row in try await connection.rows("SELECT key, value FROM \(names.table(StoreSQL.schemaTable))", logger: logger) {
            if let key = row[0], let value = row[1] { values[key] = value }
        }
        return try StoreMigrator.storedOrigin(values, path: location, source: "table \(namespace).\(StoreSQL.schemaTable)", advice: advice)
    }

    // MARK: Creating

    private func create(_ layout: StoreLayout, _ connection: PostgresConnection) async throws {
        try await connection.run(statements: [
            "CREATE TABLE \(names.table(StoreSQL.schemaTable)) (key text PRIMARY KEY, value text NOT NULL)",
            "CREATE TABLE \(names.table(StoreSQL.pathsTable)) (path text PRIMARY KEY, generation bigint NOT NULL, roots text NOT NULL)",
            "CREATE SEQUENCE \(names.table("rm_paths_generation"))",
            "CREATE TABLE \(names.table("rm_checkpoints")) (key text PRIMARY KEY, value text NOT NULL)",
        ], logger: logger)
        for table in layout.tables { try await createTable(table, connection) }
        for table in layout.tables { try await createLinksAndSearch(table, connection) }
    }

    /// The table of an entity with its identity index; foreign keys come with `createLinks`,
    /// once every table they may point at exists.
    private func createTable(_ table: StoreLayout.Table, _ connection: PostgresConnection) async throws {
        let q = PostgresNames.quote
        var definitions = ["\(q(StoreSQL.rowID)) bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"]
        definitions += table.columns.map { "\(q($0.name)) \(PostgresColumn.Kind(type: $0.type).sqlType)" }
        definitions += table.links.filter(\.isColumn).map { "\(q($0.name)) bigint" }
        try await connection.run("CREATE TABLE \(names.table(table.entity)) (\(definitions.joined(separator: ", ")))", logger: logger)
        if !table.identity.isEmpty {
            try await connection.run("CREATE UNIQUE INDEX \(q(table.entity + ".identity")) ON \(names.table(table.entity)) "
                + "(\(table.identity.map(q).joined(separator: ", ")))", logger: logger)
        }
    }

    private func createLinksAndSearch(_ table: StoreLayout.Table, _ connection: PostgresConnection) async throws {
        for link in table.links { try await createLink(link, of: table.entity, connection) }
        try await createSearch(table, connection)
    }

    /// The foreign key and its index, or the join table, of a relationship.
    private func createLink(_ link: StoreLayout.Link, of entity: String, _ connection: PostgresConnection) async throws {
        let q = PostgresNames.quote
        let rowID = q(StoreSQL.rowID)
        if link.isColumn {
            try await connection.run(statements: [
                "ALTER TABLE \(names.table(entity)) ADD FOREIGN KEY (\(q(link.name))) REFERENCES \(names.table(link.targets[0])) (\(rowID)) ON DELETE SET NULL",
                "CREATE INDEX \(q("\(entity).\(link.name).fk")) ON \(names.table(entity)) (\(q(link.name)))",
            ], logger: logger)
            return
        }
        let join = names.joinTable(entity, link.name)
        let target = link.isPolymorphic
            ? "target bigint NOT NULL, \"targetEntity\" text NOT NULL"
            : "target bigint NOT NULL REFERENCES \(names.table(link.targets.first ?? entity)) (\(rowID)) ON DELETE CASCADE"
        try await connection.run(statements: [
            "CREATE TABLE \(join) (source bigint NOT NULL REFERENCES \(names.table(entity)) (\(rowID)) ON DELETE CASCADE, \(target), position bigint NOT NULL)",
            "CREATE INDEX \(q("\(entity).\(link.name).source")) ON \(join) (source, position)",
            "CREATE INDEX \(q("\(entity).\(link.name).target")) ON \(join) (target)",
        ], logger: logger)
    }

    /// The generated `tsvector` column of the search attributes, with its GIN index.
    private func createSearch(_ table: StoreLayout.Table, _ connection: PostgresConnection) async throws {
        guard !table.search.isEmpty else { return }
        let columns = table.search.compactMap { name in table.columns.first { $0.name == name } }
            .map { (name: $0.name, kind: PostgresColumn.Kind(type: $0.type)) }
            .filter { $0.kind != .date }   // a date's text depends on the session's time zone: not indexable
        try await connection.run(statements: [
            "ALTER TABLE \(names.table(table.entity)) ADD COLUMN rm_search tsvector GENERATED ALWAYS AS (\(PostgresSearch.document(columns))) STORED",
            "CREATE INDEX \(PostgresNames.quote("\(table.entity).search")) ON \(names.table(table.entity)) USING gin (rm_search)",
        ], logger: logger)
    }

    // MARK: Migrating

    private func migrate(_ migrations: [StoreLayout.Migration], _ connection: PostgresConnection) async throws {
        let q = PostgresNames.quote
        // New tables first, so that links of old tables may point at them.
        for case .createTable(let table) in migrations { try await createTable(table, connection) }
        for migration in migrations {
            switch migration {
            case .createTable(let table):
                try await createLinksAndSearch(table, connection)
            case .addColumn(let entity, let column):
                try await connection.run("ALTER TABLE \(names.table(entity)) ADD COLUMN \(q(column.name)) \(PostgresColumn.Kind(type: column.type).sqlType)",
                                         logger: logger)
            case .addLink(let entity, let link):
                if link.isColumn { try await connection.run("ALTER TABLE \(names.table(entity)) ADD COLUMN \(q(link.name)) bigint", logger: logger) }
                try await createLink(link, of: entity, connection)
            case .reconnect:
                break   // connections are recomputed on every save that touches their entities
            case .reindexSearch(let old, let new):
                try await connection.run("ALTER TABLE \(names.table(old.entity)) DROP COLUMN IF EXISTS rm_search", logger: logger)
                try await createSearch(new, connection)
            }
        }
    }
}
