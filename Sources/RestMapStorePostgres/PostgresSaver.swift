import Foundation
import Logging
import PostgresNIO
import RestMap
import RestMapJSON
import RestMapStore

extension PostgresEngine {
    func save(_ result: MappingResult, of response: Response, isCompletePage: Bool,
              checkpoints: [StoreCheckpoint], sweep: StoreSweep?) async throws -> SaveSummary {
        try await transaction { [self] connection in
            let saver = PostgresSaver(engine: self, connection: connection, isCompletePage: isCompletePage)
            var summary = try await saver.save(result, of: response)
            if let sweep { summary.deletedOrphans += try await saver.sweep(sweep) }
            try await writeCheckpoints(checkpoints, connection)
            return summary
        }
    }
}

/// Writes one mapping result inside the transaction of `PostgresEngine.save`, a statement per
/// entity rather than per record: the records go to the server as one text array per column
/// (`PostgresRows`).
struct PostgresSaver {
    let engine: PostgresEngine
    let connection: PostgresConnection
    let isCompletePage: Bool

    private var model: StoreModel { engine.model }
    private var names: PostgresNames { engine.names }
    private var logger: Logger { engine.logger }
    private let q = PostgresNames.quote

    /// How one record was written.
    enum Outcome { case inserted, updated, unchanged, skipped }

    /// A record's row and what happened to it.
    struct Saved {
        var rowID: Int64
        var outcome: Outcome
        /// Foreign-key columns not written with the record (their target was not saved yet).
        var unwrittenLinks: [String]
    }

    /// At most this many records go in one statement.
    static let batchSize = 5000

    /// From this many new identities on, a save into an empty table inserts them without
    /// looking for conflicts (`isEmptyForBulkInsert`).
    static let bulkInsertMinimum = 256

