import FoundationEssentials
import RestMapPluginKit

/// `dates.parse`: any recognized date text or timestamp to a date; dates back to ISO 8601 UTC text
/// (or the first custom format).
struct ParseTransformer: UTF8StringTransformer {
    let reading: DateReading

    func transform(_ value: Value) throws -> Value {
        try reading.date(from: value)
    }

    /// The default chain reads the text's bytes as they crossed the plugin boundary; patterns,
    /// blank text and errors go the `String` way.
    func transform(stringUTF8 utf8: UnsafeBufferPointer<UInt8>) throws -> Value {
        if reading.patterns.isEmpty, let seconds = reading.chain.seconds(fromUTF8: utf8) {
            return .date(Date(timeIntervalSince1970: seconds))
        }
        return try transform(.string(String(decoding: utf8, as: UTF8.self)))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .date(let date) = value else { return value }
        if let pattern = reading.patterns.first, let calendar = reading.calendar {
            return .string(reading.text(of: date, pattern: pattern, calendar: calendar))
        }
        return .string(ISO8601Text.string(from: date.timeIntervalSince1970))
    }
}

/// `dates.format`: a date (or anything `dates.parse` reads) to text in a Unicode pattern, in both
/// directions.
struct FormatTransformer: ValueTransformer {
    let reading: DateReading
    let pattern: String
    let calendar: CalendarLibrary.Functions

    init(reading: DateReading, pattern: String) throws(TransformerError) {
        self.reading = reading
        self.pattern = pattern
        calendar = try CalendarLibrary.functions(for: "a Unicode date pattern")
    }

    func transform(_ value: Value) throws -> Value {
        guard case .date(let date) = try reading.date(from: value) else { return .null }
        return .string(reading.text(of: date, pattern: pattern, calendar: calendar))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        try transform(value)
    }
}

/// `dates.rfc1123`: exactly RFC 1123 text to a date, and dates back to RFC 1123 text.
struct RFC1123Transformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        guard case .string(var text) = value else { return try passThrough(value, "RFC 1123") }
        if text.isEmpty { return .null }
        guard let parsed = text.withUTF8({ HTTPDateParser.parseRFC1123($0) }) else {
            throw TransformerError("'\(text)' is not an RFC 1123 date")
        }
        return .date(Date(timeIntervalSince1970: parsed.utcSeconds))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .date(let date) = value else { return value }
        return .string(HTTPDateParser.rfc1123String(fromSeconds: date.timeIntervalSince1970))
    }
}

/// `dates.iso8601`: exactly ISO 8601 text (zone-less read as UTC) to a date, and back.
struct ISO8601Transformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        guard case .string(let text) = value else { return try passThrough(value, "ISO 8601") }
        if text.isEmpty { return .null }
        guard let parsed = ISO8601Parser.parse(text) else { throw TransformerError("'\(text)' is not an ISO 8601 date") }
        return .date(Date(timeIntervalSince1970: parsed.utcSeconds))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .date(let date) = value else { return value }
        return .string(ISO8601Text.string(from: date.timeIntervalSince1970))
    }
}

/// `dates.unix`: a Unix timestamp (number or numeric string) to a date, and dates back to an
/// integer timestamp in the unit (seconds when unspecified).
struct UnixTransformer: ValueTransformer {
    let unit: UnixTime.Unit?

    func transform(_ value: Value) throws -> Value {
        let timestamp: Double
        switch value {
        case .null, .date: return value
        case .integer(let integer): timestamp = Double(integer)
        case .number(let number): timestamp = number
        case .decimal(let decimal): timestamp = decimal.nearestDouble
        case .string(var text):
            if text.isEmpty { return .null }
            guard let number = text.withUTF8({ UnixTime.number(in: $0) }) else {
                throw TransformerError("'\(text)' is not a Unix timestamp")
            }
            timestamp = number
        default: throw TransformerError("cannot read a \(value.kindName) as a Unix timestamp")
        }
        return .date(Date(timeIntervalSince1970: UnixTime.seconds(timestamp, unit: unit)))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .date(let date) = value else { return value }
        let scaled = date.timeIntervalSince1970 * (unit == .milliseconds ? 1000 : 1)
        if scaled.rounded() == scaled, let integer = Int64(exactly: scaled) { return .integer(integer) }
        return .number(scaled)
    }
}

/// Null and dates pass; empty strings become null; anything else is an error.
private func passThrough(_ value: Value, _ form: String) throws -> Value {
    switch value {
    case .null, .date: return value
    default: throw TransformerError("cannot read a \(value.kindName) as an \(form) date")
    }
}
