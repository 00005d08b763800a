import Foundation
import NIOCore
import RestMap
import RestMapJSON
import RestMapStore

/// How the store's values become PostgreSQL columns and back (Docs/Store.md, "PostgreSQL"):
///
/// | attribute type | column | sent as (text) |
/// |---|---|---|
/// | integer | bigint | the digits |
/// | boolean | boolean | `true` / `false` |
/// | number | double precision | the number (`NaN`, `Infinity`) |
/// | date | timestamptz | Unix seconds, then `to_timestamp` (microseconds) |
/// | decimal | numeric | the exact decimal text |
/// | string, url | text | the string |
/// | [T], any | jsonb | the JSON value |
///
/// Rows are sent in batches as one binary `text[]` parameter per column, read as a table by
/// `unnest` and cast on the server (`PostgresRows`), and read back as text (`::text`), so that
/// every value is exact both ways.
enum PostgresColumn {
    enum Kind: Sendable {
        case integer, boolean, number, date, decimal, text, json

        init(type: String) {
            switch type {
            case "integer": self = .integer
            case "boolean": self = .boolean
            case "number": self = .number
            case "date": self = .date
            case "decimal": self = .decimal
            case "string", "url": self = .text
            default: self = .json   // any, [T]
            }
        }

        /// The column's type.
        var sqlType: String {
            switch self {
            case .integer: "bigint"
            case .boolean: "boolean"
            case .number: "double precision"
            case .date: "timestamptz"
            case .decimal: "numeric"
            case .text: "text"
            case .json: "jsonb"
            }
        }

        /// A batch field (`x.c0`, text) as a value of the column.
        func fromText(_ field: String) -> String {
            switch self {
            case .text: field
            case .date: "to_timestamp((\(field))::double precision)"
            default: "(\(field))::\(sqlType)"
            }
        }

        /// The column read back as text, exactly (dates as Unix seconds).
        func asText(_ column: String) -> String {
            self == .date ? "extract(epoch from \(column))::text" : "\(column)::text"
        }

        /// The column as the text a `connect` compares (scalars of JSON unquoted).
        func comparable(_ column: String) -> String {
            self == .json ? "(\(column) #>> '{}')" : asText(column)
        }

        /// Text columns order byte by byte (`COLLATE "C"`), as SQLite orders them.
        func ordered(_ column: String) -> String {
            self == .text ? "\(column) COLLATE \"C\"" : column
        }
    }

    /// Appends a value (not null) in a column's text form, as the column's cast
    /// (`Kind.fromText`) reads it: the text its JSON form has as a field of that type, that is a
    /// string's characters, any other scalar's JSON token, an array's or object's JSON (dates as
    /// Unix seconds). `json` is scratch space, reused from one value to the next. Returns the
    /// bytes written.
    static func writeText(_ value: Value, _ kind: Kind, to buffer: inout ByteBuffer, json: inout JSONWriter) -> Int {
        if let text = scalarText(value, kind) { return buffer.writeString(text) }
        json.removeAll()
        value.write(to: &json)
        return json.withBytes { buffer.writeBytes($0) }
    }

    /// One value (not null) in a column's text form (`writeText`), to bind or compare.
    static func text(_ value: Value, _ kind: Kind) -> String {
        if let text = scalarText(value, kind) { return text }
        var json = JSONWriter(capacity: 64)
        value.write(to: &json)
        return json.string
    }

    /// The text form of a scalar outside a `json` column; `nil` for what is written as JSON
    /// (any value of a `json` column, arrays, objects).
    private static func scalarText(_ value: Value, _ kind: Kind) -> String? {
        switch (kind, value) {
        case (.json, _), (_, .array), (_, .object): nil
        case (_, .null): ""
        case (_, .bool(let bool)): bool ? "true" : "false"
        case (_, .integer(let integer)): String(integer)
        case (_, .number(let number)): numberText(number)
        case (_, .decimal(let decimal)): decimal.description
        case (_, .string(let string)): string
        case (_, .url(let url)): url.absoluteString
        case (_, .date(let date)): numberText(date.timeIntervalSince1970)
        }
    }

    /// A double as JSON writes it; the non-finite ones as PostgreSQL spells them.
    private static func numberText(_ number: Double) -> String {
        number.isFinite ? JSONWriter.text(of: number) : number.isNaN ? "NaN" : number > 0 ? "Infinity" : "-Infinity"
    }

