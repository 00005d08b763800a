import GRDB
import RestMap

/// A named value a store keeps beside its records, written in the same transaction as a save:
/// `restmap sync` keeps its state and resume points this way, so they are never ahead of the data.
public struct StoreCheckpoint: Sendable, Hashable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// The checkpoint table, created on first write.
enum Checkpoints {
    static let table = "rm_checkpoints"

    static func write(_ checkpoints: [StoreCheckpoint], _ db: Database) throws {
        guard !checkpoints.isEmpty else { return }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT")
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

    static func remove(prefix: String, _ db: Database) throws -> Int {
        guard try db.tableExists(table) else { return 0 }
        try db.execute(sql: "DELETE FROM \(table) WHERE substr(key, 1, ?) = ?", arguments: [prefix.utf8.count, prefix])
        return db.changesCount
    }
}

extension RecordStore {
    /// Saves the records of one mapped response and the checkpoints in one transaction (see
    /// `save(_:of:isCompletePage:)`): after a crash both are there, or neither.
    @discardableResult
    public func save(_ result: MappingResult, of response: Response, isCompletePage: Bool = true,
                     checkpoints: [StoreCheckpoint]) async throws -> SaveSummary {
        try refuseWriting("save")
        let saver = RecordSaver(store: self, isCompletePage: isCompletePage)
        return try await naming {
            try await pool.write { db in
                let summary = try saver.save(result, of: response, db)
                try Checkpoints.write(checkpoints, db)
                return summary
            }
        }
    }

    /// Writes checkpoints without records.
    public func setCheckpoints(_ checkpoints: [StoreCheckpoint]) async throws {
        try refuseWriting("write checkpoints")
        try await naming { try await pool.write { db in try Checkpoints.write(checkpoints, db) } }
    }

    /// The checkpoints whose key starts with `prefix`, sorted by key.
    public func checkpoints(withPrefix prefix: String) async throws -> [StoreCheckpoint] {
        try await naming { try await pool.read { db in try Checkpoints.read(prefix: prefix, db) } }
    }

    /// Removes the checkpoints whose key starts with `prefix`; returns how many there were.
    @discardableResult
    public func removeCheckpoints(withPrefix prefix: String) async throws -> Int {
        try refuseWriting("remove checkpoints")
        return try await naming { try await pool.write { db in try Checkpoints.remove(prefix: prefix, db) } }
    }
}
