import CRestMapSQLite
import Foundation
import GRDB
import RestMap
import RestMapSchema

/// A SQLite store of mapped records, with tables derived from a schema (Docs/Store.md).
///
/// ```swift
/// let mapper = try Schema.load(contentsOf: "Schemas/mongohq.yaml", options: SchemaLoadOptions(plugins: plugins)).mapper()
/// let store = try RecordStore(path: "mongohq.sqlite", mapper: mapper)
/// let response = Response(path: "/databases/shop/collections", body: bytes)
/// let summary = try await store.save(try mapper.map(response), of: response)
/// print(summary)        // inserted 3, updated 0, unchanged 0, deleted 1 orphans, skipped 0 not newer
/// let collections = try await store.records(StoreQuery(entity: "Collection", filters: [("databaseID", .string("shop"))]))
/// ```
///
/// The store is `Sendable`: save from many tasks (writes are serialized, one transaction per
/// response) while others read (WAL mode: readers never block the writer and see committed
/// saves only).
///
/// `RecordStore(readingAt:mapper:)` opens a store for reading only: it never creates, migrates
/// or writes the file (Docs/Store.md, "Reading never creates").
public final class RecordStore: Sendable {
    /// The mapper whose schema built the tables.
    public let mapper: Mapper
    /// The database file.
    public let path: String
    /// Whether the store was opened for reading only (`init(readingAt:mapper:)`).
    public let isReadOnly: Bool
    let layout: StoreLayout
    let rules: StoreRules
    /// Per-record SQL of every table, by entity.
    let statements: [String: TableSQL]
    /// Entities in the order a save writes them (`StoreLayout.saveOrder`).
    let saveOrder: [String]
    /// A `DatabasePool` (WAL) for a store opened for writing, a `DatabaseQueue` for reading only.
    let pool: any DatabaseWriter

    /// How long a statement waits for another connection's lock (another process importing)
    /// before it fails with "database is locked".
    static let busyTimeout: TimeInterval = 30

