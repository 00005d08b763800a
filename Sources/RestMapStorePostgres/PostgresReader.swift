import Foundation
import Logging
import PostgresNIO
import RestMap
import RestMapStore

/// Reading a PostgreSQL store: queries, offline reads by path, search, the change feed, checkpoints.
extension PostgresEngine {
    typealias Key = RecordGraphLoad.Key

    func records(_ query: StoreQuery) async throws -> [RestMap.Record] {
        try await reading { [self] connection in try await load(try await selectRoots(query, connection), depth: query.depth, connection) }
    }

    /// The row ids a query selects, in its order.
    func selectRoots(_ query: StoreQuery, _ connection: PostgresConnection) async throws -> [Key] {
        let (table, filters, order) = try model.resolve(query)
        let q = PostgresNames.quote
        var binds = PostgresBindings()
        let conditions = PostgresSaver.equalities(filters, binds: &binds)
        var sql = "SELECT \(q(StoreSQL.rowID))::text FROM \(names.table(table.entity))"
        if !conditions.isEmpty { sql += " WHERE " + conditions }
        let ordering = order.map { "\(PostgresColumn.Kind(type: $0.column.type).ordered(q($0.column.name))) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")" }
        sql += " ORDER BY " + (ordering + [q(StoreSQL.rowID)]).joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return try await connection.rows(sql, binds, logger: logger).compactMap { row in row[0].flatMap { Int64($0) }.map { Key(entity: table.entity, rowID: $0) } }
    }

    func records(forPathKey key: String, depth: Int) async throws -> [RestMap.Record]? {
        try await reading { [self] connection in
            guard let row = try await connection.rows("SELECT roots FROM \(names.table(StoreSQL.pathsTable)) WHERE path = $1", binds(key), logger: logger).first,
                  let text = row[0] else { return nil }
            let source = "table \(namespace).\(StoreSQL.pathsTable), the row of the path asked for"
            let keys = try model.roots(fromJSON: text) { why in
                StoreError("\(location): \(source), column 'roots': \(why); it must be a JSON array of [entity, rm_id] pairs")
            }
            return try await load(keys, depth: depth, connection)
        }
    }

    func search(_ terms: [String], tables: [StoreLayout.Table], limit: Int, depth: Int) async throws -> [RestMap.Record] {
        guard let text = PostgresSearch.query(terms) else { return [] }
        return try await reading { [self] connection in
            var hits: [(key: Key, rank: Double)] = []
            for table in tables {
                var arguments = binds(text)
                arguments.append(Int64(max(0, limit)))
                for row in try await connection.rows("""
                    SELECT \(PostgresNames.quote(StoreSQL.rowID))::text, ts_rank(rm_search, query)::float8::text
                    FROM \(names.table(table.entity)), to_tsquery('simple', $1) AS query WHERE rm_search @@ query
                    ORDER BY 2 DESC, 1 LIMIT $2
                    """, arguments, logger: logger) {
                    guard let rowID = row[0].flatMap({ Int64($0) }) else { continue }
                    hits.append((Key(entity: table.entity, rowID: rowID), row[1].flatMap { Double($0) } ?? 0))
                }
            }
            hits.sort { $0.rank > $1.rank }
            return try await load(hits.prefix(limit).map(\.key), depth: depth, connection)
        }
    }

    func counts() async throws -> [(entity: String, count: Int)] {
        try await reading { [self] connection in
            var counts: [(entity: String, count: Int)] = []
            for table in model.layout.tables {
                let rows = try await connection.rows("SELECT count(*)::text FROM \(names.table(table.entity))", logger: logger)
                counts.append((table.entity, firstValue(rows).flatMap { Int($0) } ?? 0))
            }
            return counts
        }
    }

    func integrityCheck() async throws -> String {
        try await reading { [self] connection in
            var missing: [String] = []
            for table in model.layout.tables {
                let rows = try await connection.rows("SELECT (to_regclass($1) IS NOT NULL)::text", binds(names.table(table.entity)), logger: logger)
                if rows.first?.first != "true" { missing.append("table \(table.entity) is missing") }
            }
            return missing.isEmpty ? "ok" : missing.joined(separator: "\n")
        }
    }

