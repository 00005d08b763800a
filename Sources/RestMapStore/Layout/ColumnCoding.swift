import Foundation
import GRDB
import RestMap
import RestMapJSON

/// Values to SQLite and back, faithfully (Docs/Store.md, "Column types"):
///
/// | attribute type | column | stored as |
/// |---|---|---|
/// | integer | INTEGER | the exact 64-bit integer |
/// | boolean | INTEGER | 0 or 1 |
/// | number | REAL | the double |
/// | date | REAL | Unix seconds (UTC instants sort numerically) |
/// | decimal | TEXT | the exact decimal text (`19.99`), never a double |
/// | string, url | TEXT | the text, the absolute URL |
/// | [T] | TEXT | JSON text, numbers exact |
/// | any | ANY | strings as TEXT, integers as INTEGER, doubles as REAL; anything else (booleans, decimals, arrays, objects) as a BLOB of JSON text |
package enum ColumnCoding {
    /// How a column stores values, decided once per column from its attribute type.
    package enum Kind: Sendable {
        /// `[T]`: JSON text.
        case array
        /// `any`: by the value's own type.
        case any
        /// Every other type: by the value's type, as the table above says.
        case scalar

        package init(type: String) {
            self = type.hasPrefix("[") ? .array : type == "any" ? .any : .scalar
        }
    }

    /// A value in its stored form: what is bound to a statement parameter (`DirectStatement`)
    /// or becomes a GRDB `DatabaseValue`.
    package enum Stored: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        /// JSON text stored as a BLOB (a compound value in an `any` column).
        case blob(String)

        var databaseValue: DatabaseValue {
            switch self {
            case .null: .null
            case .integer(let integer): integer.databaseValue
            case .real(let real): real.databaseValue
            case .text(let text): text.databaseValue
            case .blob(let json): Data(json.utf8).databaseValue
            }
        }

        var isNull: Bool { if case .null = self { true } else { false } }
    }

    /// The stored form of a value in a column of `kind`.
    package static func stored(_ value: Value, kind: Kind) -> Stored {
        switch (kind, value) {
        case (_, .null): return .null
        case (.array, _): return .text(json(value))
        case (.any, .string(let string)): return .text(string)
        case (.any, .integer(let integer)): return .integer(integer)
        case (.any, .number(let number)): return .real(number)
        case (.any, _): return .blob(json(value))
        case (.scalar, .bool(let bool)): return .integer(bool ? 1 : 0)
        case (.scalar, .integer(let integer)): return .integer(integer)
        case (.scalar, .number(let number)): return .real(number)
        case (.scalar, .decimal(let decimal)): return .text(decimal.description)
        case (.scalar, .string(let string)): return .text(string)
        case (.scalar, .date(let date)): return .real(date.timeIntervalSince1970)
        case (.scalar, .url(let url)): return .text(url.absoluteString)
        case (.scalar, .array), (.scalar, .object): return .text(json(value))
        }
    }

    /// The stored form of a value in a column of `type` (a schema attribute type name).
    static func encode(_ value: Value, type: String) -> DatabaseValue {
        stored(value, kind: Kind(type: type)).databaseValue
    }

    /// The value of a stored column. SQL NULL reads as `null`: the store does not tell an
    /// attribute mapped to null from one never mapped. Text is read whole, by its length.
    static func decode(_ stored: SQLiteValue, type: String) -> Value {
        switch stored {
        case .null:
            return .null
        case .integer(let integer):
            switch type {
            case "any": return .integer(integer)
            case "boolean": return .bool(integer != 0)
            case "date": return .date(Date(timeIntervalSince1970: TimeInterval(integer)))
            case "number": return .number(Double(integer))
            default: return .integer(integer)
            }
        case .real(let number):
            return type == "date" ? .date(Date(timeIntervalSince1970: number)) : .number(number)
        case .text(let text):
            switch type {
            case "decimal": return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal) ?? .string(text)
            case "url": return URL(string: text).map(Value.url) ?? .string(text)
            default:
                if type.hasPrefix("["), let document = try? JSONDocument(string: text) { return Value(json: document.root) }
                return .string(text)
            }
        case .blob(let bytes):
            return (try? JSONDocument(bytes: bytes)).map { Value(json: $0.root) } ?? .string(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Equality conditions (`"a" = ?`, or `"a" IS NULL` for null) over columns, with their
    /// arguments in stored form (bound by length: see `Database.forEachRow`).
    static func equalities(_ pairs: [(column: StoreLayout.Column, value: Value)]) -> (sql: String, arguments: [Stored]) {
        var conditions: [String] = []
        var arguments: [Stored] = []
        for (column, value) in pairs {
            let stored = stored(value, kind: Kind(type: column.type))
            if stored.isNull {
                conditions.append("\(StoreSQL.quote(column.name)) IS NULL")
            } else {
                arguments.append(stored)
                conditions.append("\(StoreSQL.quote(column.name)) = ?\(arguments.count)")
            }
        }
        return (conditions.joined(separator: " AND "), arguments)
    }

    private static func json(_ value: Value) -> String {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.string
    }
}
