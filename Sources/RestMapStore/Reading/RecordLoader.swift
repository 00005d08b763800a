import Foundation
import GRDB
import RestMap
import RestMapSchema

/// Reads stored rows back into `Record` values (the same ones mapping gives), following
/// relationships a given number of levels deep.
struct RecordLoader {
    let store: RecordStore
    private let q = StoreSQL.quote

    init(store: RecordStore) {
        self.store = store
    }

    /// A stored row: its entity and row id.
    struct Key: Hashable {
        var entity: String
        var rowID: Int64
    }

    // MARK: Selecting roots

    func records(_ query: StoreQuery, _ db: Database) throws -> [Record] {
        try load(selectRoots(query, db), depth: query.depth, db)
    }

    /// The row ids a query selects, in its order.
    func selectRoots(_ query: StoreQuery, _ db: Database) throws -> [Key] {
        guard let table = store.layout.table(query.entity) else {
            throw StoreError("unknown entity '\(query.entity)'" + suggestion(query.entity, store.layout.tables.map(\.entity)))
        }
        func column(_ name: String) throws -> StoreLayout.Column {
            guard let column = table.columns.first(where: { $0.name == name }) else {
                throw StoreError("\(table.entity) has no attribute '\(name)'" + suggestion(name, table.columns.map(\.name)))
            }
            return column
        }
        var filters: [(column: StoreLayout.Column, value: Value)] = []
        for filter in query.filters {
            filters.append((try column(filter.attribute), try store.mapper.coerce(filter.value, toAttribute: filter.attribute, of: table.entity)))
        }
        let conditions = ColumnCoding.equalities(filters)
        var order: [String] = []
        for (name, ascending) in query.order {
            let column = try column(name)
            // Decimals are exact text; they order by their numeric value.
            let expression = column.type == "decimal" ? "CAST(\(q(name)) AS REAL)" : q(name)
            order.append("\(expression) \(ascending ? "ASC" : "DESC")")
        }
        order.append(q(StoreSQL.rowID))
        var sql = "SELECT \(q(StoreSQL.rowID)) FROM \(q(table.entity))"
        if !filters.isEmpty { sql += " WHERE " + conditions.sql }
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return try Int64.fetchAll(db, sql: sql, arguments: conditions.arguments).map { Key(entity: table.entity, rowID: $0) }
    }

