import Foundation
import RestMap
import RestMapSchema

/// What a store's schema implies, whatever database holds it: the mapper, its `store:` rules,
/// the tables, and the order a save writes entities in.
package struct StoreModel: Sendable {
    package let mapper: Mapper
    package let rules: StoreRules
    package let layout: StoreLayout
    /// Entities in the order a save writes them (`StoreLayout.saveOrder`).
    package let saveOrder: [String]
    /// The relationships with `assign: union` (their join rows are extended, not replaced), by entity.
    package let unionRelationships: [String: Set<String>]

    package init(mapper: Mapper) throws {
        self.mapper = mapper
        rules = try StoreRules(schema: mapper.schema, mapper: mapper)
        layout = try StoreLayout(schema: mapper.schema, rules: rules)
        saveOrder = layout.saveOrder
        unionRelationships = Dictionary(mapper.schema.entities.map { entity in
            (entity.name, Set(entity.relationships.filter { $0.assignment == .union }.map(\.name)))
        }, uniquingKeysWith: { first, _ in first })
    }

    /// What the store remembers of the schema that built it.
    package var origin: StoreMigrator.Origin {
        StoreMigrator.Origin(schemaName: mapper.schema.name ?? "", schemaFile: mapper.schema.file, layout: layout)
    }

    /// The table of an entity that can be searched, or the error `RecordStore.search` reports.
    package func searchTables(_ entity: String?) throws -> [StoreLayout.Table] {
        let tables = layout.tables.filter { !$0.search.isEmpty && (entity == nil || $0.entity == entity) }
        if let entity, tables.isEmpty {
            guard layout.table(entity) != nil else { throw unknownEntity(entity) }
            throw StoreError("entity '\(entity)' has no search attributes (add it under store.search)")
        }
        guard !tables.isEmpty else { throw StoreError("the schema has no store.search attributes") }
        return tables
    }

    /// The error of a name that is not an entity of the store, with the closest one.
    package func unknownEntity(_ name: String) -> StoreError {
        StoreError("unknown entity '\(name)'" + Self.suggestion(name, layout.tables.map(\.entity)))
    }

    /// ` (did you mean 'x'?)`, or nothing.
    package static func suggestion(_ name: String, _ candidates: [String]) -> String {
        Suggestions.closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// The table and typed filters of a query, or an error naming what is unknown.
    package func resolve(_ query: StoreQuery) throws -> (table: StoreLayout.Table, filters: [(column: StoreLayout.Column, value: Value)],
                                                          order: [(column: StoreLayout.Column, ascending: Bool)]) {
        guard let table = layout.table(query.entity) else { throw unknownEntity(query.entity) }
        func column(_ name: String) throws -> StoreLayout.Column {
            guard let column = table.columns.first(where: { $0.name == name }) else {
                throw StoreError("\(table.entity) has no attribute '\(name)'" + Self.suggestion(name, table.columns.map(\.name)))
            }
            return column
        }
        var filters: [(column: StoreLayout.Column, value: Value)] = []
        for filter in query.filters {
            filters.append((try column(filter.attribute), try mapper.coerce(filter.value, toAttribute: filter.attribute, of: table.entity)))
        }
        return (table, filters, try query.order.map { (try column($0.attribute), $0.ascending) })
    }

    /// The entities a query's result is read from: its entity and, to the query's depth, the
    /// targets of their relationships. A save that touches none of them cannot change the result.
    package func entitiesRead(by query: StoreQuery) -> Set<String> {
        var read: Set<String> = [query.entity]
        var level: Set<String> = [query.entity]
        for _ in 0..<max(0, query.depth) {
            level = Set(level.flatMap { layout.table($0)?.links.flatMap(\.targets) ?? [] }).subtracting(read)
            read.formUnion(level)
        }
        return read
    }

    /// The search terms of a query text (split at white space), or an error when there are none.
    package static func searchTerms(_ text: String) throws -> [String] {
        let terms = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        guard !terms.isEmpty else { throw StoreError("search needs at least one term") }
        return terms
    }
}

/// A database that holds a store: SQLite (in this module) or PostgreSQL (`RestMapStorePostgres`).
/// `RecordStore` is the one API over them; each engine keeps the rules of Docs/Store.md.
package protocol StoreEngine: Sendable {
    /// Where the store is, for messages: a file path, or a URL without its password.
    var location: String { get }

    func save(_ result: MappingResult, of response: Response, isCompletePage: Bool,
              checkpoints: [StoreCheckpoint], sweep: StoreSweep?) async throws -> SaveSummary
    func records(_ query: StoreQuery) async throws -> [RestMap.Record]
    /// The roots the last successful GET of the request path `key` returned; `nil` when never saved.
    func records(forPathKey key: String, depth: Int) async throws -> [RestMap.Record]?
    func search(_ terms: [String], tables: [StoreLayout.Table], limit: Int, depth: Int) async throws -> [RestMap.Record]
    func counts() async throws -> [(entity: String, count: Int)]
    func integrityCheck() async throws -> String
    func compact() async throws
    func changes(_ query: StoreQuery) -> AsyncThrowingStream<StoreChanges, any Error>

    func setCheckpoints(_ checkpoints: [StoreCheckpoint]) async throws
    func checkpoints(withPrefix prefix: String) async throws -> [StoreCheckpoint]
    func checkpoint(forKey key: String) async throws -> StoreCheckpoint?
    func removeCheckpoint(forKey key: String) async throws -> Int
    func removeCheckpoints(withPrefix prefix: String) async throws -> Int

    /// The store's lock `name`, once no other holder has it (see `RecordStore.withLock`).
    func lock(_ name: String, whenBusy: () -> Void) async throws -> any HeldStoreLock

    func close() throws
}
