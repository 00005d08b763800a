import FoundationEssentials
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
            var path: [Int] = []
            for record in records {
                write(record, to: &writer, path: &path)
                writer.endLine()
                writer.reserveAhead()
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
        var path: [Int] = []
        for record in records {
            write(record, to: &writer, path: &path)
            writer.reserveAhead()
        }
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

    /// Writes a record; `path` is an empty stack the writing uses (reused from record to record).
    static func write(_ record: Record, to writer: inout JSONWriter, path: inout [Int]) {
        let graph = record.graph
        graph.records.withUnsafeBufferPointer { records in
            write(record.index, of: graph, records: records, to: &writer, path: &path)
        }
    }

    /// The encoded `"$entity"` and `"$ref"` keys.
    private static let entityKey = JSONWriter.encoded("$entity")
    private static let referenceKey = JSONWriter.encoded("$ref")

    /// Writes the record at `index` of a graph whose records `records` borrows (read in place, not
    /// copied per record); `path` holds the records being written around it (a short stack).
    private static func write(_ index: Int, of graph: RecordGraph, records: UnsafeBufferPointer<RecordData>,
                              to writer: inout JSONWriter, path: inout [Int]) {
        let data = records.baseAddress! + index
        let plan = graph.plan.entities[data.pointee.entity]
        writer.beginObject()
        writer.key(encoded: entityKey)
        writer.value(encoded: plan.encodedNames.entity)
        if path.contains(index) {
            writer.key(encoded: referenceKey)
            let identification = Record(graph: graph, index: index).identification ?? []
            (identification.count == 1 ? identification[0] : .array(identification)).write(to: &writer)
            writer.endObject()
            return
        }
        path.append(index)
        defer { path.removeLast() }
        let names = plan.encodedNames
        names.attributes.text.withUnsafeBufferPointer { text in
            for slot in data.pointee.values.indices {
                guard let value = data.pointee.values[slot] else { continue }
                writer.key(encoded: names.attributes.name(at: slot, in: text))
                value.write(to: &writer)
            }
        }
        guard !data.pointee.relations.isEmpty else { return writer.endObject() }
        names.relationships.text.withUnsafeBufferPointer { text in
            for slot in data.pointee.relations.indices {
                guard let related = data.pointee.relations[slot] else { continue }
                writer.key(encoded: names.relationships.name(at: slot, in: text))
                if plan.relationships[slot].isToMany {
                    writer.beginArray()
                    for child in related { write(child, of: graph, records: records, to: &writer, path: &path) }
                    writer.endArray()
                } else if let first = related.first {
                    write(first, of: graph, records: records, to: &writer, path: &path)
                } else {
                    writer.null()
                }
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
        // Bytes, not characters: a quote followed by a combining mark, or "\r\n", is one character.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
        else { return text }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            quoted.append(byte)
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }
}
