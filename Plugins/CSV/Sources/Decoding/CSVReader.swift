import RestMapPluginKit

/// An RFC 4180 CSV reader over bytes.
///
/// Fields may be quoted with `"`; a quoted field may hold delimiters, `""` (one quote) and line
/// breaks. Records end with CRLF, LF or CR. A leading UTF-8 byte order mark is skipped, and so are
/// blank lines.
public struct CSVReader: Sendable {
    /// One record and the line it starts on (1-based).
    public struct Record: Sendable, Equatable {
        /// The line the record starts on.
        public var line: Int
        /// The fields' UTF-8 bytes, unquoted.
        public var fields: [[UInt8]]
    }

    /// The field delimiter, an ASCII byte (`,` by default).
    public var delimiter: UInt8

    /// A reader splitting fields at `delimiter`.
    public init(delimiter: UInt8 = UInt8(ascii: ",")) {
        self.delimiter = delimiter
    }

    /// Every record of `bytes`.
    public func records(_ bytes: [UInt8]) throws(TransformerError) -> [Record] {
        var records: [Record] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        while index < bytes.count {
            let recordLine = line
            var fields: [[UInt8]] = []
            var quotedAny = false
            recordLoop: while true {
                var field: [UInt8] = []
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    quotedAny = true
                    let openingLine = line
                    index += 1
                    while true {
                        guard index < bytes.count else {
                            throw TransformerError("line \(openingLine): a quoted field is never closed")
                        }
                        let byte = bytes[index]
                        if byte == UInt8(ascii: "\"") {
                            if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                                field.append(byte)
                                index += 2
                                continue
                            }
                            index += 1
                            break
                        }
                        if byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A)) { line += 1 }
                        field.append(byte)
                        index += 1
                    }
                    if index < bytes.count, bytes[index] != delimiter, bytes[index] != 0x0A, bytes[index] != 0x0D {
                        throw TransformerError("line \(line): unexpected text after a closing quote")
                    }
                } else {
                    while index < bytes.count, bytes[index] != delimiter, bytes[index] != 0x0A, bytes[index] != 0x0D {
                        field.append(bytes[index])
                        index += 1
                    }
                }
                fields.append(field)
                guard index < bytes.count else { break recordLoop }
                switch bytes[index] {
                case delimiter:
                    index += 1
                    if index == bytes.count { fields.append([]); break recordLoop }
                case 0x0D:
                    index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                    line += 1
                    break recordLoop
                default:
                    index += 1
                    line += 1
                    break recordLoop
                }
            }
            if fields.count == 1, fields[0].isEmpty, !quotedAny { continue }
            records.append(Record(line: recordLine, fields: fields))
        }
        return records
    }

    /// The records as a JSON array of objects keyed by the header row, with string values.
    /// A record whose field count differs from the header's is an error naming its line.
    public func json(_ bytes: [UInt8]) throws(TransformerError) -> [UInt8] {
        let records = try records(bytes)
        var output: [UInt8] = [UInt8(ascii: "[")]
        guard let header = records.first else { return output + [UInt8(ascii: "]")] }
        let keys = header.fields.map { key in
            var quoted: [UInt8] = []
            JSONText.writeString(utf8: key, into: &quoted)
            return quoted
        }
        output.reserveCapacity(bytes.count * 2)
        for (number, record) in records.dropFirst().enumerated() {
            guard record.fields.count == keys.count else {
                throw TransformerError("line \(record.line) has \(record.fields.count) fields, but the header has \(keys.count)")
            }
            if number > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "{"))
            for (column, field) in record.fields.enumerated() {
                if column > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: keys[column])
                output.append(UInt8(ascii: ":"))
                JSONText.writeString(utf8: field, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        output.append(UInt8(ascii: "]"))
        return output
    }
}