    func save(_ result: MappingResult, of response: Response) async throws -> SaveSummary {
        var summary = SaveSummary()
        let records = result.allRecords
        var saved = [Saved?](repeating: nil, count: records.count)
        var touched = Set<String>()
        let byEntity = Dictionary(grouping: records, by: { $0.entity })

        // Saves that resolve `connect` relationships take turns: each sees the others' records.
        if !engine.connectEntities.isDisjoint(with: byEntity.keys) {
            var lock = PostgresBindings()
            lock.append(engine.connectLock)
            try await connection.run("SELECT pg_advisory_xact_lock($1)", lock, logger: logger)
        }

        // 1. Attributes and the foreign keys of saved targets: upserts by identity, targets first.
        for entity in model.saveOrder {
            guard let group = byEntity[entity], let table = model.layout.table(entity) else { continue }
            var live: [Record] = []
            var tombstones: [Record] = []
            for record in group { if model.isTombstone(record, table: table) { tombstones.append(record) } else { live.append(record) } }
            if !tombstones.isEmpty {
                summary.deletedTombstones += try await deleteByIdentity(table, tombstones)
                touched.insert(entity)
            }
            let written = try await upsert(table, live, saved: saved)
            for (record, row) in zip(live, written) {
                saved[record.resultIndex] = row
                switch row.outcome {
                case .inserted: summary.inserted += 1; touched.insert(entity)
                case .updated: summary.updated += 1; touched.insert(entity)
                case .unchanged: summary.unchanged += 1
                case .skipped: summary.skippedNotNewer += 1
                }
            }
        }

        // 2. Nested relationships: foreign keys step 1 could not write, and join rows.
        for entity in model.saveOrder {
            guard let group = byEntity[entity], let table = model.layout.table(entity) else { continue }
            let relinked = try await writeUnwrittenLinks(group, table: table, saved: saved)
            for record in group {
                guard let row = saved[record.resultIndex], row.outcome == .unchanged, relinked.contains(row.rowID) else { continue }
                summary.unchanged -= 1
                summary.updated += 1
                touched.insert(entity)
            }
            let union = model.unionRelationships[entity] ?? []
            for link in table.links where !link.isColumn && link.connections.isEmpty {
                var sources: [(rowID: Int64, related: [(entity: String, rowID: Int64)])] = []
                for record in group {
                    guard let row = saved[record.resultIndex], row.outcome != .skipped else { continue }
                    let field = record[link.name]
                    if field.isAbsent { continue }
                    sources.append((row.rowID, field.records.compactMap { target in saved[target.resultIndex].map { (target.entity, $0.rowID) } }))
                }
                if try await replaceJoinRows(table, link, sources, union: union.contains(link.name)) { touched.insert(entity) }
            }
        }

        // 3. `connect` relationships: recomputed by value against the whole store.
        for table in model.layout.tables {
            for link in table.links where !link.connections.isEmpty {
                if touched.contains(table.entity) || link.targets.contains(where: touched.contains) {
                    try await reconnect(table, link)
                }
            }
        }

        // 4. Orphans, after a complete successful GET only.
        let orphans = model.orphanRules(for: response, isCompletePage: isCompletePage, failures: result.errors.count)
        summary.orphansKept = orphans.kept
        for (rule, parameters) in orphans.apply {
            guard let table = model.layout.table(rule.entity) else { continue }
            let keep = records.filter { $0.entity == rule.entity }.compactMap { saved[$0.resultIndex]?.rowID }
            let scope = try model.orphanScope(rule, parameters: parameters, table: table)
            var binds = PostgresBindings()
            binds.append(keep)
            let conditions = Self.equalities(scope, binds: &binds)
            let deleted = try await count("DELETE FROM \(names.table(rule.entity)) WHERE NOT (\(q(StoreSQL.rowID)) = ANY($1::bigint[]))"
                + (conditions.isEmpty ? "" : " AND \(conditions)"), binds)
            summary.deletedOrphans += deleted
            if deleted > 0 { touched.insert(rule.entity) }
        }

        // 5. What the GET path returned, for offline reads.
        if StoreModel.isSuccessfulGet(response) {
            let roots = StoreModel.rootsJSON(result.records.compactMap { root in saved[root.resultIndex].map { (root.entity, $0.rowID) } })
            try await connection.run("""
                INSERT INTO \(names.table(StoreSQL.pathsTable)) (path, generation, roots)
                VALUES ($1, nextval('\(names.namespace).\(q("rm_paths_generation"))'), $2)
                ON CONFLICT (path) DO UPDATE SET generation = excluded.generation, roots = excluded.roots
                """, binds(engine.model.mapper.requestPath(response.path), roots), logger: logger)
        }
        if !touched.isEmpty {
            try await connection.run("SELECT pg_notify($1, $2)", binds(engine.channel, touched.sorted().joined(separator: ",")), logger: logger)
        }
        return summary
    }

    // MARK: Upserting

