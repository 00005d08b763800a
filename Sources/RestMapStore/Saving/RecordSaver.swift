import Foundation
import GRDB
import RestMap
import RestMapJSON
import RestMapSchema

/// Writes one mapping result inside the transaction of `RecordStore.save`.
struct RecordSaver: Sendable {
    let store: SQLiteEngine
    let isCompletePage: Bool

    private var layout: StoreLayout { store.layout }
    private var rules: StoreRules { store.rules }
    private let q = StoreSQL.quote

    init(store: SQLiteEngine, isCompletePage: Bool) {
        self.store = store
        self.isCompletePage = isCompletePage
    }

    /// How one record was written.
    private enum Outcome {
        case inserted, updated, unchanged, skipped
    }

    /// A record's row, what happened to it, and the foreign-key columns step 1 could not write
    /// (their target was not saved yet).
    private struct Saved {
        var rowID: Int64
        var outcome: Outcome
        var unwrittenLinks: [String]
    }

    /// What step 1 did to each record of one result, by `Record.resultIndex`.
    private struct SavedRows {
        private var rows: [Saved?]

        init(count: Int) { rows = Array(repeating: nil, count: count) }

        subscript(record: Record) -> Saved? {
            get { rows[record.resultIndex] }
            set { rows[record.resultIndex] = newValue }
        }
    }

    func save(_ result: MappingResult, of response: Response, _ db: Database) throws -> SaveSummary {
        var summary = SaveSummary()
        let records = result.allRecords
        var saved = SavedRows(count: records.count)
        var touched = Set<String>()
        var withUnwrittenLinks = Set<String>()

        // 1. Attributes: upsert by identity. Entities that to-one relationships point at go
        //    first, so a foreign key is written with its record instead of by a second update.
        let byEntity = Dictionary(grouping: records, by: { $0.entity })
        for entity in store.saveOrder {
            guard let group = byEntity[entity], let sql = store.statements[entity] else { continue }
            let table = sql.table
            let statements = UpsertStatements(sql, db)
            var values: [ColumnCoding.Stored?] = []
            values.reserveCapacity(sql.columns.count)
            var changed = false
            let hasTombstones = rules.tombstone[entity] != nil   // looked up once per entity, not per record
            var stored = try statements.storedRows(of: group)
            for (position, record) in group.enumerated() {
                values.removeAll(keepingCapacity: true)
                // The table's columns are the entity's attributes, in schema order.
                for (value, kind) in zip(record.attributeValues, sql.kinds) {
                    values.append(value.map { ColumnCoding.stored($0, kind: kind) })
                }
                for name in sql.linkColumns {
                    let target: Record?
                    switch record[name] {
                    case .absent: values.append(nil); continue
                    case .record(let record): target = record
                    case .records(let records): target = records.first
                    case .value: target = nil
                    }
                    if let target {
                        values.append(saved[target].map { .integer($0.rowID) })   // nil: not saved yet, linked in step 2
                    } else {
                        values.append(.null)
                    }
                }
                if hasTombstones, store.model.isTombstone(record, table: table) {
                    summary.deletedTombstones += try deleteTombstone(sql, values: values, db)
                    changed = true
                    stored = nil   // the lookup may name the deleted row: upsert the rest
                    continue
                }
                let row = try upsert(statements, values: values, stored: stored.map { .some($0.rowIDs[position]) } ?? .none,
                                     storedLinks: stored?.links(at: position))
                saved[record] = row
                if !row.unwrittenLinks.isEmpty { withUnwrittenLinks.insert(entity) }
                switch row.outcome {
                case .inserted: summary.inserted += 1; changed = true
                case .updated: summary.updated += 1; changed = true
                case .unchanged: summary.unchanged += 1
                case .skipped: summary.skippedNotNewer += 1
                }
            }
            if changed {
                touched.insert(entity)
                // The upserts ran on SQLite directly: GRDB's observers (the change feed) learn here.
                try db.notifyChanges(in: Table(entity))
            }
        }

        // 2. Nested relationships, from the mapping result's graph: join rows, and the foreign
        //    keys step 1 could not write (their target was not saved yet).
        for entity in store.saveOrder {
            guard let group = byEntity[entity], let sql = store.statements[entity],
                  withUnwrittenLinks.contains(entity) || sql.table.links.contains(where: { $0.connections.isEmpty && !$0.isColumn })
            else { continue }
            for record in group {
                guard let row = saved[record], row.outcome != .skipped else { continue }
                if try saveLinks(of: record, row: row, sql, saved: saved, db), row.outcome == .unchanged {
                    summary.unchanged -= 1
                    summary.updated += 1
                    touched.insert(entity)
                }
            }
        }

        // 3. `connect` relationships: recomputed by value against the whole store.
        for table in layout.tables {
            for link in table.links where !link.connections.isEmpty {
                if touched.contains(table.entity) || link.targets.contains(where: touched.contains) {
                    try reconnect(table: table, link: link, db)
                }
            }
        }

        // 4. Orphans, after a complete successful GET only.
        let path = store.mapper.requestPath(response.path)
        let orphans = store.model.orphanRules(for: response, isCompletePage: isCompletePage, failures: result.errors.count)
        summary.orphansKept = orphans.kept
        for (rule, parameters) in orphans.apply {
            let keep = Set(records.filter { $0.entity == rule.entity }.compactMap { saved[$0]?.rowID })
            summary.deletedOrphans += try deleteOrphans(rule, parameters: parameters, keep: keep, db)
        }

        // 5. What the GET path returned, for offline reads: the roots as `[[entity, rm_id], …]`.
        if StoreModel.isSuccessfulGet(response) {
            let roots = StoreModel.rootsJSON(result.records.compactMap { root in saved[root].map { (root.entity, $0.rowID) } })
            try db.forEachRow("""
                INSERT INTO \(StoreSQL.pathsTable) (path, generation, roots)
                VALUES (?1, (SELECT coalesce(max(generation), 0) + 1 FROM \(StoreSQL.pathsTable)), ?2)
                ON CONFLICT (path) DO UPDATE SET generation = excluded.generation, roots = excluded.roots
                """, arguments: [.text(path), .text(roots)], source: "table \(StoreSQL.pathsTable)") { _ in }
        }
        return summary
    }

