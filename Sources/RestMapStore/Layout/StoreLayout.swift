import Foundation
import RestMapSchema

/// How a schema's entities become SQLite tables (Docs/Store.md, "Tables"). The layout is derived
/// from the schema alone, saved in the store as JSON, and compared on open to migrate.
package struct StoreLayout: Codable, Equatable, Sendable {
    /// One table per (non-dynamic) entity, in schema order.
    package var tables: [Table]

    package struct Table: Codable, Equatable, Sendable {
        package var entity: String
        package var columns: [Column]
        /// Identification attributes: a unique index over them.
        package var identity: [String]
        package var links: [Link]
        /// Attributes indexed for full-text search (`store.search`).
        package var search: [String]

        /// The position of an attribute's column.
        package func columnIndex(_ name: String) -> Int? { columns.firstIndex { $0.name == name } }
    }

    /// An attribute column.
    package struct Column: Codable, Equatable, Sendable {
        package var name: String
        /// The attribute type as the schema spells it (`integer`, `[string]`, …).
        package var type: String

        /// The STRICT SQLite type of the column.
        var sqlType: String {
            switch type {
            case "integer", "boolean": "INTEGER"
            case "number", "date": "REAL"
            case "any": "ANY"
            default: "TEXT"   // string, url, decimal (exact text), arrays (JSON text)
            }
        }
    }

    /// A stored relationship.
    package struct Link: Codable, Equatable, Sendable {
        package var name: String
        /// The entities a related record can be: the target, or a dynamic target's entities.
        package var targets: [String]
        package var isToMany: Bool
        /// `connect` pairs (local attribute, target attribute); empty for nested relationships.
        package var connections: [Connection]

        package struct Connection: Codable, Equatable, Sendable {
            package var local: String
            package var target: String
        }

        /// A to-one relationship to one entity is a foreign-key column; anything else a join table.
        package var isColumn: Bool { !isToMany && targets.count == 1 }
        package var isPolymorphic: Bool { targets.count > 1 }
    }

    /// The layout a schema implies.
    package init(schema: Schema, rules: StoreRules) throws(StoreError) {
        let entities = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func concreteEntities(_ name: String) -> [String] {
            guard let entity = entities[name] else { return [] }
            guard let dynamic = entity.dynamic else { return [name] }
            var names = dynamic.cases.map(\.entity.value)
            if case .entity(let fallback) = dynamic.otherwise { names.append(fallback.value) }
            var seen = Set<String>()
            return names.filter { entities[$0]?.dynamic == nil && seen.insert($0).inserted }
        }
        var tables: [Table] = []
        for entity in schema.entities where entity.dynamic == nil {
            if entity.name.lowercased().hasPrefix("rm_") {
                throw StoreError("entity '\(entity.name)': names starting with 'rm_' are reserved for the store's own tables")
            }
            var names = Set<String>()
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                if name == StoreSQL.rowID {
                    throw StoreError("\(entity.name).\(name): '\(StoreSQL.rowID)' is the store's row id column; rename the attribute")
                }
                if !names.insert(name).inserted {
                    throw StoreError("\(entity.name).\(name): an attribute and a relationship share this name")
                }
            }
            let links = entity.relationships.compactMap { relationship -> Link? in
                // A relationship that only names a route carries nothing mapping fills in.
                guard relationship.source != nil || !relationship.connections.isEmpty else { return nil }
                return Link(name: relationship.name, targets: concreteEntities(relationship.entity.value),
                            isToMany: relationship.isToMany,
                            connections: relationship.connections.map { Link.Connection(local: $0.local.value, target: $0.target.value) })
            }
            tables.append(Table(entity: entity.name,
                                columns: entity.attributes.map { Column(name: $0.name, type: $0.type.description) },
                                identity: entity.identifiedBy.map(\.value), links: links,
                                search: rules.search[entity.name] ?? []))
        }
        self.tables = tables
    }

    package func table(_ entity: String) -> Table? { tables.first { $0.entity == entity } }

    /// Entities in saving order: the targets of to-one foreign keys before the entities that
    /// point at them (depth first; a cycle is broken where it is met).
    package var saveOrder: [String] {
        var order: [String] = []
        var visiting = Set<String>()
        func visit(_ entity: String) {
            guard !order.contains(entity), visiting.insert(entity).inserted, let table = table(entity) else { return }
            for link in table.links where link.isColumn { visit(link.targets[0]) }
            order.append(entity)
        }
        for table in tables { visit(table.entity) }
        return order
    }

    // MARK: Comparing layouts

    /// What changed from the stored layout to this one: additive steps to migrate, and the
    /// destructive changes that need a rebuild (each named for the error message).
    package func changes(from old: StoreLayout) -> (additive: [Migration], destructive: [String]) {
        var additive: [Migration] = []
        var destructive: [String] = []
        for oldTable in old.tables where table(oldTable.entity) == nil {
            destructive.append("entity '\(oldTable.entity)' was removed")
        }
        for new in tables {
            guard let previous = old.table(new.entity) else {
                additive.append(.createTable(new))
                continue
            }
            for column in previous.columns {
                guard let current = new.columns.first(where: { $0.name == column.name }) else {
                    destructive.append("attribute '\(new.entity).\(column.name)' was removed")
                    continue
                }
                if current.type != column.type {
                    destructive.append("attribute '\(new.entity).\(column.name)' changed type from \(column.type) to \(current.type)")
                }
            }
            for column in new.columns where previous.columns.allSatisfy({ $0.name != column.name }) {
                additive.append(.addColumn(new.entity, column))
            }
            if previous.identity != new.identity {
                destructive.append("identification of '\(new.entity)' changed from [\(previous.identity.joined(separator: ", "))] "
                    + "to [\(new.identity.joined(separator: ", "))]")
            }
            for link in previous.links {
                guard let current = new.links.first(where: { $0.name == link.name }) else {
                    destructive.append("relationship '\(new.entity).\(link.name)' was removed")
                    continue
                }
                if current.targets != link.targets || current.isToMany != link.isToMany {
                    destructive.append("relationship '\(new.entity).\(link.name)' changed its target or cardinality")
                } else if current.connections != link.connections {
                    additive.append(.reconnect(new.entity, current))
                }
            }
            for link in new.links where previous.links.allSatisfy({ $0.name != link.name }) {
                additive.append(.addLink(new.entity, link))
            }
            if previous.search != new.search { additive.append(.reindexSearch(previous, new)) }
        }
        return (additive, destructive)
    }

    /// One additive migration step.
    package enum Migration {
        case createTable(Table)
        case addColumn(String, Column)
        case addLink(String, Link)
        case reconnect(String, Link)
        case reindexSearch(Table, Table)
    }
}

