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
enum ColumnCoding {
    /// The stored form of a value in a column of `type` (a schema attribute type name).
    static func encode(_ value: Value, type: String) -> DatabaseValue {
        if case .null = value { return .null }
        if type.hasPrefix("[") { return json(value).databaseValue }
        if type == "any" {
            switch value {
            case .string(let string): return string.databaseValue
            case .integer(let integer): return integer.databaseValue
            case .number(let number): return number.databaseValue
            default: return Data(json(value).utf8).databaseValue
            }
        }
        switch value {
        case .null: return .null
        case .bool(let bool): return (bool ? 1 : 0).databaseValue
        case .integer(let integer): return integer.databaseValue
        case .number(let number): return number.databaseValue
        case .decimal(let decimal): return decimal.description.databaseValue
        case .string(let string): return string.databaseValue
        case .date(let date): return date.timeIntervalSince1970.databaseValue
        case .url(let url): return url.absoluteString.databaseValue
        case .array, .object: return json(value).databaseValue
        }
    }

    /// The value of a stored column. SQL NULL reads as `null`: the store does not tell an
    /// attribute mapped to null from one never mapped.
    static func decode(_ stored: DatabaseValue, type: String) -> Value {
        switch stored.storage {
        case .null:
            return .null
        case .int64(let integer):
            switch type {
            case "any": return .integer(integer)
            case "boolean": return .bool(integer != 0)
            case "date": return .date(Date(timeIntervalSince1970: TimeInterval(integer)))
            case "number": return .number(Double(integer))
            default: return .integer(integer)
            }
        case .double(let number):
            return type == "date" ? .date(Date(timeIntervalSince1970: number)) : .number(number)
        case .string(let text):
            switch type {
            case "decimal": return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal) ?? .string(text)
            case "url": return URL(string: text).map(Value.url) ?? .string(text)
            default:
                if type.hasPrefix("["), let document = try? JSONDocument(string: text) { return Value(json: document.root) }
                return .string(text)
            }
        case .blob(let data):
            return (try? JSONDocument(bytes: Array(data))).map { Value(json: $0.root) } ?? .string(String(decoding: data, as: UTF8.self))
        }
    }

    /// Equality conditions (`"a" = ?`, or `"a" IS NULL` for null) over columns, with their arguments.
    static func equalities(_ pairs: [(column: StoreLayout.Column, value: Value)]) -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        for (column, value) in pairs {
            let encoded = encode(value, type: column.type)
            if encoded.isNull {
                conditions.append("\(StoreSQL.quote(column.name)) IS NULL")
            } else {
                conditions.append("\(StoreSQL.quote(column.name)) = ?")
                arguments.append(encoded)
            }
        }
        return (conditions.joined(separator: " AND "), StatementArguments(arguments))
    }

    private static func json(_ value: Value) -> String {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.string
    }
}