    /// Inserts or updates the records of one table (none a tombstone), returning each one's row.
    private func upsert(_ table: StoreLayout.Table, _ records: [Record], saved: [Saved?]) async throws -> [Saved] {
        let linkColumns = table.links.filter(\.isColumn).map(\.name)
        let kinds = table.columns.map { PostgresColumn.Kind(type: $0.type) } + linkColumns.map { _ in PostgresColumn.Kind.integer }
        let identity = table.identity.compactMap(table.columnIndex)
        // Each record's values: attributes, then foreign keys (`nil`: leave the column as stored).
        var values: [[Value?]] = []
        var unwritten: [[String]] = []
        for record in records {
            var row = record.attributeValues
            row += Array(repeating: nil, count: max(0, table.columns.count - row.count))
            var missing: [String] = []
            for name in linkColumns {
                switch record[name] {
                case .absent: row.append(nil)
                case .value: row.append(.null)
                case .record(let target): row.append(saved[target.resultIndex].map { .integer($0.rowID) }); if saved[target.resultIndex] == nil { missing.append(name) }
                case .records(let targets):
                    if let target = targets.first {
                        row.append(saved[target.resultIndex].map { .integer($0.rowID) })
                        if saved[target.resultIndex] == nil { missing.append(name) }
                    } else {
                        row.append(.null)
                    }
                }
            }
            values.append(row)
            unwritten.append(missing)
        }
        var result = [Saved?](repeating: nil, count: records.count)
        let rows = values
        /// Records without an identity (or with a null one) are inserted, never matched; so are
        /// the first of each identity in a table that was empty (`isEmptyForBulkInsert`).
        func insertAll(_ positions: [Int], _ slots: [Int]) async throws {
            guard !positions.isEmpty else { return }
            let rowIDs = try await drawRowIDs(table, count: positions.count)
            // Batches of indices into `positions` (and `rowIDs`).
            try await runInBatches(Self.batches(Array(positions.indices)), statement: { batch in
                insertStatement(table, slots, kinds, batch.map { rows[positions[$0]] }, rowIDs: batch.map { rowIDs[$0] })
            }) { statement, batch in
                try await connection.run(statement.sql, statement.binds, logger: logger)
                for index in batch { result[positions[index]] = Saved(rowID: rowIDs[index], outcome: .inserted, unwrittenLinks: []) }
            }
        }
        // Records by the columns they have values for; identified ones in rounds of distinct identities.
        var keys = [String](repeating: "", count: values.count)
        var groups: [[Bool]: [Int]] = [:]
        for (position, row) in values.enumerated() { groups[row.map { $0 != nil }, default: []].append(position) }
        for (present, positions) in groups.sorted(by: { $0.value[0] < $1.value[0] }) {
            let slots = present.indices.filter { present[$0] }
            let identified = !identity.isEmpty && identity.allSatisfy { present[$0] }
            var rounds: [[Int]] = []
            var readsBackExactly = identified
            if identified {
                var seen: [String: Int] = [:]
                var anonymous: [Int] = []
                for position in positions {
                    guard identity.allSatisfy({ values[position][$0] != .null }) else { anonymous.append(position); continue }
                    let key = Self.identityKey(values[position], identity, kinds)
                    keys[position] = key
                    readsBackExactly = readsBackExactly && Self.identityReadsBackExactly(values[position], identity, kinds)
                    let round = seen[key, default: 0]
                    seen[key] = round + 1
                    if rounds.count <= round { rounds.append([]) }
                    rounds[round].append(position)
                }
                try await insertAll(anonymous, slots)
            } else {
                try await insertAll(positions, slots)
            }
            if let first = rounds.first, first.count >= Self.bulkInsertMinimum, try await isEmptyForBulkInsert(table) {
                try await insertAll(first, slots)
                rounds.removeFirst()
            }
            let matchedByClient = readsBackExactly
            try await runInBatches(rounds.flatMap(Self.batches), statement: { batch in
                upsertStatement(table, slots, kinds, identity, batch.map { rows[$0] }, matchedByClient: matchedByClient)
            }) { statement, batch in
                for (position, row) in try await upsertBatch(statement, table, slots, kinds, identity, batch.map { rows[$0] },
                                                             keys: matchedByClient ? batch.map { keys[$0] } : nil) {
                    result[batch[position]] = row
                }
            }
        }
        return try result.enumerated().map { position, row in
            guard var row else { throw StoreError("\(table.entity): a record was not written") }
            row.unwrittenLinks = unwritten[position]
            return row
        }
    }

    /// Whether the table holds no row, so that a save may insert identified records without
    /// `ON CONFLICT`: the check and the inserts after it are made under the table's advisory
    /// lock, which other saves taking this path wait for. A save on the usual path may still
    /// insert one of the identities meanwhile; the insert then fails with a unique violation and
    /// the transaction is run again (`PostgresEngine.transaction`), finding the table not empty.
    private func isEmptyForBulkInsert(_ table: StoreLayout.Table) async throws -> Bool {
        var lock = PostgresBindings()
        lock.append(PostgresEngine.key(engine.namespace, "bulk", table.entity))
        try await connection.run("SELECT pg_advisory_xact_lock($1)", lock, logger: logger)
        let rows = try await connection.rows("SELECT (NOT EXISTS (SELECT 1 FROM \(names.table(table.entity))))::text", logger: logger)
        return firstValue(rows) == "true"
    }

    /// The quoted column names by slot: attributes, then foreign keys.
    private func columnNames(_ table: StoreLayout.Table) -> [String] {
        (table.columns.map(\.name) + table.links.filter(\.isColumn).map(\.name)).map(q)
    }

    /// A record's identity as the server compares it (each value in its column's text form): two
    /// records of one key are one row.
    static func identityKey(_ row: [Value?], _ identity: [Int], _ kinds: [PostgresColumn.Kind]) -> String {
        key(identity.lazy.map { PostgresColumn.text(row[$0]!, kinds[$0]) })
    }

