import Foundation
import GRDB
import RestMap
import RestMapJSON
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
        func bad(_ why: String) -> DamagedStore {
            DamagedStore("\(source), column 'roots': \(why); it must be a JSON array of [entity, rm_id] pairs")
        }
        guard let document = try? JSONDocument(string: text) else { throw bad("not JSON") }
        guard document.root.kind == .array else { throw bad("not an array") }
        var keys: [Key] = []
        for (index, pair) in document.root.elements.enumerated() {
            let items = pair.kind == .array ? Array(pair.elements) : []
            guard items.count == 2, let entity = items[0].stringValue, let rowID = items[1].number?.int64 else {
                throw bad("item \(index) is not an [entity, rm_id] pair")
            }
            guard store.layout.table(entity) != nil else { throw bad("item \(index) names '\(entity)', which is not an entity of the store") }
            keys.append(Key(entity: entity, rowID: rowID))
        }
        return try load(keys, depth: depth, db)
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
                        let handle = try builder.add(entity: table.entity, attributes: values)
                        handles[key] = handle
                        for (relationship, targets) in links {
                            pendingLinks.append((handle, relationship, targets))
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

    private func suggestion(_ name: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
