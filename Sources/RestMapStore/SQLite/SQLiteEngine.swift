import CRestMapSQLite
import Foundation
import GRDB
import RestMap
import RestMapSchema

/// The SQLite engine of a store: one file, WAL mode, GRDB (Docs/Store.md).
///
/// Save from many tasks (writes are serialized, one transaction per response) while others read
/// (WAL mode: readers never block the writer and see committed saves only).
final class SQLiteEngine: StoreEngine {
    let model: StoreModel
    /// The database file.
    let path: String
    /// Per-record SQL of every table, by entity.
    let statements: [String: TableSQL]
    /// A `DatabasePool` (WAL) for a store opened for writing, a `DatabaseQueue` for reading only.
    let pool: any DatabaseWriter

    var mapper: Mapper { model.mapper }
    var layout: StoreLayout { model.layout }
    var rules: StoreRules { model.rules }
    var saveOrder: [String] { model.saveOrder }
    var location: String { path }

    /// How long a statement waits for another connection's lock (another process importing)
    /// before it fails with "database is locked".
    static let busyTimeout: TimeInterval = 30

    /// Opens (or creates) the store file for writing, migrating it (see `RecordStore.init(path:mapper:rebuild:)`).
    init(path: String, model: StoreModel, rebuild: Bool) throws {
        self.model = model
        self.path = path
        statements = Self.statements(model)
        var configuration = Self.configuration()
        configuration.prepareDatabase { db in
            // The writer keeps up to 32 MiB of pages (SQLite's default is 2 MB): a save of tens
            // of thousands of records then changes its pages in memory and writes each to the
            // WAL once, at commit, instead of spilling them mid-transaction and reading them back.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -32768") }
        }
        let origin = model.origin
        pool = try Self.naming(path) {
            try StoreFile.enableWAL(path, busyTimeout: Self.busyTimeout)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try pool.write { db in try StoreMigrator.prepare(db, origin: origin, rebuild: rebuild, path: path) }
            return pool
        }
    }

    /// Opens an existing store file for reading only (see `RecordStore.init(readingAt:mapper:)`).
    init(readingAt path: String, model: StoreModel) throws {
        self.model = model
        self.path = path
        statements = Self.statements(model)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError("\(path): no such store (a command that only reads never creates one; "
                + "'restmap store import' or 'restmap seed' builds it)")
        }
        guard !isDirectory.boolValue else { throw StoreError("\(path): a directory, not a store file") }
        var configuration = Self.configuration()
        configuration.readonly = !FileManager.default.isWritableFile(atPath: path)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = ON") }
        let origin = model.origin
        pool = try Self.naming(path) {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in try StoreMigrator.checkForReading(db, origin: origin, path: path) }
            return queue
        }
    }

    private static func statements(_ model: StoreModel) -> [String: TableSQL] {
        _ = memoryStatisticsOff
        return Dictionary(uniqueKeysWithValues: model.layout.tables.map { ($0.entity, TableSQL($0, modifiedBy: model.rules.modifiedBy[$0.entity])) })
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

    /// Turns SQLite's memory statistics off before the process's first connection (see
    /// `restmap_sqlite_disable_memory_statistics`): a save allocates for every row, and each
    /// allocation would otherwise lock a global mutex. Without effect (and harmless) when SQLite
    /// was initialized already.
    private static let memoryStatisticsOff: Bool = restmap_sqlite_disable_memory_statistics() == 0

    // MARK: Saving and reading

    func save(_ result: MappingResult, of response: Response, isCompletePage: Bool,
              checkpoints: [StoreCheckpoint], sweep: StoreSweep?) async throws -> SaveSummary {
        let saver = RecordSaver(store: self, isCompletePage: isCompletePage)
        let layout = layout
        return try await naming {
            try await pool.write { db in
                var summary = try saver.save(result, of: response, db)
                if let sweep { summary.deletedOrphans += try sweep.run(layout, db) }
                try Checkpoints.write(checkpoints, db)
                return summary
            }
        }
    }

    func lock(_ name: String, whenBusy: () -> Void) async throws -> any HeldStoreLock {
        let file = path + "-locks"
        return try await StoreLocking.poll(whenBusy: whenBusy) { try FileByteLock.attempt(file, name) }
    }

    func records(_ query: StoreQuery) async throws -> [RestMap.Record] {
        try await naming { try await pool.read { db in try RecordLoader(store: self).records(query, db) } }
    }

    func records(forPathKey key: String, depth: Int) async throws -> [RestMap.Record]? {
        try await naming { try await pool.read { db in try RecordLoader(store: self).records(forPath: key, depth: depth, db) } }
    }

    func search(_ terms: [String], tables: [StoreLayout.Table], limit: Int, depth: Int) async throws -> [RestMap.Record] {
        try await naming { try await pool.read { db in try RecordLoader(store: self).search(terms, tables: tables, limit: limit, depth: depth, db) } }
    }

    func counts() async throws -> [(entity: String, count: Int)] {
        let tables = layout.tables.map(\.entity)
        return try await naming {
            try await pool.read { db in
                try tables.map { ($0, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(StoreSQL.quote($0))") ?? 0) }
            }
        }
    }

    func integrityCheck() async throws -> String {
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

    func compact() async throws {
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

    func close() throws {
        if let pool = pool as? DatabasePool { try pool.close() } else if let queue = pool as? DatabaseQueue { try queue.close() }
    }
}