    /// The texts of an identity's columns as one key.
    static func key(_ texts: some Collection<String>) -> String {
        texts.count == 1 ? texts.first! : texts.joined(separator: "\u{0}")
    }

    /// Whether a record's identity columns read back as text (`column::text`) give its
    /// `identityKey`: text columns always, integer columns when the value is an integer (a text
    /// "05" would read back as "5"). Only then can the client find a written row's record by it.
    static func identityReadsBackExactly(_ row: [Value?], _ identity: [Int], _ kinds: [PostgresColumn.Kind]) -> Bool {
        identity.allSatisfy { slot in
            switch kinds[slot] {
            case .text: true
            case .integer: if case .integer? = row[slot] { true } else { false }
            default: false
            }
        }
    }

    /// The statement that upserts records of distinct identities that have values for the same
    /// `slots`: it inserts the new ones and updates those where a value differs (and, with
    /// `modifiedBy`, the version is newer), locking rows in identity order, and returns each
    /// written record's row id, whether it was inserted, and what tells its record: the identity
    /// as text when `matchedByClient` (every record's identity reads back exactly), else the
    /// record's position, found by joining the written rows back to the batch on the server.
    private func upsertStatement(_ table: StoreLayout.Table, _ slots: [Int], _ kinds: [PostgresColumn.Kind], _ identity: [Int],
                                 _ rows: [[Value?]], matchedByClient: Bool) -> Statement {
        let columns = columnNames(table)
        var binds = PostgresBindings()
        let source = PostgresRows.table(rows, slots: slots, kinds: kinds, alias: "x", binds: &binds)
        let input = slots.map { kinds[$0].fromText("x.c\($0)") }
        let version = versionSlot(table, slots)
        // Text and integer identities hold the very value on conflict: left out of the update.
        let assigned = slots.filter { !identity.contains($0) || ![.text, .integer].contains(kinds[$0]) }
        let target = identity.map { columns[$0] }.joined(separator: ", ")
        var action = "DO NOTHING"
        if !assigned.isEmpty {
            action = "DO UPDATE SET " + assigned.map { "\(columns[$0]) = excluded.\(columns[$0])" }.joined(separator: ", ")
                + " WHERE (" + assigned.map { "t.\(columns[$0]) IS DISTINCT FROM excluded.\(columns[$0])" }.joined(separator: " OR ") + ")"
            if let version { action += " AND (t.\(columns[version]) IS NULL OR excluded.\(columns[version]) > t.\(columns[version]))" }
        }
        let order = identity.map { kinds[$0].ordered(kinds[$0].fromText("x.c\($0)")) }.joined(separator: ", ")
        let insert = """
            INSERT INTO \(names.table(table.entity)) AS t (\(slots.map { columns[$0] }.joined(separator: ", ")))
                SELECT \(input.joined(separator: ", ")) FROM \(matchedByClient ? source : "x") ORDER BY \(order)
                ON CONFLICT (\(target)) \(action)
                RETURNING t.\(q(StoreSQL.rowID))::text AS rm_id, (t.xmax = 0)::text AS inserted
            """
        if matchedByClient {
            // The batch read once, with no join back: 580 ms instead of 746 for 22,000 updates.
            return (insert + ", " + identity.map { "t.\(columns[$0])::text" }.joined(separator: ", "), binds)
        }
        let match = identity.map { "u.\(columns[$0]) = \(kinds[$0].fromText("x.c\($0)"))" }.joined(separator: " AND ")
        let sql = """
            WITH x AS (SELECT * FROM \(source)),
            u AS (\(insert), \(identity.map { "t.\(columns[$0])" }.joined(separator: ", ")))
            SELECT x.p::text, u.rm_id, u.inserted FROM x JOIN u ON \(match)
            """
        return (sql, binds)
    }

    /// The slot of the table's `modifiedBy` attribute, when the records have a value for it.
    private func versionSlot(_ table: StoreLayout.Table, _ slots: [Int]) -> Int? {
        model.rules.modifiedBy[table.entity].flatMap(table.columnIndex).flatMap { slots.contains($0) ? $0 : nil }
    }

