import Foundation
import RestMap
import RestMapSchema

/// A store of mapped records, with tables derived from a schema (Docs/Store.md), in a SQLite
/// file or (with `RestMapStorePostgres`) a PostgreSQL database: one API, the same rules.
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
/// The store is `Sendable`: save from many tasks (each response is one transaction) while others
/// read (readers see committed saves only).
///
/// `RecordStore(readingAt:mapper:)` opens a store for reading only: it never creates, migrates
/// or writes the file (Docs/Store.md, "Reading never creates").
public final class RecordStore: Sendable {
    /// The mapper whose schema built the tables.
    public let mapper: Mapper
    /// Where the store is: the database file, or a PostgreSQL URL without its password.
    public let path: String
    /// Whether the store was opened for reading only (`init(readingAt:mapper:)`).
    public let isReadOnly: Bool
    /// The database that holds the store.
    package let engine: any StoreEngine
    package let model: StoreModel

    /// Opens (or creates) the SQLite store at `path` for the mapper's schema.
    ///
    /// A store built by an earlier version of the schema is migrated when the change is additive
    /// (new entities, attributes, relationships, search attributes). A destructive change
    /// (a removed or retyped attribute, a changed identification, …) throws a `StoreError` naming
    /// each change, unless `rebuild` is `true`: then every table is dropped and recreated empty.
    public convenience init(path: String, mapper: Mapper, rebuild: Bool = false) throws {
        let model = try StoreModel(mapper: mapper)
        self.init(engine: try SQLiteEngine(path: path, model: model, rebuild: rebuild), model: model, isReadOnly: false)
    }

    /// Opens the existing SQLite store at `path` for reading only: a missing file is an error
    /// naming it (nothing is created), and a store whose layout differs from the mapper's schema
    /// is an error saying to import with the schema (nothing is migrated). A file this process may
    /// not write is opened read-only; one it may write is opened with `PRAGMA query_only`, so that
    /// closing it removes the `-wal` and `-shm` files reading a WAL store needs.
    /// `save` and `compact` then throw.
    public convenience init(readingAt path: String, mapper: Mapper) throws {
        let model = try StoreModel(mapper: mapper)
        self.init(engine: try SQLiteEngine(readingAt: path, model: model), model: model, isReadOnly: true)
    }

    /// A store over an engine (`RestMapStorePostgres` opens its stores this way).
    package init(engine: any StoreEngine, model: StoreModel, isReadOnly: Bool) {
        self.engine = engine
        self.model = model
        mapper = model.mapper
        path = engine.location
        self.isReadOnly = isReadOnly
    }

    /// The error of a write to a store opened for reading.
    func refuseWriting(_ action: String) throws {
        if isReadOnly { throw StoreError("\(path): the store was opened for reading only; cannot \(action)") }
    }

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

    /// Saves the records of one mapped response and the checkpoints in one transaction (see
    /// `save(_:of:isCompletePage:)`): after a crash both are there, or neither. A `sweep` deletes,
    /// in the same transaction, the records a full re-read did not find again. A checkpoint whose
    /// `expected` value is not the stored one throws `CheckpointConflict`, and nothing is saved.
    @discardableResult
    public func save(_ result: MappingResult, of response: Response, isCompletePage: Bool = true,
                     checkpoints: [StoreCheckpoint], sweep: StoreSweep? = nil) async throws -> SaveSummary {
        try refuseWriting("save")
        return try await engine.save(result, of: response, isCompletePage: isCompletePage, checkpoints: checkpoints, sweep: sweep)
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
        try await engine.records(query)
    }

    /// The record of `entity` with these identification values, or `nil`.
    public func record(_ entity: String, identifiedBy values: [Value], depth: Int = 1) async throws -> RestMap.Record? {
        guard let table = model.layout.table(entity) else { throw StoreError("unknown entity '\(entity)'") }
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
        try await engine.records(forPathKey: mapper.requestPath(path), depth: depth)
    }

    /// Full-text search over the `store.search` attributes: every term must match, as a prefix,
    /// ignoring case and diacritics; best matches first (SQLite ranks with FTS5's bm25,
    /// PostgreSQL with `ts_rank`: the order of equally good matches may differ). `entity` limits
    /// the search to one entity.
    public func search(_ text: String, entity: String? = nil, limit: Int = 50, depth: Int = 1) async throws -> [RestMap.Record] {
        let terms = try StoreModel.searchTerms(text)
        return try await engine.search(terms, tables: try model.searchTables(entity), limit: limit, depth: depth)
    }