    /// Writes one record's nested relationships; `true` when a foreign key changed.
    private func saveLinks(of record: Record, row: Saved, _ sql: TableSQL, saved: SavedRows, _ db: Database) throws -> Bool {
        let table = sql.table
        var linkChanged = false
        for link in table.links where link.connections.isEmpty {
            if link.isColumn, !row.unwrittenLinks.contains(link.name) { continue }
            let field = record[link.name]
            if field.isAbsent { continue }
            let related = field.records.compactMap { target in saved[target].map { (target.entity, $0.rowID) } }
            if link.isColumn {
                let value = related.first.map { $0.1.databaseValue } ?? .null
                try db.cachedStatement(sql: sql.updateLink[link.name]!).execute(arguments: [value, row.rowID])
                linkChanged = linkChanged || db.changesCount > 0
            } else {
                try replaceJoinRows(table: table, link: link, source: row.rowID, related: related,
                                    union: store.model.unionRelationships[table.entity]?.contains(link.name) == true, db)
            }
        }
        return linkChanged
    }

    // MARK: Upserting

    /// Finds the record by identity and updates what changed, or inserts it. `values` holds the
    /// attribute columns then the foreign-key columns; `nil` leaves a column as stored. `stored`
    /// is what the batch lookup found (`.some(nil)`: not stored), `.none` without one;
    /// `storedLinks` the stored row's foreign keys when the lookup read them.
    private func upsert(_ statements: UpsertStatements, values: [ColumnCoding.Stored?], stored: Int64??,
                        storedLinks: ArraySlice<Int64?>?) throws -> Saved {
        let sql = statements.sql
        let present = values.contains { $0 == nil } ? values.indices.filter { values[$0] != nil } : nil
        let unwritten = present == nil ? [] : sql.linkColumns.indices.filter { values[sql.table.columns.count + $0] == nil }.map { sql.linkColumns[$0] }
        let identified = !sql.identity.isEmpty && sql.identity.allSatisfy { values[$0].map { !$0.isNull } ?? false }
        guard identified else {
            let insert = try statements.insert(present)
            try bind(values, to: insert)
            try insert.run()
            return Saved(rowID: insert.lastInsertedRowID, outcome: .inserted, unwrittenLinks: unwritten)
        }
        if case .some(let found) = stored {
            if let rowID = found {
                // Stored: update what differs (and, modifiedBy, only when newer); without
                // modifiedBy the foreign keys by a statement of their own.
                let update = try statements.update(present), updateLinks = try statements.updateLinks(present)
                guard update != nil || updateLinks != nil else { return Saved(rowID: rowID, outcome: .unchanged, unwrittenLinks: unwritten) }
                var updated = false
                if let update {
                    try bind(values, to: update)
                    try update.bind(rowID, at: Int32((present?.count ?? values.count) + 1))
                    try update.run()
                    updated = update.changes > 0
                }
                let links = values[sql.table.columns.count...]
                if let updateLinks, linksDiffer(links, from: storedLinks) {
                    try bind(links, to: updateLinks)
                    try updateLinks.bind(rowID, at: Int32(links.count { $0 != nil } + 1))
                    try updateLinks.run()
                    updated = updated || updateLinks.changes > 0
                }
                if updated { return Saved(rowID: rowID, outcome: .updated, unwrittenLinks: unwritten) }
                return try keptOutcome(statements, rowID: rowID, values: values, present: present, unwritten: unwritten)
            }
            // Not stored: a plain insert, unless an earlier record of this save had the same identity.
            let insert = try statements.insert(present)
            try bind(values, to: insert)
            if let rowID = try insert.runInsertIfNew() { return Saved(rowID: rowID, outcome: .inserted, unwrittenLinks: unwritten) }
        }
        // One statement inserts, or updates when a value differs and (modifiedBy) the version is newer.
        let upsert = try statements.upsert(present)
        try bind(values, to: upsert)
        if let rowID = try upsert.runInsert() { return Saved(rowID: rowID, outcome: .inserted, unwrittenLinks: unwritten) }
        let updated = upsert.changes > 0
        let select = try statements.selectByIdentity()
        for (index, slot) in sql.identity.enumerated() { try select.bind(values[slot]!, at: Int32(index + 1)) }
        guard let rowID = try select.run() else { throw StoreError("\(sql.table.entity): the row an upsert found is missing") }
        if updated { return Saved(rowID: rowID, outcome: .updated, unwrittenLinks: unwritten) }
        return try keptOutcome(statements, rowID: rowID, values: values, present: present, unwritten: unwritten)
    }