    func compact() async throws {
        try await withConnection { [self] connection in
            for table in model.layout.tables { try await connection.run("VACUUM ANALYZE \(names.table(table.entity))", logger: logger) }
        }
    }

    // MARK: Loading

    /// The records of `roots`, in order, with related records loaded `depth` levels deep.
    func load(_ roots: [Key], depth: Int, _ connection: PostgresConnection) async throws -> [RestMap.Record] {
        var graph = RecordGraphLoad(roots: roots, depth: depth, model: model)
        repeat {
            for request in graph.requests() {
                try graph.receive(try await fetchRows(request.table, rowIDs: request.rowIDs, followLinks: request.followLinks, connection),
                                  of: request.table.entity)
            }
        } while graph.advance()
        return try graph.records()
    }

    private func fetchRows(_ table: StoreLayout.Table, rowIDs: [Int64], followLinks: Bool, _ connection: PostgresConnection) async throws
        -> [RecordGraphLoad.Row] {
        let q = PostgresNames.quote
        let linkColumns = followLinks ? table.links.filter(\.isColumn) : []
        let columns = ["\(q(StoreSQL.rowID))::text"] + table.columns.map { PostgresColumn.Kind(type: $0.type).asText(q($0.name)) }
            + linkColumns.map { "\(q($0.name))::text" }
        var ids = PostgresBindings()
        ids.append(rowIDs)
        var rows: [Int64: [String?]] = [:]
        for row in try await connection.rows("SELECT \(columns.joined(separator: ", ")) FROM \(names.table(table.entity)) "
                                             + "WHERE \(q(StoreSQL.rowID)) = ANY($1::bigint[])", ids, logger: logger) {
            if let rowID = row[0].flatMap({ Int64($0) }) { rows[rowID] = Array(row.dropFirst()) }
        }
        var joined: [String: [Int64: [Key]]] = [:]
        if followLinks {
            for link in table.links where !link.isColumn {
                var targets: [Int64: [Key]] = [:]
                for row in try await connection.rows("""
                    SELECT source::text, target::text, \(link.isPolymorphic ? "\"targetEntity\"" : "NULL") FROM \(names.joinTable(table.entity, link.name))
                    WHERE source = ANY($1::bigint[]) ORDER BY source, position
                    """, ids, logger: logger) {
                    guard let source = row[0].flatMap({ Int64($0) }), let target = row[1].flatMap({ Int64($0) }) else { continue }
                    let entity = row[2] ?? link.targets[0]
                    guard link.targets.contains(entity) else {
                        throw StoreError("\(location): table \(table.entity).\(link.name), column 'targetEntity': '\(entity)' is not a target of the relationship")
                    }
                    targets[source, default: []].append(Key(entity: entity, rowID: target))
                }
                joined[link.name] = targets
            }
        }
        return rowIDs.compactMap { rowID in
            guard let row = rows[rowID] else { return nil }
            let values: [Value?] = table.columns.enumerated().map { offset, column in PostgresColumn.decode(row[offset], type: column.type) }
            var links: [(String, [Key])] = []
            for (offset, link) in linkColumns.enumerated() {
                let target = row[table.columns.count + offset].flatMap { Int64($0) }
                links.append((link.name, target.map { [Key(entity: link.targets[0], rowID: $0)] } ?? []))
            }
            if followLinks {
                for link in table.links where !link.isColumn { links.append((link.name, joined[link.name]?[rowID] ?? [])) }
            }
            return RecordGraphLoad.Row(rowID: rowID, values: values, links: links)
        }
    }

    // MARK: The change feed