    /// Upserts one batch with its statement (`upsertStatement`), finding each written row's
    /// record by the records' identity `keys` when the statement returns identities; a second
    /// statement reads the rows left as they were, to tell unchanged from not newer.
    private func upsertBatch(_ statement: Statement, _ table: StoreLayout.Table, _ slots: [Int], _ kinds: [PostgresColumn.Kind],
                             _ identity: [Int], _ rows: [[Value?]], keys: [String]?) async throws -> [Int: Saved] {
        let columns = columnNames(table)
        let name = names.table(table.entity)
        let version = versionSlot(table, slots)
        var result: [Int: Saved] = [:]
        let written = try await connection.rows(statement.sql, statement.binds, logger: logger)
        if let keys {
            // Rows of row id, inserted, then the identity's texts.
            var positions: [String: Int] = [:]
            for (position, key) in keys.enumerated() { positions[key] = position }
            for row in written {
                guard let position = positions[Self.key(row[2...].lazy.map { $0 ?? "" })], let rowID = row[0].flatMap({ Int64($0) }) else {
                    throw StoreError("\(table.entity): a written row's identity matches no record of the batch")
                }
                result[position] = Saved(rowID: rowID, outcome: row[1] == "true" ? .inserted : .updated, unwrittenLinks: [])
            }
        } else {
            // Rows of position, row id, inserted.
            for row in written {
                guard let position = row[0].flatMap({ Int($0) }), let rowID = row[1].flatMap({ Int64($0) }) else { continue }
                result[position] = Saved(rowID: rowID, outcome: row[2] == "true" ? .inserted : .updated, unwrittenLinks: [])
            }
        }
        guard result.count < rows.count else { return result }
        // The rows left as they were: not newer when a value differs, else unchanged. Only their
        // records go to the server again (`p` numbers them in `missing`).
        let missing = rows.indices.filter { result[$0] == nil }
        let differs = version == nil ? "false" : slots.map { "t.\(columns[$0]) IS DISTINCT FROM \(kinds[$0].fromText("x.c\($0)"))" }.joined(separator: " OR ")
        let identityMatch = identity.map { "t.\(columns[$0]) = \(kinds[$0].fromText("x.c\($0)"))" }.joined(separator: " AND ")
        var again = PostgresBindings()
        let missingSource = PostgresRows.table(missing.map { rows[$0] }, slots: slots, kinds: kinds, alias: "x", binds: &again)
        for row in try await connection.rows("""
            SELECT x.p::text, t.\(q(StoreSQL.rowID))::text, (\(differs))::text
            FROM \(missingSource) JOIN \(name) AS t ON \(identityMatch)
            """, again, logger: logger) {
            guard let index = row[0].flatMap({ Int($0) }), missing.indices.contains(index), let rowID = row[1].flatMap({ Int64($0) }) else { continue }
            result[missing[index]] = Saved(rowID: rowID, outcome: row[2] == "true" ? .skipped : .unchanged, unwrittenLinks: [])
        }
        guard result.count == rows.count else {
            throw StoreError("\(table.entity): \(rows.count - result.count) upserted row(s) could not be found again")
        }
        return result
    }

    /// A statement and its parameters.
    typealias Statement = (sql: String, binds: PostgresBindings)

    /// Positions cut into batches of at most `batchSize`, in order.
    static func batches(_ positions: [Int]) -> [[Int]] {
        stride(from: 0, to: positions.count, by: batchSize).map { Array(positions[$0..<min($0 + batchSize, positions.count)]) }
    }

    /// Runs one statement per batch, in order; the next batch's statement is built while the
    /// server runs the current one.
    private func runInBatches(_ batches: [[Int]], statement: @escaping @Sendable ([Int]) -> Statement,
                              run: (Statement, [Int]) async throws -> Void) async throws {
        var next = batches.first.map(statement)
        for (index, batch) in batches.enumerated() {
            guard let current = next else { break }
            async let following = index + 1 < batches.count ? statement(batches[index + 1]) : nil
            try await run(current, batch)
            next = await following
        }
    }

