import GRDB
import RestMap

/// A named value a store keeps beside its records, written in the same transaction as a save:
/// `restmap sync` keeps its state and resume points this way, so they are never ahead of the data.
public struct StoreCheckpoint: Sendable, Hashable {
    public var key: String
    public var value: String
    /// What the stored value must be for the write to go ahead (compare and set); when it is
    /// not, the write throws `CheckpointConflict` and its whole transaction rolls back.
    public var expected: Expected

    /// The stored value a checkpoint write expects to replace.
    public enum Expected: Sendable, Hashable {
        /// Written whatever is stored.
        case anything
        /// Written only when no checkpoint has the key.
        case nothing
        /// Written only when the stored value is exactly this one.
        case value(String)

        /// The expectation that the stored checkpoint is still `checkpoint` (`nil`: none).
        public static func unchanged(_ checkpoint: StoreCheckpoint?) -> Expected {
            checkpoint.map { .value($0.value) } ?? .nothing
        }

        /// Whether `stored` (`nil`: none) is what is expected.
        func allows(_ stored: String?) -> Bool {
            switch self {
            case .anything: true
            case .nothing: stored == nil
            case .value(let value): stored == value
            }
        }
    }

    public init(key: String, value: String, expected: Expected = .anything) {
        self.key = key
        self.value = value
        self.expected = expected
    }

    /// The conflict of this write with the value stored (`nil`: none), if it is not the one expected.
    package func conflict(stored: String?) -> CheckpointConflict? {
        expected.allows(stored) ? nil : CheckpointConflict(key: key)
    }
}

/// A checkpoint write whose key holds another value than the one it expected: someone else wrote
/// it since it was read. Nothing of the save or write that carried it was stored.
public struct CheckpointConflict: Error, Sendable, Hashable, CustomStringConvertible {
    /// The checkpoint's key.
    public var key: String

    public init(key: String) {
        self.key = key
    }

    public var description: String {
        "the checkpoint '\(key)' was changed by another writer since it was read: nothing was saved"
    }
}

/// The records of one entity a full re-read did not find again, to delete with its last page
/// (`restmap sync --full-refresh`): those in `scope` whose identification is not in `kept`.
public struct StoreSweep: Sendable {
    public var entity: String
    /// Only records with these attribute values are candidates (a parent's records); empty: all.
    public var scope: [String: Value]
    /// The identification values (in `identifiedBy` order) of every record the source still has.
    public var kept: [[Value]]

    public init(entity: String, scope: [String: Value], kept: [[Value]]) {
        self.entity = entity
        self.scope = scope
        self.kept = kept
    }

    /// The identity and scope columns of the sweep, checked against the table.
    package func columns(_ layout: StoreLayout) throws -> (identity: [StoreLayout.Column], scope: [(column: StoreLayout.Column, value: Value)]) {
        guard let table = layout.table(entity), !table.identity.isEmpty else {
            throw StoreError("cannot sweep '\(entity)': it is not a table with identification attributes")
        }
        func column(_ name: String) throws -> StoreLayout.Column {
            guard let column = table.columns.first(where: { $0.name == name }) else { throw StoreError("no column '\(name)' in '\(entity)'") }
            return column
        }
        return (try table.identity.map(column), try scope.sorted { $0.key < $1.key }.map { (try column($0.key), $0.value) })
    }