    func records(forPath path: String, depth: Int, _ db: Database) throws -> [Record]? {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM \(StoreSQL.pathsTable) WHERE path = ?", arguments: [path]) != nil else {
            return nil
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT json_extract(root.value, '$[0]'), json_extract(root.value, '$[1]')
            FROM \(StoreSQL.pathsTable), json_each(\(StoreSQL.pathsTable).roots) AS root WHERE \(StoreSQL.pathsTable).path = ? ORDER BY root.key
            """, arguments: [path])
        return try load(rows.map { Key(entity: $0[0], rowID: $0[1]) }, depth: depth, db)
    }

    func search(_ text: String, entity: String?, limit: Int, depth: Int, _ db: Database) throws -> [Record] {
        let terms = text.split(whereSeparator: { $0.isWhitespace }).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        guard !terms.isEmpty else { throw StoreError("search needs at least one term") }
        let tables = store.layout.tables.filter { !$0.search.isEmpty && (entity == nil || $0.entity == entity) }
        if let entity, tables.isEmpty {
            guard store.layout.table(entity) != nil else {
                throw StoreError("unknown entity '\(entity)'" + suggestion(entity, store.layout.tables.map(\.entity)))
            }
            throw StoreError("entity '\(entity)' has no search attributes (add it under store.search)")
        }
        guard !tables.isEmpty else { throw StoreError("the schema has no store.search attributes") }
        var hits: [(key: Key, rank: Double)] = []
        for table in tables {
            let fts = StoreSQL.searchTable(table.entity)
            let rows = try Row.fetchAll(db, sql: "SELECT rowid, rank FROM \(fts) WHERE \(fts) MATCH ? ORDER BY rank LIMIT ?",
                                        arguments: [terms.joined(separator: " "), limit])
            hits += rows.map { (Key(entity: table.entity, rowID: $0[0]), $0[1]) }
        }
        hits.sort { $0.rank < $1.rank }
        return try load(hits.prefix(limit).map(\.key), depth: depth, db)
    }

    // MARK: Loading

    /// The records of `roots`, in order, with related records loaded `depth` levels deep.
    func load(_ roots: [Key], depth: Int, _ db: Database) throws -> [Record] {
        var builder = RecordGraphBuilder(mapper: store.mapper)
        var handles: [Key: Int] = [:]
        var pendingLinks: [(handle: Int, relationship: String, targets: [Key])] = []
        var level = roots
        for currentDepth in 0...max(0, depth) {
            let followLinks = currentDepth < depth
            let byEntity = Dictionary(grouping: level.filter { handles[$0] == nil }, by: \.entity)
            var next: [Key] = []
            for table in store.layout.tables {
                guard let keys = byEntity[table.entity] else { continue }
                for chunk in stride(from: 0, to: keys.count, by: 500).map({ Array(keys[$0..<min($0 + 500, keys.count)]) }) {
                    let found = try fetchRows(table, rowIDs: chunk.map(\.rowID), followLinks: followLinks, db)
                    for (rowID, values, links) in found {
                        let key = Key(entity: table.entity, rowID: rowID)
                        guard handles[key] == nil else { continue }
                        handles[key] = try builder.add(entity: table.entity, attributes: values)
                        for (relationship, targets) in links {
                            pendingLinks.append((handles[key]!, relationship, targets))
                            next += targets
                        }
                    }
                }
            }
            level = next
            if level.isEmpty { break }
        }
        for link in pendingLinks {
            try builder.relate(link.handle, relationship: link.relationship, to: link.targets.compactMap { handles[$0] })
        }
        let records = builder.build()
        return roots.compactMap { handles[$0].map { records[$0] } }
    }

    /// Rows of one table by row id: attribute values, and (when following links) the related keys per relationship.
    private func fetchRows(_ table: StoreLayout.Table, rowIDs: [Int64], followLinks: Bool, _ db: Database)
        throws -> [(Int64, [Value?], [(String, [Key])])] {
        let linkColumns = followLinks ? table.links.filter(\.isColumn) : []
        let columns = ([StoreSQL.rowID] + table.columns.map(\.name) + linkColumns.map(\.name)).map(q).joined(separator: ", ")
        let marks = Array(repeating: "?", count: rowIDs.count).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(q(table.entity)) WHERE \(q(StoreSQL.rowID)) IN (\(marks))",
                                    arguments: StatementArguments(rowIDs))
        var joined: [String: [Int64: [Key]]] = [:]
        if followLinks {
            for link in table.links where !link.isColumn {
                let targetEntity = link.isPolymorphic ? "targetEntity" : "NULL"
                let join = try Row.fetchAll(db, sql: """
                    SELECT source, target, \(targetEntity) FROM \(StoreSQL.joinTable(table.entity, link.name))
                    WHERE source IN (\(marks)) ORDER BY source, position
                    """, arguments: StatementArguments(rowIDs))
                var targets: [Int64: [Key]] = [:]
                for row in join {
                    let entity: String = (row[2] as String?) ?? link.targets.first ?? ""
                    targets[row[0], default: []].append(Key(entity: entity, rowID: row[1]))
                }
                joined[link.name] = targets
            }
        }
        let byRowID = Dictionary(rows.map { ($0[0] as Int64, $0) }, uniquingKeysWith: { first, _ in first })
        return rowIDs.compactMap { rowID in
            guard let row = byRowID[rowID] else { return nil }
            let values: [Value?] = table.columns.enumerated().map { offset, column in ColumnCoding.decode(row[1 + offset], type: column.type) }
            var links: [(String, [Key])] = []
            for (offset, link) in linkColumns.enumerated() {
                let target: Int64? = row[1 + table.columns.count + offset]
                links.append((link.name, target.map { [Key(entity: link.targets[0], rowID: $0)] } ?? []))
            }
            for link in table.links where !link.isColumn && followLinks {
                links.append((link.name, joined[link.name]?[rowID] ?? []))
            }
            return (rowID, values, links)
        }
    }

    private func suggestion(_ name: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