    /// Entities with their tables, and the number of records each holds.
    public func counts() async throws -> [(entity: String, count: Int)] {
        try await engine.counts()
    }

    /// Checks the database: SQLite's `PRAGMA integrity_check`; on PostgreSQL, that the store's
    /// tables are there. `"ok"` when the store is sound.
    public func integrityCheck() async throws -> String {
        try await engine.integrityCheck()
    }

    /// SQLite: moves every committed page into the main file, compacts it and leaves WAL mode
    /// for a rollback journal, so that the file is self-contained: no `-wal` or `-shm` file
    /// beside it, readable where nothing can be written (seeding ends with this; the output is
    /// reproducible). A later `RecordStore(path:mapper:)` turns WAL mode on again. Call it last,
    /// then `close()`. PostgreSQL: `VACUUM ANALYZE` of the store's tables.
    public func compact() async throws {
        try refuseWriting("compact")
        try await engine.compact()
    }

    /// A feed of the changes to a query's result: one element when it starts, then one per
    /// committed transaction that changed the result (transactions that touch the tables without
    /// changing the result are skipped). Like NSFetchedResultsController and RSAPI's
    /// RSDataFetcher. SQLite observes its own process's commits (GRDB's `ValueObservation`);
    /// PostgreSQL every writer's (`LISTEN`/`NOTIFY`). Ends when the consuming task is cancelled.
    public func changes(_ query: StoreQuery) -> AsyncThrowingStream<StoreChanges, any Error> {
        engine.changes(query)
    }

    // MARK: Locks

    /// Runs `body` holding the store's lock `name` (see `lock(_:whenBusy:)`), and releases it
    /// however `body` ends. `restmap sync` holds `sync/<resource>/<parent>` for each
    /// (resource, parent) run.
    public func withLock<T>(_ name: String, whenBusy: () -> Void = {}, _ body: () async throws -> T) async throws -> T {
        let lock = try await lock(name, whenBusy: whenBusy)
        do {
            let result = try await body()
            await lock.release()
            return result
        } catch {
            await lock.release()
            throw error
        }
    }

    /// Takes the store's lock `name`, which one holder at a time has among every task and process
    /// using the store: on PostgreSQL a session advisory lock (so on every machine), beside a
    /// SQLite file a lock on one byte of `<file>-locks`. While another holder has it, this waits
    /// (calling `whenBusy` once) until it is released; a holder that dies releases it.
    /// Prefer `withLock`, which cannot forget to release.
    public func lock(_ name: String, whenBusy: () -> Void = {}) async throws -> StoreLock {
        try refuseWriting("take the lock '\(name)'")
        return StoreLock(held: try await engine.lock(name, whenBusy: whenBusy))
    }

    // MARK: Checkpoints

    /// Writes checkpoints without records, all or none (a `CheckpointConflict` writes none).
    public func setCheckpoints(_ checkpoints: [StoreCheckpoint]) async throws {
        try refuseWriting("write checkpoints")
        try await engine.setCheckpoints(checkpoints)
    }

    /// The checkpoints whose key starts with `prefix`, sorted by key.
    public func checkpoints(withPrefix prefix: String) async throws -> [StoreCheckpoint] {
        try await engine.checkpoints(withPrefix: prefix)
    }

    /// The checkpoint with exactly this key, or `nil`.
    public func checkpoint(forKey key: String) async throws -> StoreCheckpoint? {
        try await engine.checkpoint(forKey: key)
    }

    /// Removes the checkpoint with exactly this key; returns 1 when there was one, else 0.
    @discardableResult
    public func removeCheckpoint(forKey key: String) async throws -> Int {
        try refuseWriting("remove checkpoints")
        return try await engine.removeCheckpoint(forKey: key)
    }

    /// Removes the checkpoints whose key starts with `prefix`; returns how many there were.
    @discardableResult
    public func removeCheckpoints(withPrefix prefix: String) async throws -> Int {
        try refuseWriting("remove checkpoints")
        return try await engine.removeCheckpoints(withPrefix: prefix)
    }

    /// Closes the database; the store is unusable afterwards.
    public func close() throws {
        try engine.close()
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
