import Foundation
import GRDB
import GRDBSQLite

/// One value of a row as SQLite holds it, read exactly: text by its length (a U+0000 inside a
/// string is kept), blobs as their bytes.
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// SQLite's name of the value's type, for messages about a value of the wrong type.
    var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}

/// The current row of a query run by `Database.forEachRow`: its columns, read by position.
struct SQLiteRow {
    fileprivate let handle: OpaquePointer
    /// What the row comes from, for messages about a bad value (`table "rm_paths"`).
    let source: String

    var count: Int { Int(sqlite3_column_count(handle)) }

    /// Column `index` (0-based), exactly as stored.
    func value(at index: Int) -> SQLiteValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            // By length: `String(cString:)` would stop at the first U+0000.
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// Column `index` as an integer; anything else throws a `StoreError` naming the column.
    func integer(at index: Int, _ column: String) throws(DamagedStore) -> Int64 {
        guard case .integer(let integer) = value(at: index) else { throw badValue(value(at: index), column, expected: "an integer") }
        return integer
    }

    /// Column `index` as an integer or null; anything else throws.
    func integerOrNull(at index: Int, _ column: String) throws(DamagedStore) -> Int64? {
        switch value(at: index) {
        case .integer(let integer): return integer
        case .null: return nil
        case let other: throw badValue(other, column, expected: "an integer or null")
        }
    }

    /// Column `index` as text; anything else throws.
    func text(at index: Int, _ column: String) throws(DamagedStore) -> String {
        guard case .text(let text) = value(at: index) else { throw badValue(value(at: index), column, expected: "text") }
        return text
    }

    /// Column `index` as text or null; anything else throws.
    func textOrNull(at index: Int, _ column: String) throws(DamagedStore) -> String? {
        switch value(at: index) {
        case .text(let text): return text
        case .null: return nil
        case let other: throw badValue(other, column, expected: "text or null")
        }
    }

    /// The error of a stored value of the wrong type.
    func badValue(_ value: SQLiteValue, _ column: String, expected: String) -> DamagedStore {
        DamagedStore("\(source), column '\(column)': \(expected) was expected, the file holds \(value.typeName == "null" ? "null" : "a " + value.typeName)")
    }
}

extension Database {
    /// Runs a query and calls `body` with each row, reading values exactly (`SQLiteRow`) and
    /// binding `arguments` (`?1…`) by their length. The statement is compiled by GRDB, so a
    /// `ValueObservation` tracks the tables it reads.
    ///
    /// - Parameter source: what the rows come from, for messages about bad values.
    func forEachRow(_ sql: String, arguments: [ColumnCoding.Stored] = [], source: String,
                    _ body: (SQLiteRow) throws -> Void) throws {
        let statement = try makeStatement(sql: sql)
        try registerAccess(to: statement.databaseRegion)
        let handle = statement.sqliteStatement
        guard let connection = sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the connection is closed") }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        // SQLITE_TRANSIENT: SQLite copies the bytes, which live only during the call.
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real): code = sqlite3_bind_double(handle, index, real)
            case .text(var text):
                code = text.withUTF8 { bytes in
                    guard let start = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text64(handle, index, "", 0, transient, UInt8(SQLITE_UTF8))
                    }
                    return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) { characters in
                        sqlite3_bind_text64(handle, index, characters, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(var json):
                code = json.withUTF8 { bytes in
                    guard let start = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
                    return sqlite3_bind_blob64(handle, index, start, UInt64(bytes.count), transient)
                }
            }
            if code != SQLITE_OK {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
            }
        }
        let row = SQLiteRow(handle: handle, source: source)
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: try body(row)
            case SQLITE_DONE: return
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
            }
        }
    }
}

/// A value in the store's file that its tables cannot hold (a damaged or hand-edited file):
/// `RecordStore` reports it as a `StoreError` naming the file, with advice to check it.
struct DamagedStore: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