    /// Whether a present foreign-key value differs from the stored one (`true` when the stored
    /// ones were not read). The lookup's values stay current through step 1: it names each
    /// stored row once, since a mapping result merges records of equal identity.
    private func linksDiffer(_ links: ArraySlice<ColumnCoding.Stored?>, from stored: ArraySlice<Int64?>?) -> Bool {
        guard let stored else { return true }
        for (value, storedRowID) in zip(links, stored) {
            switch value {
            case nil: continue
            case .integer(let rowID)?: if storedRowID != rowID { return true }
            case .null?: if storedRowID != nil { return true }
            default: return true
            }
        }
        return false
    }

    /// Binds the present values to `?1…?n`.
    private func bind(_ values: some Collection<ColumnCoding.Stored?>, to statement: DirectStatement) throws {
        var index: Int32 = 1
        for case let value? in values {
            try statement.bind(value, at: index)
            index += 1
        }
    }

    /// A stored row an upsert or update left as it was: `skipped` when a value differs (the
    /// version was not newer), else `unchanged`.
    private func keptOutcome(_ statements: UpsertStatements, rowID: Int64, values: [ColumnCoding.Stored?], present: [Int]?,
                             unwritten: [String]) throws -> Saved {
        let sql = statements.sql
        guard let version = sql.version, values[version] != nil else { return Saved(rowID: rowID, outcome: .unchanged, unwrittenLinks: unwritten) }
        let differs = try statements.differs(present)
        try bind(values, to: differs)
        try differs.bind(rowID, at: Int32((present?.count ?? values.count) + 1))
        return Saved(rowID: rowID, outcome: try differs.run() == 1 ? .skipped : .unchanged, unwrittenLinks: unwritten)
    }

    // MARK: Relationships

    /// Sets (or, for `assign: union`, extends) the join rows of one record's relationship.
    private func replaceJoinRows(table: StoreLayout.Table, link: StoreLayout.Link, source: Int64,
                                 related: [(entity: String, rowID: Int64)], union: Bool, _ db: Database) throws {
        let join = StoreSQL.joinTable(table.entity, link.name)
        let targetColumns = link.isPolymorphic ? "target, targetEntity" : "target"
        var current: [(String, Int64)] = []
        try db.forEachRow("SELECT \(targetColumns) FROM \(join) WHERE source = ?1 ORDER BY position", arguments: [.integer(source)],
                          source: "table \(join)") { row in
            current.append((link.isPolymorphic ? try row.text(at: 1, "targetEntity") : link.targets[0], try row.integer(at: 0, "target")))
        }
        var existing: [(String, Int64)] = []
        if union {
            existing = current
        } else {
            if current.elementsEqual(related, by: { $0.0 == $1.entity && $0.1 == $1.rowID }) { return }
            try db.cachedStatement(sql: "DELETE FROM \(join) WHERE source = ?").execute(arguments: [source])
        }
        let insert = try db.cachedStatement(sql: link.isPolymorphic
            ? "INSERT INTO \(join) (source, target, targetEntity, position) VALUES (?, ?, ?, ?)"
            : "INSERT INTO \(join) (source, target, position) VALUES (?, ?, ?)")
        var position = existing.count
        for target in related where !existing.contains(where: { $0.0 == target.entity && $0.1 == target.rowID }) {
            try insert.execute(arguments: link.isPolymorphic
                ? [source, target.rowID, target.entity, position] : [source, target.rowID, position])
            position += 1
        }
    }