    /// Opens (or creates) the store at `path` for the mapper's schema.
    ///
    /// A store built by an earlier version of the schema is migrated when the change is additive
    /// (new entities, attributes, relationships, search attributes). A destructive change
    /// (a removed or retyped attribute, a changed identification, …) throws a `StoreError` naming
    /// each change, unless `rebuild` is `true`: then every table is dropped and recreated empty.
    public init(path: String, mapper: Mapper, rebuild: Bool = false) throws {
        self.mapper = mapper
        self.path = path
        isReadOnly = false
        (rules, layout, statements, saveOrder) = try Self.tables(for: mapper)
        var configuration = Self.configuration()
        configuration.prepareDatabase { db in
            // The writer keeps up to 32 MiB of pages (SQLite's default is 2 MB): a save of tens
            // of thousands of records then changes its pages in memory and writes each to the
            // WAL once, at commit, instead of spilling them mid-transaction and reading them back.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -32768") }
        }
        let origin = StoreMigrator.Origin(schemaName: mapper.schema.name ?? "", schemaFile: mapper.schema.file, layout: layout)
        let rebuild = rebuild, path = path
        pool = try Self.naming(path) {
            try StoreFile.enableWAL(path, busyTimeout: Self.busyTimeout)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try StoreMigrator.prepare(db, origin: origin, rebuild: rebuild, path: path) }
            return pool
        }
    }

    /// The rules, tables, statements and save order the mapper's schema gives a store.
    private static func tables(for mapper: Mapper) throws -> (StoreRules, StoreLayout, [String: TableSQL], [String]) {
        _ = RecordStore.memoryStatisticsOff
        let rules = try StoreRules(schema: mapper.schema, mapper: mapper)
        let layout = try StoreLayout(schema: mapper.schema, rules: rules)
        let statements = Dictionary(uniqueKeysWithValues: layout.tables.map { ($0.entity, TableSQL($0, modifiedBy: rules.modifiedBy[$0.entity])) })
        return (rules, layout, statements, layout.saveOrder)
    }

    /// Opens the existing store at `path` for reading only: a missing file is an error naming
    /// it (nothing is created), and a store whose layout differs from the mapper's schema is an
    /// error saying to import with the schema (nothing is migrated). A file this process may not
    /// write is opened read-only; one it may write is opened with `PRAGMA query_only`, so that
    /// closing it removes the `-wal` and `-shm` files reading a WAL store needs.
    /// `save` and `compact` then throw.
    public init(readingAt path: String, mapper: Mapper) throws {
        self.mapper = mapper
        self.path = path
        isReadOnly = true
        (rules, layout, statements, saveOrder) = try Self.tables(for: mapper)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError("\(path): no such store (a command that only reads never creates one; "
                + "'restmap store import' or 'restmap seed' builds it)")
        }
        guard !isDirectory.boolValue else { throw StoreError("\(path): a directory, not a store file") }
        var configuration = Self.configuration()
        configuration.readonly = !FileManager.default.isWritableFile(atPath: path)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = ON") }
        let origin = StoreMigrator.Origin(schemaName: mapper.schema.name ?? "", schemaFile: mapper.schema.file, layout: layout)
        let path = path
        pool = try Self.naming(path) {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in try StoreMigrator.checkForReading(db, origin: origin, path: path) }
            return queue
        }
    }

    /// The connection settings every store shares.
    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "RestMapStore"
        return configuration
    }

    /// Runs `body`, reporting SQLite's errors and bad values in the file as `StoreError`s that
    /// name the file (and, for a damaged file, how to check it).
    static func naming<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw described(error, path) }
    }

    /// `naming` for asynchronous work.
    func naming<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw Self.described(error, path) }
    }

    private static func described(_ error: any Error, _ path: String) -> any Error {
        let check = "the file may be damaged or not a store: check it with sqlite3 \(path) 'PRAGMA quick_check'"
        switch error {
        case let damaged as DamagedStore:
            return StoreError("\(path): \(damaged.message); \(check)")
        case let database as DatabaseError:
            let message = database.message ?? "SQLite error \(database.resultCode.rawValue)"
            let damaged = [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT].contains(database.resultCode.primaryResultCode)
            return StoreError("\(path): \(message)" + (damaged ? "; \(check)" : ""))
        default:
            return error
        }
    }

    /// The error of a write to a store opened for reading.
    func refuseWriting(_ action: String) throws {
        if isReadOnly { throw StoreError("\(path): the store was opened for reading only; cannot \(action)") }
    }

    /// Turns SQLite's memory statistics off before the process's first connection (see
    /// `restmap_sqlite_disable_memory_statistics`): a save allocates for every row, and each
    /// allocation would otherwise lock a global mutex. Without effect (and harmless) when SQLite
    /// was initialized already.
    private static let memoryStatisticsOff: Bool = restmap_sqlite_disable_memory_statistics() == 0

    // MARK: Saving

    /// Saves the records of one mapped response in one transaction: upserts by identity, links
    /// relationships, applies `tombstone`, `modifiedBy` and (after a complete, successful GET)
    /// `orphans`, and remembers which records the GET path returned. When anything fails the
    /// transaction rolls back and the store is exactly as it was.
    ///
    /// - Parameters:
    ///   - result: what `mapper.map(response)` returned.
    ///   - response: the response that was mapped (its method, path and status decide the rules).
    ///   - isCompletePage: `false` for one page of a paginated GET: orphans are then kept.
    @discardableResult
    public func save(_ result: MappingResult, of response: Response, isCompletePage: Bool = true) async throws -> SaveSummary {
        try await save(result, of: response, isCompletePage: isCompletePage, checkpoints: [])
    }

    /// Maps a response with the store's mapper and saves it.
    @discardableResult
    public func importResponse(_ response: Response, options: MappingOptions = .init(), isCompletePage: Bool = true)
        async throws -> (result: MappingResult, summary: SaveSummary) {
        let result = try mapper.map(response, options: options)
        return (result, try await save(result, of: response, isCompletePage: isCompletePage))
    }

    // MARK: Reading

    /// The records a query selects, with related records loaded `query.depth` relationships deep.
    public func records(_ query: StoreQuery) async throws -> [RestMap.Record] {
        try await naming { try await pool.read { db in try RecordLoader(store: self).records(query, db) } }
    }

    /// The record of `entity` with these identification values, or `nil`.
    public func record(_ entity: String, identifiedBy values: [Value], depth: Int = 1) async throws -> RestMap.Record? {
        guard let table = layout.table(entity) else { throw StoreError("unknown entity '\(entity)'") }
        guard !table.identity.isEmpty else { throw StoreError("entity '\(entity)' has no identification attributes") }
        guard values.count == table.identity.count else {
            throw StoreError("\(entity) is identified by \(table.identity.count) value(s), \(values.count) given")
        }
        let query = StoreQuery(entity: entity, filters: Array(zip(table.identity, values)).map { ($0.0, $0.1) }, limit: 1, depth: depth)
        return try await records(query).first
    }

    /// The root records the last successful GET of `path` returned, in response order, read
    /// from the store alone (offline). `nil` when that path was never saved.
    public func records(forPath path: String, depth: Int = 1) async throws -> [RestMap.Record]? {
        let key = mapper.requestPath(path)
        return try await naming { try await pool.read { db in try RecordLoader(store: self).records(forPath: key, depth: depth, db) } }
    }

    /// Full-text search over the `store.search` attributes (FTS5): every term must match, as a
    /// prefix, ignoring case and diacritics; best matches first. `entity` limits the search to
    /// one entity.
    public func search(_ text: String, entity: String? = nil, limit: Int = 50, depth: Int = 1) async throws -> [RestMap.Record] {
        try await naming { try await pool.read { db in try RecordLoader(store: self).search(text, entity: entity, limit: limit, depth: depth, db) } }
    }

    /// Entities with their tables, and the number of records each holds.
    public func counts() async throws -> [(entity: String, count: Int)] {
        let tables = layout.tables.map(\.entity)
        return try await naming {
            try await pool.read { db in
                try tables.map { ($0, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(StoreSQL.quote($0))") ?? 0) }
            }
        }
    }

    /// Runs `PRAGMA integrity_check`; `"ok"` when the file is sound.
    public func integrityCheck() async throws -> String {
        try await naming {
            try await pool.read { db in
                var lines: [String] = []
                try db.forEachRow("PRAGMA integrity_check", source: "PRAGMA integrity_check") { row in
                    lines.append(try row.textOrNull(at: 0, "integrity_check") ?? "")
                }
                return lines.joined(separator: "\n")
            }
        }
    }

    /// Moves every committed page into the main file, compacts it and leaves WAL mode for a
    /// rollback journal, so that the file is self-contained: no `-wal` or `-shm` file beside it,
    /// readable where nothing can be written (seeding ends with this; the output is reproducible).
    /// A later `RecordStore(path:mapper:)` turns WAL mode on again. Call it last, then `close()`.
    public func compact() async throws {
        try refuseWriting("compact")
        try await naming {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.checkpoint(.truncate)
            }
            // Leaving WAL mode needs the file to itself: the pool's reading connections close first.
            (pool as? DatabasePool)?.releaseMemory()
            try await pool.writeWithoutTransaction { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                if mode != "delete" { throw StoreError("\(path): could not leave WAL mode (the journal mode is \(mode ?? "unknown"))") }
            }
        }
    }

    /// Closes the database; the store is unusable afterwards.
    public func close() throws {
        if let pool = pool as? DatabasePool { try pool.close() } else if let queue = pool as? DatabaseQueue { try queue.close() }
    }
}

