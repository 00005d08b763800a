import Foundation
import RestMapJSON

/// Writes records as JSON, NDJSON or CSV (the CLI contract, section 12).
///
/// A record prints as an object: `"$entity"` first, then attributes and relationships in schema
/// order (absent ones left out). A record already being printed higher on the same path (a
/// cycle) prints as `{"$entity": …, "$ref": IDENTIFICATION}`.
public enum RecordWriter {
    /// A JSON array of the records.
    public static func json(_ records: [Record], pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.beginArray()
        for record in records { write(record, to: &writer) }
        writer.endArray()
        return writer.string
    }

    /// One JSON object per line.
    public static func ndjson(_ records: [Record]) -> String {
        String(decoding: ndjsonBytes(records), as: UTF8.self)
    }

    /// One JSON object per line, as UTF-8 bytes (what `ndjson` returns as text).
    public static func ndjsonBytes(_ records: [Record]) -> [UInt8] {
        var writer = JSONWriter()
        var path: [Int] = []
        for record in records {
            write(record, to: &writer, path: &path)
            writer.endLine()
        }
        return writer.bytes
    }

    /// RFC 4180 CSV: a header of `$entity` and every attribute name (first-seen order), one
    /// row per record; to-one relationships as their identification, containers as JSON text.
    public static func csv(_ records: [Record]) -> String {
        var columns: [String] = []
        var seen = Set<String>()
        for record in records {
            for name in record.plan.attributes.map(\.name) + record.plan.relationships.filter({ !$0.isToMany }).map(\.name)
            where seen.insert(name).inserted {
                columns.append(name)
            }
        }
        var lines = [(["$entity"] + columns).map(csvField).joined(separator: ",")]
        for record in records {
            var row = [csvField(record.entity)]
            for column in columns {
                let text: String = switch record[column] {
                case .absent, .value(.null): ""
                case .value(.array(let items)): jsonText(.array(items))
                case .value(.object(let members)): jsonText(.object(members))
                case .value(let value): ValueText.plain(value)
                case .record(let related): related.identification.map { $0.map(ValueText.plain).joined(separator: "/") } ?? ""
                case .records: ""
                }
                row.append(csvField(text))
            }
            lines.append(row.joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func write(_ record: Record, to writer: inout JSONWriter) {
        var path: [Int] = []
        write(record, to: &writer, path: &path)
    }

    /// `path`: the records being printed above this one (a cycle prints as `$ref`); empty again on return.
    private static func write(_ record: Record, to writer: inout JSONWriter, path: inout [Int]) {
        // The record's data and plan are read once: each `Record` accessor looks them up again.
        let data = record.data
        let plan = record.graph.plan.entities[data.entity]
        writer.beginObject()
        writer.key("$entity")
        writer.string(plan.name)
        if path.contains(record.index) {
            writer.key("$ref")
            let identification = record.identification ?? []
            (identification.count == 1 ? identification[0] : .array(identification)).write(to: &writer)
            writer.endObject()
            return
        }
        path.append(record.index)
        defer { path.removeLast() }
        for (slot, attribute) in plan.attributes.enumerated() {
            guard let value = data.values[slot] else { continue }
            writer.key(attribute.name)
            value.write(to: &writer)
        }
        for (slot, relationship) in plan.relationships.enumerated() {
            guard let related = data.relations[slot] else { continue }
            writer.key(relationship.name)
            if relationship.isToMany {
                writer.beginArray()
                for index in related { write(Record(graph: record.graph, index: index), to: &writer, path: &path) }
                writer.endArray()
            } else if let first = related.first {
                write(Record(graph: record.graph, index: first), to: &writer, path: &path)
            } else {
                writer.null()
            }
        }
        writer.endObject()
    }

    private static func jsonText(_ value: Value) -> String {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.string
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