    /// The value of a column read as text (`asText`); NULL reads as `null`.
    static func decode(_ text: String?, type: String) -> Value {
        guard let text else { return .null }
        switch Kind(type: type) {
        case .integer: return Int64(text).map(Value.integer) ?? .string(text)
        case .boolean: return .bool(text == "true" || text == "t")
        case .number: return Double(text).map(Value.number) ?? .string(text)
        case .date: return Double(text).map { .date(Date(timeIntervalSince1970: $0)) } ?? .string(text)
        case .decimal: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal) ?? .string(text)
        case .text: return type == "url" ? URL(string: text).map(Value.url) ?? .string(text) : .string(text)
        case .json: return (try? JSONDocument(string: text)).map { Value(json: $0.root) } ?? .string(text)
        }
    }
}

/// The names of one store in its PostgreSQL schema (namespace). PostgreSQL keeps at most 63
/// bytes of a name: a longer one is shortened to its first bytes, `~` and a hash of the whole
/// name, and two names that would then be equal are an error.
struct PostgresNames: Sendable {
    /// The quoted namespace.
    let namespace: String

    init(namespace: String) {
        self.namespace = Self.quote(namespace)
    }

    /// A name as PostgreSQL keeps it.
    static func short(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var prefix = ""
        for character in name {
            if prefix.utf8.count + String(character).utf8.count > 54 { break }
            prefix.append(character)
        }
        return prefix + "~" + String(hash & 0xffff_ffff, radix: 16).leftPadded(to: 8)
    }

    /// A quoted (and shortened) identifier.
    static func quote(_ name: String) -> String { StoreSQL.quote(short(name)) }

    /// A table of the store, qualified by its namespace.
    func table(_ name: String) -> String { "\(namespace).\(Self.quote(name))" }

    /// The join table of a relationship stored as one.
    func joinTable(_ entity: String, _ link: String) -> String { table("\(entity).\(link)") }

    /// Throws when two names of the layout are the same once shortened.
    static func checkCollisions(_ layout: StoreLayout) throws {
        func check(_ names: [String], _ what: String) throws {
            var seen: [String: String] = [:]
            for name in names {
                if let other = seen.updateValue(name, forKey: short(name)), other != name {
                    throw StoreError("the \(what) '\(other)' and '\(name)' are the same in PostgreSQL once shortened to 63 bytes; rename one")
                }
            }
        }
        var relations: [String] = ["rm_schema", "rm_paths", "rm_checkpoints"]
        for table in layout.tables {
            relations.append(table.entity)
            relations += ["\(table.entity).identity", "\(table.entity).search"]
            for link in table.links {
                relations += link.isColumn ? ["\(table.entity).\(link.name).fk"]
                    : ["\(table.entity).\(link.name)", "\(table.entity).\(link.name).source", "\(table.entity).\(link.name).target"]
            }
            try check([StoreSQL.rowID, "rm_search"] + table.columns.map(\.name) + table.links.filter(\.isColumn).map(\.name), "columns of \(table.entity)")
        }
        try check(relations, "tables and indexes")
    }
}

extension String {
    fileprivate func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: Swift.max(0, count - self.count)) + self
    }
}

/// Full-text search in PostgreSQL: a generated `tsvector` column with a GIN index. Both sides
/// are folded the same way: lowercase, Latin diacritics removed, punctuation a separator.
enum PostgresSearch {
    private static let accented = "ÀÁÂÃÄÅàáâãäåÇçÈÉÊËèéêëÌÍÎÏìíîïÑñÒÓÔÕÖØòóôõöøÙÚÛÜùúûüÝýÿŠšŽžČčĆćĐđŁłŃńŚśŹźŻżĘęĄąŘřŤťŮůĚěŇňĎď"
    private static let plain = "AAAAAAaaaaaaCcEEEEeeeeIIIIiiiiNnOOOOOOooooooUUUUuuuuYyySsZzCcCcDdLlNnSsZzZzEeAaRrTtUuEeNnDd"

    /// The generated column's expression over the search attributes.
    static func document(_ columns: [(name: String, kind: PostgresColumn.Kind)]) -> String {
        let text = columns.map { "coalesce(\($0.kind.asText(PostgresNames.quote($0.name))), '')" }.joined(separator: " || ' ' || ")
        return "to_tsvector('simple'::regconfig, regexp_replace(lower(translate(\(text), '\(accented)', '\(plain)')), '[[:punct:][:space:]]+', ' ', 'g'))"
    }

    /// The `to_tsquery` text of the terms: each term's words in order (a phrase), the last one a
    /// prefix; every term must match. `nil` when no term has a letter or digit.
    static func query(_ terms: [String]) -> String? {
        let parts: [String] = terms.compactMap { term in
            let folded = term.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            let words = folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            guard !words.isEmpty else { return nil }
            let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
            return "(" + quoted.dropLast().map { $0 + " <-> " }.joined() + quoted.last! + ":*)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: " & ")
    }
}