    /// Row ids for `count` new rows of the table, drawn from its sequence, so that one statement
    /// inserts every row with its id and returns nothing (records without an identity could not
    /// be told apart in what an `INSERT … RETURNING` returns).
    private func drawRowIDs(_ table: StoreLayout.Table, count: Int) async throws -> [Int64] {
        var wanted = binds(try await engine.rowIDSequence(table.entity, connection))
        wanted.append(Int64(count))
        // One row holding a binary array: decoding thousands of rows of text took three times
        // as long as the server's drawing.
        var rowIDs: [Int64] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: "SELECT array_agg(v ORDER BY v) FROM "
            + "(SELECT nextval($1::regclass) AS v FROM generate_series(1, $2::bigint)) AS s", binds: wanted), logger: logger) {
            rowIDs = try row.decode([Int64].self)
        }
        guard rowIDs.count == count else { throw StoreError("\(table.entity): the row ids of an insert could not be drawn") }
        return rowIDs
    }

    /// The statement that inserts rows, all with values for the same `slots`, with their row ids.
    private func insertStatement(_ table: StoreLayout.Table, _ slots: [Int], _ kinds: [PostgresColumn.Kind], _ rows: [[Value?]],
                                 rowIDs: [Int64]) -> Statement {
        let columns = columnNames(table)
        var binds = PostgresBindings()
        binds.append(rowIDs)
        let source = PostgresRows.table(rows, slots: slots, kinds: kinds, alias: "x", binds: &binds)
        return ("INSERT INTO \(names.table(table.entity)) (\(([q(StoreSQL.rowID)] + slots.map { columns[$0] }).joined(separator: ", "))) "
            + "SELECT \((["($1::bigint[])[x.p + 1]"] + slots.map { kinds[$0].fromText("x.c\($0)") }).joined(separator: ", ")) "
            + "FROM \(source) ORDER BY x.p", binds)
    }

    /// Deletes the stored records the tombstones name; how many there were.
    private func deleteByIdentity(_ table: StoreLayout.Table, _ records: [Record]) async throws -> Int {
        let identity = table.identity.compactMap(table.columnIndex)
        guard !identity.isEmpty else { return 0 }
        let kinds = table.columns.map { PostgresColumn.Kind(type: $0.type) }
        let rows = records.map { record in identity.map { record.attributeValues.indices.contains($0) ? record.attributeValues[$0] : nil } }
            .filter { $0.allSatisfy { $0 != nil && $0 != .null } }
        guard !rows.isEmpty else { return 0 }
        var padded: [[Value?]] = []
        for row in rows {
            var values = [Value?](repeating: nil, count: table.columns.count)
            for (slot, value) in zip(identity, row) { values[slot] = value }
            padded.append(values)
        }
        var batch = PostgresBindings()
        let source = PostgresRows.table(padded, slots: identity, kinds: kinds, alias: "x", binds: &batch)
        let match = identity.map { "t.\(q(table.columns[$0].name)) = \(kinds[$0].fromText("x.c\($0)"))" }.joined(separator: " AND ")
        return try await count("DELETE FROM \(names.table(table.entity)) AS t USING \(source) WHERE \(match)", batch)
    }

    // MARK: Relationships

    /// Writes the foreign keys step 1 could not (their target was saved after the record), one
    /// statement per relationship; the row ids where one changed. A row that several records
    /// name gets the last one's target.
    private func writeUnwrittenLinks(_ records: [Record], table: StoreLayout.Table, saved: [Saved?]) async throws -> Set<Int64> {
        var changed = Set<Int64>()
        for link in table.links where link.isColumn {
            var targets: [Int64: Int64?] = [:]
            var rowIDs: [Int64] = []
            for record in records {
                guard let row = saved[record.resultIndex], row.outcome != .skipped, row.unwrittenLinks.contains(link.name) else { continue }
                if targets[row.rowID] == nil { rowIDs.append(row.rowID) }
                targets[row.rowID] = .some(record[link.name].records.first.flatMap { saved[$0.resultIndex]?.rowID })
            }
            guard !rowIDs.isEmpty else { continue }
            let pairs: [[Value?]] = rowIDs.sorted().map { rowID in [.integer(rowID), (targets[rowID] ?? nil).map(Value.integer) ?? .null] }
            var batch = PostgresBindings()
            let source = PostgresRows.table(pairs, slots: [0, 1], kinds: [.integer, .integer], alias: "v", binds: &batch)
            let column = q(link.name)
            let rows = try await connection.rows("UPDATE \(names.table(table.entity)) AS t SET \(column) = v.c1::bigint "
                + "FROM \(source) "
                + "WHERE t.\(q(StoreSQL.rowID)) = v.c0::bigint AND t.\(column) IS DISTINCT FROM v.c1::bigint RETURNING t.\(q(StoreSQL.rowID))::text",
                batch, logger: logger)
            changed.formUnion(rows.compactMap { $0.first.flatMap { $0 }.flatMap { Int64($0) } })
        }
        return changed
    }

    /// Sets (or, for `assign: union`, extends) the join rows of the sources' relationship;
    /// `true` when a row changed.
    private func replaceJoinRows(_ table: StoreLayout.Table, _ link: StoreLayout.Link,
                                 _ sources: [(rowID: Int64, related: [(entity: String, rowID: Int64)])], union: Bool) async throws -> Bool {
        guard !sources.isEmpty else { return false }
        let join = names.joinTable(table.entity, link.name)
        var ids = PostgresBindings()
        ids.append(sources.map(\.rowID))
        var current: [Int64: [(String, Int64)]] = [:]
        let targetEntity = link.isPolymorphic ? "\"targetEntity\"" : "NULL"
        for row in try await connection.rows("SELECT source::text, target::text, \(targetEntity) FROM \(join) WHERE source = ANY($1::bigint[]) "
                                             + "ORDER BY source, position", ids, logger: logger) {
            guard let source = row[0].flatMap({ Int64($0) }), let target = row[1].flatMap({ Int64($0) }) else { continue }
            current[source, default: []].append((row[2] ?? link.targets[0], target))
        }
        var replaced: [Int64] = []
        var inserts: (sources: [Int64], targets: [Int64], entities: [String], positions: [Int64]) = ([], [], [], [])
        for (source, related) in sources {
            let existing = current[source] ?? []
            var kept: [(String, Int64)] = []
            if union {
                kept = existing
            } else {
                if existing.elementsEqual(related, by: { $0.0 == $1.entity && $0.1 == $1.rowID }) { continue }
                if !existing.isEmpty { replaced.append(source) }
            }
            var position = Int64(kept.count)
            for target in related where !kept.contains(where: { $0.0 == target.entity && $0.1 == target.rowID }) {
                inserts.sources.append(source)
                inserts.targets.append(target.rowID)
                inserts.entities.append(target.entity)
                inserts.positions.append(position)
                kept.append((target.entity, target.rowID))
                position += 1
            }
        }
        if !replaced.isEmpty {
            var binds = PostgresBindings()
            binds.append(replaced)
            try await connection.run("DELETE FROM \(join) WHERE source = ANY($1::bigint[])", binds, logger: logger)
        }
        if !inserts.sources.isEmpty {
            var binds = PostgresBindings()
            binds.append(inserts.sources)
            binds.append(inserts.targets)
            binds.append(inserts.positions)
            if link.isPolymorphic { binds.append(inserts.entities) }
            try await connection.run(link.isPolymorphic
                ? "INSERT INTO \(join) (source, target, position, \"targetEntity\") SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[])"
                : "INSERT INTO \(join) (source, target, position) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])", binds, logger: logger)
        }
        return !replaced.isEmpty || !inserts.sources.isEmpty
    }

    /// Recomputes a `connect` relationship for every record of the entity: the foreign key (first
    /// match) or the join rows (every match), comparing values by their text, as mapping does
    /// (an integer equals a numeric text; an array or `any` array matches any of its items).
    private func reconnect(_ table: StoreLayout.Table, _ link: StoreLayout.Link) async throws {
        func condition(target: String) -> String? {
            guard let targetTable = model.layout.table(target) else { return nil }
            var parts: [String] = []
            for pair in link.connections {
                guard let local = table.columns.first(where: { $0.name == pair.local }),
                      let remote = targetTable.columns.first(where: { $0.name == pair.target }) else { return nil }
                let targetValue = PostgresColumn.Kind(type: remote.type).comparable("t.\(q(pair.target))")
                let localColumn = "s.\(q(pair.local))"
                let localKind = PostgresColumn.Kind(type: local.type)
                if localKind == .json {
                    parts.append("(\(targetValue) = (\(localColumn) #>> '{}') OR \(targetValue) IN (SELECT jsonb_array_elements_text("
                        + "CASE WHEN jsonb_typeof(\(localColumn)) = 'array' THEN \(localColumn) ELSE '[]'::jsonb END)))")
                } else {
                    parts.append("\(targetValue) = \(localKind.comparable(localColumn))")
                }
            }
            return parts.joined(separator: " AND ")
        }
        let source = names.table(table.entity)
        let rowID = q(StoreSQL.rowID)
        if link.isColumn {
            guard let condition = condition(target: link.targets[0]) else { return }
            try await connection.run("""
                UPDATE \(source) AS u SET \(q(link.name)) = n.value FROM (
                    SELECT s.\(rowID) AS id, (SELECT t.\(rowID) FROM \(names.table(link.targets[0])) AS t WHERE \(condition) ORDER BY t.\(rowID) LIMIT 1) AS value
                    FROM \(source) AS s) AS n
                WHERE u.\(rowID) = n.id AND u.\(q(link.name)) IS DISTINCT FROM n.value
                """, logger: logger)
            return
        }
        let join = names.joinTable(table.entity, link.name)
        try await connection.run("DELETE FROM \(join)", logger: logger)
        for target in link.targets {
            guard let condition = condition(target: target) else { continue }
            var binds = PostgresBindings()
            binds.append(target)
            try await connection.run("""
                INSERT INTO \(join) (source, target\(link.isPolymorphic ? ", \"targetEntity\"" : ""), position)
                SELECT s.\(rowID), t.\(rowID)\(link.isPolymorphic ? ", $1::text" : ""), row_number() OVER (PARTITION BY s.\(rowID) ORDER BY t.\(rowID)) - 1
                FROM \(source) AS s JOIN \(names.table(target)) AS t ON \(condition)
                """ + (link.isPolymorphic ? "" : " WHERE $1::text IS NOT NULL"), binds, logger: logger)
        }
    }

    // MARK: Rules

    /// `"a" = value AND "b" IS NULL …` over columns, the values bound after those in `binds`, in
    /// their text form, as rows are sent.
    static func equalities(_ pairs: [(column: StoreLayout.Column, value: Value)], binds: inout PostgresBindings) -> String {
        var conditions: [String] = []
        for (column, value) in pairs {
            if value == .null {
                conditions.append("\(PostgresNames.quote(column.name)) IS NULL")
            } else {
                let kind = PostgresColumn.Kind(type: column.type)
                binds.append(PostgresColumn.text(value, kind))
                conditions.append("\(PostgresNames.quote(column.name)) = \(kind.fromText("$\(binds.count)::text"))")
            }
        }
        return conditions.joined(separator: " AND ")
    }

    /// Runs a DELETE or UPDATE; how many rows it changed.
    private func count(_ sql: String, _ binds: PostgresBindings) async throws -> Int {
        let rows = try await connection.rows("WITH changed AS (\(sql) RETURNING 1) SELECT count(*)::text FROM changed", binds, logger: logger)
        return firstValue(rows).flatMap { Int($0) } ?? 0
    }

    /// Deletes the records a full re-read did not find again (`StoreSweep`); how many.
    func sweep(_ sweep: StoreSweep) async throws -> Int {
        let (identity, scope) = try sweep.columns(model.layout)
        let kinds = identity.map { PostgresColumn.Kind(type: $0.type) }
        let kept = sweep.kept.filter { $0.count == identity.count }.map { $0.map(Optional.some) }
        var arguments = PostgresBindings()
        let source = PostgresRows.table(kept, slots: Array(identity.indices), kinds: kinds, alias: "k", binds: &arguments)
        let match = identity.indices.map { "\(kinds[$0].fromText("k.c\($0)")) IS NOT DISTINCT FROM t.\(q(identity[$0].name))" }
            .joined(separator: " AND ")
        let conditions = Self.equalities(scope, binds: &arguments)
        return try await count("DELETE FROM \(names.table(sweep.entity)) AS t WHERE NOT EXISTS (SELECT 1 FROM \(source) "
            + "WHERE \(match))" + (conditions.isEmpty ? "" : " AND \(conditions)"), arguments)
    }
}