    /// Deletes the records not kept; returns how many.
    func run(_ layout: StoreLayout, _ db: Database) throws -> Int {
        let (identity, scoped) = try columns(layout)
        let q = StoreSQL.quote
        let keep = "temp.rm_sweep_keep"
        let keys = identity.indices.map { "k\($0)" }
        try db.execute(sql: "DROP TABLE IF EXISTS \(keep)")
        try db.execute(sql: "CREATE TEMP TABLE rm_sweep_keep (\(keys.joined(separator: ", ")))")
        let insert = try db.makeStatement(sql: "INSERT INTO \(keep) VALUES (\(keys.map { _ in "?" }.joined(separator: ", ")))")
        for values in kept where values.count == identity.count {
            try insert.execute(arguments: StatementArguments(zip(values, identity).map { ColumnCoding.encode($0, type: $1.type) }))
        }
        try db.execute(sql: "CREATE INDEX temp.rm_sweep_keep_index ON rm_sweep_keep (\(keys.joined(separator: ", ")))")
        let conditions = ColumnCoding.equalities(scoped)
        let match = zip(keys, identity).map { "k.\($0) IS t.\(q($1.name))" }.joined(separator: " AND ")
        var sql = "DELETE FROM \(q(entity)) AS t WHERE NOT EXISTS (SELECT 1 FROM \(keep) AS k WHERE \(match))"
        if !scoped.isEmpty { sql += " AND " + conditions.sql }
        try db.execute(sql: sql, arguments: StatementArguments(conditions.arguments.map(\.databaseValue)))
        let deleted = db.changesCount
        try db.execute(sql: "DROP TABLE \(keep)")
        return deleted
    }
}

/// The checkpoint table, created on first write.
enum Checkpoints {
    static let table = "rm_checkpoints"

    static func write(_ checkpoints: [StoreCheckpoint], _ db: Database) throws {
        guard !checkpoints.isEmpty else { return }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT")
        for checkpoint in checkpoints where checkpoint.expected != .anything {
            let stored = try String.fetchOne(db, sql: "SELECT value FROM \(table) WHERE key = ?", arguments: [checkpoint.key])
            if let conflict = checkpoint.conflict(stored: stored) { throw conflict }
        }
        for checkpoint in checkpoints {
            try db.execute(sql: "INSERT INTO \(table) (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           arguments: [checkpoint.key, checkpoint.value])
        }
    }

    static func read(prefix: String, _ db: Database) throws -> [StoreCheckpoint] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT key, value FROM \(table) WHERE substr(key, 1, ?) = ? ORDER BY key",
                                arguments: [prefix.utf8.count, prefix]).map { StoreCheckpoint(key: $0["key"], value: $0["value"]) }
    }

    static func read(key: String, _ db: Database) throws -> StoreCheckpoint? {
        guard try db.tableExists(table) else { return nil }
        return try Row.fetchOne(db, sql: "SELECT key, value FROM \(table) WHERE key = ?", arguments: [key])
            .map { StoreCheckpoint(key: $0["key"], value: $0["value"]) }
    }

    static func remove(key: String, _ db: Database) throws -> Int {
        guard try db.tableExists(table) else { return 0 }
        try db.execute(sql: "DELETE FROM \(table) WHERE key = ?", arguments: [key])
        return db.changesCount
    }

    static func remove(prefix: String, _ db: Database) throws -> Int {
        guard try db.tableExists(table) else { return 0 }
        try db.execute(sql: "DELETE FROM \(table) WHERE substr(key, 1, ?) = ?", arguments: [prefix.utf8.count, prefix])
        return db.changesCount
    }
}

extension SQLiteEngine {
    func setCheckpoints(_ checkpoints: [StoreCheckpoint]) async throws {
        try await naming { try await pool.write { db in try Checkpoints.write(checkpoints, db) } }
    }

    func checkpoints(withPrefix prefix: String) async throws -> [StoreCheckpoint] {
        try await naming { try await pool.read { db in try Checkpoints.read(prefix: prefix, db) } }
    }

    func checkpoint(forKey key: String) async throws -> StoreCheckpoint? {
        try await naming { try await pool.read { db in try Checkpoints.read(key: key, db) } }
    }

    func removeCheckpoint(forKey key: String) async throws -> Int {
        try await naming { try await pool.write { db in try Checkpoints.remove(key: key, db) } }
    }

    func removeCheckpoints(withPrefix prefix: String) async throws -> Int {
        try await naming { try await pool.write { db in try Checkpoints.remove(prefix: prefix, db) } }
    }
}
