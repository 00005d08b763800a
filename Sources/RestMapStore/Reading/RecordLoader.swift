import Foundation
import GRDB
import RestMap
import RestMapJSON
import RestMapSchema

/// Reads stored rows back into `Record` values (the same ones mapping gives), following
/// relationships a given number of levels deep.
struct RecordLoader {
    let store: SQLiteEngine
    private let q = StoreSQL.quote

    init(store: SQLiteEngine) {
        self.store = store
    }

    typealias Key = RecordGraphLoad.Key

    // MARK: Selecting roots

    func records(_ query: StoreQuery, _ db: Database) throws -> [Record] {
        try load(selectRoots(query, db), depth: query.depth, db)
    }

    /// The row ids a query selects, in its order.
    func selectRoots(_ query: StoreQuery, _ db: Database) throws -> [Key] {
        let (table, filters, orderColumns) = try store.model.resolve(query)
        let conditions = ColumnCoding.equalities(filters)
        var order: [String] = []
        for (column, ascending) in orderColumns {
            // Decimals are exact text; they order by their numeric value.
            let expression = column.type == "decimal" ? "CAST(\(q(column.name)) AS REAL)" : q(column.name)
            order.append("\(expression) \(ascending ? "ASC" : "DESC")")
        }
        order.append(q(StoreSQL.rowID))
        var sql = "SELECT \(q(StoreSQL.rowID)) FROM \(q(table.entity))"
        if !filters.isEmpty { sql += " WHERE " + conditions.sql }
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        var keys: [Key] = []
        try db.forEachRow(sql, arguments: conditions.arguments, source: "table \(q(table.entity))") { row in
            keys.append(Key(entity: table.entity, rowID: try row.integer(at: 0, StoreSQL.rowID)))
        }
        return keys
    }

    /// The roots the last successful GET of `path` returned, read from `rm_paths`; `nil` when
    /// the path was never saved. A roots value that is not a JSON array of `[entity, rm_id]`
    /// pairs naming the store's entities is an error (the file is input: it may be damaged).
    func records(forPath path: String, depth: Int, _ db: Database) throws -> [Record]? {
        var stored: String?
        let source = "table \(StoreSQL.pathsTable), the row of the path asked for"
        try db.forEachRow("SELECT roots FROM \(StoreSQL.pathsTable) WHERE path = ?1", arguments: [.text(path)], source: source) { row in
            stored = try row.text(at: 0, "roots")
        }
        guard let text = stored else { return nil }
        let keys = try store.model.roots(fromJSON: text) { why in
            DamagedStore("\(source), column 'roots': \(why); it must be a JSON array of [entity, rm_id] pairs")
        }
        return try load(keys, depth: depth, db)
    }

    func search(_ words: [String], tables: [StoreLayout.Table], limit: Int, depth: Int, _ db: Database) throws -> [Record] {
        let terms = words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        var hits: [(key: Key, rank: Double)] = []
        for table in tables {
            let fts = StoreSQL.searchTable(table.entity)
            try db.forEachRow("SELECT rowid, rank FROM \(fts) WHERE \(fts) MATCH ?1 ORDER BY rank LIMIT ?2",
                              arguments: [.text(terms.joined(separator: " ")), .integer(Int64(max(0, limit)))], source: "table \(fts)") { row in
                let rank: Double
                switch row.value(at: 1) {
                case .real(let real): rank = real
                case .integer(let integer): rank = Double(integer)
                case let other: throw row.badValue(other, "rank", expected: "a number")
                }
                hits.append((Key(entity: table.entity, rowID: try row.integer(at: 0, "rowid")), rank))
            }
        }
        hits.sort { $0.rank < $1.rank }
        return try load(hits.prefix(limit).map(\.key), depth: depth, db)
    }

    // MARK: Loading

    /// The records of `roots`, in order, with related records loaded `depth` levels deep.
    func load(_ roots: [Key], depth: Int, _ db: Database) throws -> [Record] {
        var graph = RecordGraphLoad(roots: roots, depth: depth, model: store.model)
        repeat {
            for request in graph.requests() {
                let rows = try fetchRows(request.table, rowIDs: request.rowIDs, followLinks: request.followLinks, db)
                try graph.receive(rows.map { RecordGraphLoad.Row(rowID: $0.0, values: $0.1, links: $0.2) }, of: request.table.entity)
            }
        } while graph.advance()
        return try graph.records()
    }

    /// Rows of one table by row id: attribute values, and (when following links) the related keys per relationship.
    private func fetchRows(_ table: StoreLayout.Table, rowIDs: [Int64], followLinks: Bool, _ db: Database)
        throws -> [(Int64, [Value?], [(String, [Key])])] {
        let linkColumns = followLinks ? table.links.filter(\.isColumn) : []
        let columns = ([StoreSQL.rowID] + table.columns.map(\.name) + linkColumns.map(\.name)).map(q).joined(separator: ", ")
        let marks = Array(repeating: "?", count: rowIDs.count).joined(separator: ", ")
        let source = "table \(q(table.entity))"
        var rows: [Int64: [SQLiteValue]] = [:]
        let arguments = rowIDs.map { ColumnCoding.Stored.integer($0) }
        try db.forEachRow("SELECT \(columns) FROM \(q(table.entity)) WHERE \(q(StoreSQL.rowID)) IN (\(marks))", arguments: arguments,
                          source: source) { row in
            let rowID = try row.integer(at: 0, StoreSQL.rowID)
            if rows[rowID] == nil { rows[rowID] = (1..<row.count).map { row.value(at: $0) } }
        }
        var joined: [String: [Int64: [Key]]] = [:]
        if followLinks {
            for link in table.links where !link.isColumn {
                let targetEntity = link.isPolymorphic ? "targetEntity" : "NULL"
                let join = StoreSQL.joinTable(table.entity, link.name)
                var targets: [Int64: [Key]] = [:]
                try db.forEachRow("""
                    SELECT source, target, \(targetEntity) FROM \(join)
                    WHERE source IN (\(marks)) ORDER BY source, position
                    """, arguments: arguments, source: "table \(join)") { row in
                    let entity = try (link.isPolymorphic ? row.text(at: 2, "targetEntity") : link.targets.first) ?? ""
                    guard link.targets.contains(entity) else {
                        throw DamagedStore("table \(join), column 'targetEntity': '\(entity)' is not a target of \(table.entity).\(link.name)")
                    }
                    targets[try row.integer(at: 0, "source"), default: []].append(Key(entity: entity, rowID: try row.integer(at: 1, "target")))
                }
                joined[link.name] = targets
            }
        }
        var found: [(Int64, [Value?], [(String, [Key])])] = []
        for rowID in rowIDs {
            guard let row = rows[rowID] else { continue }
            let values: [Value?] = table.columns.enumerated().map { offset, column in ColumnCoding.decode(row[offset], type: column.type) }
            var links: [(String, [Key])] = []
            for (offset, link) in linkColumns.enumerated() {
                let target: Int64?
                switch row[table.columns.count + offset] {
                case .integer(let integer): target = integer
                case .null: target = nil
                case let other: throw DamagedStore("\(source), column '\(link.name)': a row id was expected, the file holds a \(other.typeName)")
                }
                links.append((link.name, target.map { [Key(entity: link.targets[0], rowID: $0)] } ?? []))
            }
            for link in table.links where !link.isColumn && followLinks {
                links.append((link.name, joined[link.name]?[rowID] ?? []))
            }
            found.append((rowID, values, links))
        }
        return found
    }
}
