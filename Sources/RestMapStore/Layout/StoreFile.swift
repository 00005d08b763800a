import Foundation
import GRDB
import GRDBSQLite

/// What is done to a store file before GRDB opens it.
enum StoreFile {
    /// Turns the file (created when missing) to WAL mode, waiting up to `busyTimeout` for other
    /// processes doing the same.
    ///
    /// Two processes that create a store at once both switch a new rollback-journal file to WAL:
    /// the switch reads the file first, then needs its exclusive lock, and SQLite does not call
    /// the busy handler when a connection that already reads waits for a lock another
    /// connection wants too (that would deadlock): it fails at once with "database is locked".
    /// So the switch is retried, as a busy handler would, until it succeeds or the timeout ends.
    /// On a file in WAL mode already it changes nothing.
    static func enableWAL(_ path: String, busyTimeout: TimeInterval) throws {
        var connection: OpaquePointer?
        let opened = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(opened))
            throw DatabaseError(resultCode: ResultCode(rawValue: opened), message: message)
        }
        sqlite3_busy_timeout(connection, Int32(busyTimeout * 1000))
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            var mode = ""
            let code = withUnsafeMutablePointer(to: &mode) { modePointer in
                sqlite3_exec(connection, "PRAGMA journal_mode = WAL", { context, count, values, _ in
                    if count > 0, let value = values?[0], let context {
                        context.assumingMemoryBound(to: String.self).pointee = String(cString: value)
                    }
                    return 0
                }, modePointer, nil)
            }
            if code == SQLITE_OK {
                guard mode == "wal" else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "could not turn WAL mode on (the journal mode is \(mode))") }
                return
            }
            guard code & 0xff == SQLITE_BUSY, Date() < deadline else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
            }
            sqlite3_sleep(2)   // as SQLite's busy handler waits between tries
        }
    }
}
