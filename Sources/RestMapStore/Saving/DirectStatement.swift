import GRDB
import GRDBSQLite

/// A statement compiled once on the write connection and run through SQLite's C API, for the
/// per-record statements of a save: values are bound straight from their stored form, without
/// GRDB's per-call argument arrays. Lives inside one `pool.write` transaction (not `Sendable`).
///
/// Text and blobs are bound without SQLite copying them (`SQLITE_STATIC`): their bytes are
/// copied into a buffer the statement owns, which stays as it is until the run that reads them
/// ends. Every run binds all of its statement's parameters anew, so none reads a stale one.
///
/// GRDB does not see these statements execute, so the saver tells its observers which tables
/// changed (`Database.notifyChanges(in:)`).
final class DirectStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String
    /// The bytes of the text and blobs bound since the last run: full chunks, then the one
    /// being filled, of which `used` bytes are taken.
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    private var used = 0

    init(_ sql: String, _ db: Database) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed") }
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
        for chunk in chunks { chunk.deallocate() }
    }

    /// Binds parameter `index` (1-based).
    func bind(_ value: ColumnCoding.Stored, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real): code = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            let (bytes, count) = kept(text)
            code = sqlite3_bind_text64(handle, index, bytes, count, nil, UInt8(SQLITE_UTF8))
        case .blob(let json):
            let (bytes, count) = kept(json)
            code = sqlite3_bind_blob64(handle, index, bytes, count, nil)
        }
        if code != SQLITE_OK { throw failure(code) }
    }

    /// A copy of the string's UTF-8 bytes that lasts until the next run ends (never a null
    /// pointer: SQLite would bind NULL instead of an empty text).
    private func kept(_ string: String) -> (UnsafePointer<CChar>, UInt64) {
        var string = string
        return string.withUTF8 { bytes in
            if chunks.isEmpty || chunks[chunks.count - 1].count - used < bytes.count {
                chunks.append(.allocate(byteCount: max(bytes.count, 2 * (chunks.last?.count ?? 2048)), alignment: 1))
                used = 0
            }
            let start = chunks[chunks.count - 1].baseAddress! + used
            if let source = bytes.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
            used += bytes.count
            return (UnsafePointer(start.assumingMemoryBound(to: CChar.self)), UInt64(bytes.count))
        }
    }

    /// After a run: the kept bytes may be overwritten (one chunk, as large as the largest, stays).
    private func releaseKeptBytes() {
        used = 0
        if chunks.count > 1 {
            let largest = chunks.removeLast()
            for chunk in chunks { chunk.deallocate() }
            chunks = [largest]
        }
    }

    func bind(_ integer: Int64, at index: Int32) throws {
        let code = sqlite3_bind_int64(handle, index, integer)
        if code != SQLITE_OK { throw failure(code) }
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    /// Runs an INSERT (possibly an upsert): the row id of the row it inserted, `nil` when it
    /// inserted none (an upsert that updated, or left the row as it was: see `changes`). The
    /// connection's last inserted row id is cleared first; an upsert that updates does not set
    /// it, nor do triggers once they end.
    func runInsert() throws -> Int64? {
        sqlite3_set_last_insert_rowid(connection, 0)
        try run()
        let rowID = sqlite3_last_insert_rowid(connection)
        return rowID != 0 ? rowID : nil
    }

    /// Runs an INSERT of a row believed new: its row id, or `nil` when a row with its identity
    /// exists after all (a UNIQUE constraint failed; SQLite undid the statement).
    func runInsertIfNew() throws -> Int64? {
        defer { finishRun() }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return sqlite3_last_insert_rowid(connection) }
        if sqlite3_extended_errcode(connection) == ResultCode.SQLITE_CONSTRAINT_UNIQUE.rawValue { return nil }
        throw failure(code)
    }

    /// Runs a query row by row; `body` reads the current row's columns with `integer(at:)`.
    func forEachRow(_ body: () -> Void) throws {
        defer { finishRun() }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: body()
            case SQLITE_DONE: return
            case let code: throw failure(code)
            }
        }
    }

    /// Runs the statement to its first row: the first column of that row as an integer (a row
    /// id, or a boolean), `nil` when there is no row. Resets the statement for the next call.
    @discardableResult
    func run() throws -> Int64? {
        defer { finishRun() }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return sqlite3_column_int64(handle, 0)
        case SQLITE_DONE: return nil
        case let code: throw failure(code)
        }
    }

    /// Column `index` (0-based) of the current row of `forEachRow` as an integer; `nil` for NULL.
    func integer(at index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    private func finishRun() {
        sqlite3_reset(handle)
        releaseKeptBytes()
    }

    /// Rows the last `run()` of an INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(connection)) }

    /// The row id of the last row an INSERT added on the connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }
}