/// What one save did, in the CLI's summary line:
/// `inserted 3, updated 8, unchanged 0, deleted 2 orphans, skipped 1 not newer`.
public struct SaveSummary: Sendable, Hashable, CustomStringConvertible {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var deletedOrphans = 0
    public var skippedNotNewer = 0
    /// Records deleted (or not stored) because they matched their entity's `tombstone`.
    public var deletedTombstones = 0
    /// Why orphans were not deleted although a rule matched the path (records failed to map,
    /// a partial page, a method other than GET); `nil` when none applied or they were deleted.
    public var orphansKept: String?

    public init() {}

    public var description: String {
        var text = "inserted \(inserted), updated \(updated), unchanged \(unchanged), deleted \(deletedOrphans) orphans, "
            + "skipped \(skippedNotNewer) not newer"
        if deletedTombstones > 0 { text += ", deleted \(deletedTombstones) tombstoned" }
        if let orphansKept { text += " (orphans kept: \(orphansKept))" }
        return text
    }
}

/// Which records of one entity to read.
public struct StoreQuery: Sendable {
    /// A filter: the attribute equals the value (coerced to the attribute's type; `.null`
    /// matches absent values).
    public typealias Filter = (attribute: String, value: Value)

    public var entity: String
    public var filters: [Filter]
    /// Attributes to order by, in turn; by insertion order when empty.
    public var order: [(attribute: String, ascending: Bool)]
    public var limit: Int?
    /// How many relationships deep related records are loaded (0: none).
    public var depth: Int

    public init(entity: String, filters: [Filter] = [], order: [(attribute: String, ascending: Bool)] = [],
                limit: Int? = nil, depth: Int = 1) {
        self.entity = entity
        self.filters = filters
        self.order = order
        self.limit = limit
        self.depth = depth
    }
}