/// Names and quoting shared by the store's SQL.
package enum StoreSQL {
    /// The integer primary key of every entity table.
    package static let rowID = "rm_id"
    /// The store's own tables.
    package static let schemaTable = "rm_schema"
    /// Per GET path saved: `generation` (a save counter: which came last) and `roots`, the root
    /// records it returned last, in order, as JSON `[["Entity", rm_id], …]`.
    package static let pathsTable = "rm_paths"

    /// A quoted SQL identifier.
    package static func quote(_ name: String) -> String {
        "\"" + (name.contains("\"") ? name.replacingOccurrences(of: "\"", with: "\"\"") : name) + "\""
    }

    /// The join table of a relationship stored as one: `"Project.tasks"`.
    static func joinTable(_ entity: String, _ link: String) -> String { quote("\(entity).\(link)") }

    /// The external-content FTS5 table of an entity: `"Collection.search"`.
    static func searchTable(_ entity: String) -> String { quote("\(entity).search") }
}

/// The SQL of one table's per-record statements, built once when the store opens.
struct TableSQL: Sendable {
    let table: StoreLayout.Table
    /// Quoted column names by slot: the attributes, then the foreign-key columns.
    let columns: [String]
    /// How each attribute column stores values, by slot.
    let kinds: [ColumnCoding.Kind]
    /// Slots of the identification attributes (empty when the entity has none).
    let identity: [Int]
    /// Names of the to-one relationships stored as foreign-key columns.
    let linkColumns: [String]
    /// Selects the `rm_id` of the row with an identity.
    let selectByIdentity: String
    let deleteByIdentity: String
    /// Inserts every column (the common case: the response mapped them all).
    let insertAll: String
    /// The `modifiedBy` column's slot, if the entity has one.
    let version: Int?
    /// For a single INTEGER or TEXT identity column: the rows whose identity is in the JSON array
    /// `?1`, as (array index, `rm_id`, the foreign-key columns). `nil` otherwise.
    let selectByIdentities: String?
    /// `UPDATE "Entity" SET "link" = ?1 WHERE rm_id = ?2 AND "link" IS NOT ?1`, by link name.
    let updateLink: [String: String]

