import Foundation
import RestMapJSON

/// The formats records print in (the CLI contract, section 12).
public enum RecordFormat: String, Sendable, CaseIterable {
    /// One JSON array.
    case json
    /// One JSON object per line.
    case ndjson
    /// RFC 4180 CSV with a header line.
    case csv
}

/// Writes records as JSON, NDJSON or CSV (the CLI contract, section 12).
///
/// A record prints as an object: `"$entity"` first, then attributes and relationships in schema
/// order (absent ones left out). A record already being printed higher on the same path (a
/// cycle) prints as `{"$entity": …, "$ref": IDENTIFICATION}`.
public enum RecordWriter {
    /// The records as the CLI prints them: a JSON array and a newline, one JSON object per line
    /// (NDJSON), or CSV; as UTF-8 bytes, ready to write.
    public static func output(_ records: [Record], format: RecordFormat, pretty: Bool = false) -> [UInt8] {
        switch format {
        case .json:
            var writer = jsonWriter(records, pretty: pretty)
            writer.endLine()
            return writer.bytes
        case .ndjson:
            var writer = JSONWriter()
            for record in records {
                write(record, to: &writer)
                writer.endLine()
            }
            return writer.bytes
        case .csv:
            return Array(csv(records).utf8)
        }
    }

    /// A JSON array of the records.
    public static func json(_ records: [Record], pretty: Bool = false) -> String {
        jsonWriter(records, pretty: pretty).string
    }

    /// One JSON object per line.
    public static func ndjson(_ records: [Record]) -> String {
        String(decoding: output(records, format: .ndjson), as: UTF8.self)
    }

    private static func jsonWriter(_ records: [Record], pretty: Bool) -> JSONWriter {
        var writer = JSONWriter(pretty: pretty)
        writer.beginArray()
        for record in records { write(record, to: &writer) }
        writer.endArray()
        return writer
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

    /// The encoded `"$entity"` and `"$ref"` keys.
    private static let entityKey = JSONWriter.encoded("$entity")
    private static let referenceKey = JSONWriter.encoded("$ref")

    /// Writes a record; `path` holds the records being written around it (a short stack).
    static func write(_ record: Record, to writer: inout JSONWriter, path: inout [Int]) {
        // The record's data and plan are read once: each `Record` accessor looks them up again.
        let data = record.data
        let plan = record.graph.plan.entities[data.entity]
        writer.beginObject()
        writer.key(encoded: entityKey)
        writer.value(encoded: plan.encodedNames.entity)
        if path.contains(record.index) {
            writer.key(encoded: referenceKey)
            let identification = record.identification ?? []
            (identification.count == 1 ? identification[0] : .array(identification)).write(to: &writer)
            writer.endObject()
            return
        }
        path.append(record.index)
        defer { path.removeLast() }
        for slot in data.values.indices {
            guard let value = data.values[slot] else { continue }
            writer.key(encoded: plan.encodedNames.attributes[slot])
            value.write(to: &writer)
        }
        for slot in data.relations.indices {
            guard let related = data.relations[slot] else { continue }
            writer.key(encoded: plan.encodedNames.relationships[slot])
            if plan.relationships[slot].isToMany {
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