    /// A feed of the changes to a query's result: the result again after every committed save
    /// of any process that touched an entity it is read from (`NOTIFY` on the store's channel,
    /// naming the entities), reported when it changed.
    func changes(_ query: StoreQuery) -> AsyncThrowingStream<StoreChanges, any Error> {
        let watched = model.entitiesRead(by: query)
        return AsyncThrowingStream { continuation in
            let task = Task { [self] in
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            var previous: StoreSnapshot?
                            func refresh() async throws {
                                let snapshot = try await reading { [self] connection in
                                    let keys = try await selectRoots(query, connection)
                                    return StoreSnapshot(rowIDs: keys.map(\.rowID), records: try await load(keys, depth: query.depth, connection))
                                }
                                let changes = snapshot.changes(since: previous)
                                if StoreSnapshot.isReported(changes, first: previous == nil) { continuation.yield(changes) }
                                previous = snapshot
                            }
                            try await refresh()
                            for try await notification in notifications
                            where !watched.isDisjoint(with: notification.payload.split(separator: ",").map(String.init)) {
                                try await refresh()
                            }
                        }
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? nil : described(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Checkpoints

    func writeCheckpoints(_ checkpoints: [StoreCheckpoint], _ connection: PostgresConnection) async throws {
        guard !checkpoints.isEmpty else { return }
        let checked = checkpoints.filter { $0.expected != .anything }
        if !checked.isEmpty {
            // Writers of one key compare and set one after the other: each takes the key's
            // transaction lock (in key order) before it reads the stored value.
            let keys = Set(checked.map(\.key)).sorted()
            for key in keys {
                try await connection.run("SELECT pg_advisory_xact_lock($1::bigint)", binds(String(Self.key(namespace, "checkpoint", key))), logger: logger)
            }
            var lookup = PostgresBindings()
            lookup.append(keys)
            let rows = try await connection.rows("SELECT key, value FROM \(names.table("rm_checkpoints")) WHERE key = ANY($1::text[])", lookup, logger: logger)
            let stored = Dictionary(rows.compactMap { row in row[0].map { ($0, row[1]) } }, uniquingKeysWith: { first, _ in first })
            for checkpoint in checked {
                if let conflict = checkpoint.conflict(stored: stored[checkpoint.key] ?? nil) { throw conflict }
            }
        }
        var keys = PostgresBindings()
        keys.append(checkpoints.map(\.key))
        keys.append(checkpoints.map(\.value))
        try await connection.run("""
            INSERT INTO \(names.table("rm_checkpoints")) (key, value) SELECT * FROM unnest($1::text[], $2::text[])
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, keys, logger: logger)
    }

    func setCheckpoints(_ checkpoints: [StoreCheckpoint]) async throws {
        try await transaction { [self] connection in try await writeCheckpoints(checkpoints, connection) }
    }

    func checkpoints(withPrefix prefix: String) async throws -> [StoreCheckpoint] {
        try await reading { [self] connection in
            try await connection.rows("SELECT key, value FROM \(names.table("rm_checkpoints")) WHERE starts_with(key, $1) ORDER BY key COLLATE \"C\"",
                                      binds(prefix), logger: logger)
                .compactMap { row in row[0].flatMap { key in row[1].map { StoreCheckpoint(key: key, value: $0) } } }
        }
    }

    func checkpoint(forKey key: String) async throws -> StoreCheckpoint? {
        try await reading { [self] connection in
            try await connection.rows("SELECT key, value FROM \(names.table("rm_checkpoints")) WHERE key = $1", binds(key), logger: logger)
                .first.flatMap { row in row[0].flatMap { key in row[1].map { StoreCheckpoint(key: key, value: $0) } } }
        }
    }

    func removeCheckpoint(forKey key: String) async throws -> Int {
        try await removeCheckpoints("key = $1", key)
    }

    func removeCheckpoints(withPrefix prefix: String) async throws -> Int {
        try await removeCheckpoints("starts_with(key, $1)", prefix)
    }

    private func removeCheckpoints(_ condition: String, _ value: String) async throws -> Int {
        try await transaction { [self] connection in
            let rows = try await connection.rows("WITH gone AS (DELETE FROM \(names.table("rm_checkpoints")) WHERE \(condition) RETURNING 1) "
                                                 + "SELECT count(*)::text FROM gone", binds(value), logger: logger)
            return firstValue(rows).flatMap { Int($0) } ?? 0
        }
    }
}