    init(_ table: StoreLayout.Table, modifiedBy: String?) {
        let q = StoreSQL.quote
        self.table = table
        version = modifiedBy.flatMap(table.columnIndex)
        linkColumns = table.links.filter(\.isColumn).map(\.name)
        columns = (table.columns.map(\.name) + linkColumns).map(q)
        kinds = table.columns.map { ColumnCoding.Kind(type: $0.type) }
        let identity = table.identity.compactMap(table.columnIndex)
        self.identity = identity.count == table.identity.count ? identity : []
        let name = q(table.entity)
        let condition = self.identity.map { "\(q(table.columns[$0].name)) = ?" }.joined(separator: " AND ")
        selectByIdentity = "SELECT \(q(StoreSQL.rowID)) FROM \(name) WHERE \(condition)"
        deleteByIdentity = "DELETE FROM \(name) WHERE \(condition)"
        selectByIdentities = self.identity.count == 1 && ["INTEGER", "TEXT"].contains(table.columns[self.identity[0]].sqlType)
            ? "SELECT j.key, t.\(q(StoreSQL.rowID))\(linkColumns.map { ", t.\(q($0))" }.joined()) FROM json_each(?1) AS j CROSS JOIN \(name) AS t "
                + "ON t.\(q(table.columns[self.identity[0]].name)) = j.value"
            : nil
        insertAll = columns.isEmpty ? "INSERT INTO \(name) DEFAULT VALUES"
            : "INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        updateLink = Dictionary(uniqueKeysWithValues: linkColumns.map {
            ($0, "UPDATE \(name) SET \(q($0)) = ?1 WHERE \(q(StoreSQL.rowID)) = ?2 AND \(q($0)) IS NOT ?1")
        })
    }

    /// Inserts the columns at `slots`.
    func insert(_ slots: [Int]) -> String {
        guard slots.count < columns.count else { return insertAll }
        guard !slots.isEmpty else { return "INSERT INTO \(StoreSQL.quote(table.entity)) DEFAULT VALUES" }
        return "INSERT INTO \(StoreSQL.quote(table.entity)) (\(slots.map { columns[$0] }.joined(separator: ", "))) "
            + "VALUES (\(Array(repeating: "?", count: slots.count).joined(separator: ", ")))"
    }

    /// Inserts the columns at `slots` (parameters `?1…?n`) or, when a row with the same identity
    /// exists, updates them there when one of them differs and (with a `modifiedBy` column among
    /// the slots) when the new version is newer than a stored non-null one. (No `RETURNING`: it
    /// costs more per row than looking up the row id of an updated row.)
    ///
    /// An INTEGER or TEXT identity column is not assigned: the conflict means it holds the same
    /// value already (a REAL or ANY one could hold an equal value of another form, 1 for 1.0),
    /// and leaving it out spares rewriting its unique index entry.
    func upsert(_ slots: [Int]) -> String {
        let assigned = assigned(slots)
        let target = "ON CONFLICT (\(identity.map { columns[$0] }.joined(separator: ", ")))"
        guard !assigned.isEmpty else { return insert(slots) + " \(target) DO NOTHING" }
        let assignments = assigned.map { "\(columns[$0]) = excluded.\(columns[$0])" }.joined(separator: ", ")
        let differences = assigned.map { "\(columns[$0]) IS NOT excluded.\(columns[$0])" }.joined(separator: " OR ")
        return insert(slots) + " \(target) DO UPDATE SET \(assignments) WHERE (\(differences))"
            + newer(slots) { "excluded.\(columns[$0])" }
    }

    /// Updates the columns at `slots` (parameters `?1…?n`) of the row `?n+1` when one of them
    /// differs and (`modifiedBy`) the version is newer, as `upsert` does; `nil` when nothing but
    /// identity is assigned (the row is then as it was).
    ///
    /// Without `modifiedBy`, the foreign-key columns are left to `updateLinks`: SQLite rewrites
    /// the index entry of every column a statement assigns, and checks its foreign key, even when
    /// the value stays the same, which a related record usually does.
    func update(_ slots: [Int]) -> String? {
        let assigned = assigned(slots).filter { version != nil || $0 < table.columns.count }
        guard !assigned.isEmpty else { return nil }
        func parameter(_ slot: Int) -> String { "?\(slots.firstIndex(of: slot)! + 1)" }
        return "UPDATE \(StoreSQL.quote(table.entity)) SET \(assigned.map { "\(columns[$0]) = \(parameter($0))" }.joined(separator: ", ")) "
            + "WHERE \(StoreSQL.quote(StoreSQL.rowID)) = ?\(slots.count + 1) "
            + "AND (\(assigned.map { "\(columns[$0]) IS NOT \(parameter($0))" }.joined(separator: " OR ")))"
            + newer(slots, value: parameter)
    }

    /// Without `modifiedBy`: updates the foreign-key columns among `slots` (parameters `?1…?k`,
    /// in slot order) of the row `?k+1` when one of them differs; `nil` when `slots` has none
    /// (or with `modifiedBy`, where `update` assigns them, under its version condition).
    func updateLinks(_ slots: [Int]) -> String? {
        let links = slots.filter { $0 >= table.columns.count }
        guard version == nil, !links.isEmpty else { return nil }
        let q = StoreSQL.quote
        return "UPDATE \(q(table.entity)) SET \(links.enumerated().map { "\(columns[$1]) = ?\($0 + 1)" }.joined(separator: ", ")) "
            + "WHERE \(q(StoreSQL.rowID)) = ?\(links.count + 1) "
            + "AND (\(links.enumerated().map { "\(columns[$1]) IS NOT ?\($0 + 1)" }.joined(separator: " OR ")))"
    }

    /// With the `modifiedBy` column among `slots`: ` AND` the new version (`value(slot)`) is newer
    /// than a stored non-null one (decimals compared as numbers). Empty otherwise.
    private func newer(_ slots: [Int], value: (Int) -> String) -> String {
        guard let version, slots.contains(version) else { return "" }
        let column = columns[version]
        let (new, old) = table.columns[version].type == "decimal"
            ? ("CAST(\(value(version)) AS REAL)", "CAST(\(column) AS REAL)") : (value(version), column)
        return " AND (\(column) IS NULL OR \(new) > \(old))"
    }

    /// The slots an upsert or update assigns: all but INTEGER and TEXT identity columns.
    private func assigned(_ slots: [Int]) -> [Int] {
        slots.filter { slot in !(identity.contains(slot) && ["INTEGER", "TEXT"].contains(table.columns[slot].sqlType)) }
    }

    /// Whether the row `?n+1` differs from the values `?1…?n` of `slots`.
    func differs(_ slots: [Int]) -> String {
        "SELECT \(slots.enumerated().map { "\(columns[$1]) IS NOT ?\($0 + 1)" }.joined(separator: " OR ")) "
            + "FROM \(StoreSQL.quote(table.entity)) WHERE \(StoreSQL.quote(StoreSQL.rowID)) = ?\(slots.count + 1)"
    }
}