    /// Recomputes a `connect` relationship for every record of the entity: the foreign key
    /// (first match) or the join rows (every match), comparing values as mapping does (an
    /// integer column equals a numeric text; an array or `any` value matches any of its items).
    private func reconnect(table: StoreLayout.Table, link: StoreLayout.Link, _ db: Database) throws {
        func condition(target: String) -> String? {
            guard let targetTable = layout.table(target) else { return nil }
            var parts: [String] = []
            for pair in link.connections {
                guard let local = table.columns.first(where: { $0.name == pair.local }),
                      targetTable.columnIndex(pair.target) != nil else { return nil }
                let targetValue = "t.\(q(pair.target))", localValue = "s.\(q(pair.local))"
                if local.type.hasPrefix("[") {
                    parts.append("\(targetValue) IN (SELECT value FROM json_each(\(localValue)))")
                } else if local.type == "any" {
                    // A scalar compares directly; an array (a JSON blob) matches any of its items.
                    parts.append("(\(targetValue) = \(localValue) OR \(targetValue) IN (SELECT value FROM json_each("
                        + "CASE WHEN typeof(\(localValue)) = 'blob' THEN CAST(\(localValue) AS TEXT) ELSE '[]' END)))")
                } else {
                    parts.append("\(targetValue) = \(localValue)")
                }
            }
            return parts.joined(separator: " AND ")
        }
        let source = q(table.entity)
        let rowID = q(StoreSQL.rowID)
        if link.isColumn {
            guard let condition = condition(target: link.targets[0]) else { return }
            try db.execute(sql: """
                UPDATE \(source) AS s SET \(q(link.name)) = (SELECT t.\(rowID) FROM \(q(link.targets[0])) AS t
                    WHERE \(condition) ORDER BY t.\(rowID) LIMIT 1)
                """)
            return
        }
        let join = StoreSQL.joinTable(table.entity, link.name)
        try db.execute(sql: "DELETE FROM \(join)")
        for target in link.targets {
            guard let condition = condition(target: target) else { continue }
            let targetEntity = link.isPolymorphic ? ", targetEntity" : ""
            let targetValue = link.isPolymorphic ? ", '\(target.replacingOccurrences(of: "'", with: "''"))'" : ""
            try db.execute(sql: """
                INSERT INTO \(join) (source, target\(targetEntity), position)
                SELECT s.\(rowID), t.\(rowID)\(targetValue), row_number() OVER (PARTITION BY s.\(rowID) ORDER BY t.\(rowID)) - 1
                FROM \(source) AS s JOIN \(q(target)) AS t ON \(condition)
                """)
        }
    }

    // MARK: Rules

    /// Deletes the stored record a tombstone names; returns 1 when there was one, else 0.
    private func deleteTombstone(_ sql: TableSQL, values: [ColumnCoding.Stored?], _ db: Database) throws -> Int {
        let identity = sql.identity.compactMap { values[$0] }.filter { !$0.isNull }
        guard !sql.identity.isEmpty, identity.count == sql.identity.count else { return 0 }
        // Bound by length (`forEachRow`): a text identity is matched whole.
        try db.forEachRow(sql.deleteByIdentity, arguments: identity, source: "table \(q(sql.table.entity))") { _ in }
        return db.changesCount
    }

    private func deleteOrphans(_ rule: StoreRules.OrphanRule, parameters: [String: String], keep: Set<Int64>,
                               _ db: Database) throws -> Int {
        guard let table = layout.table(rule.entity) else { return 0 }
        let scope = try store.model.orphanScope(rule, parameters: parameters, table: table)
        let conditions = ColumnCoding.equalities(scope)
        var candidates: [Int64] = []
        try db.forEachRow("SELECT \(q(StoreSQL.rowID)) FROM \(q(rule.entity))" + (scope.isEmpty ? "" : " WHERE \(conditions.sql)"),
                          arguments: conditions.arguments, source: "table \(q(rule.entity))") { row in
            candidates.append(try row.integer(at: 0, StoreSQL.rowID))
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM \(q(rule.entity)) WHERE \(q(StoreSQL.rowID)) = ?")
        var deleted = 0
        for rowID in candidates where !keep.contains(rowID) {
            try delete.execute(arguments: [rowID])
            deleted += 1
        }
        return deleted
    }
}
