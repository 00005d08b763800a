import Foundation
import RestMapJSON

/// Conversions between document nodes and `Value`s.
enum JSONValues {
    /// The node as a value: integers exact when they fit 64 bits, larger ones as decimals,
    /// other numbers as doubles; objects keep member order.
    static func materialize(_ node: JSONNode) -> Value {
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.boolValue!)
        case .string: return .string(node.stringValue!)
        case .number:
            let number = node.number!
            if let integer = number.int64 { return .integer(integer) }
            if number.isInteger, let decimal = Decimal(string: number.text, locale: posix) { return .decimal(decimal) }
            return .number(number.double)
        case .array: return .array(node.elements.map(materialize))
        case .object: return .object(node.members.map { Value.Member(key: $0.key, value: materialize($0.value)) })
        }
    }

    /// The node's number as an exact decimal (collection operators compute exactly).
    static func decimal(_ value: Value) -> Decimal? {
        switch value {
        case .integer(let integer): return Decimal(integer)
        case .decimal(let decimal): return decimal
        case .number(let number): return Decimal(string: Coercer.text(of: number), locale: posix)
        case .string(let string): return Coercer.isNumeric(string) ? Decimal(string: string, locale: posix) : nil
        case .bool(let bool): return bool ? 1 : 0
        default: return nil
        }
    }

    /// Writes a value as JSON.
    static func write(_ value: Value, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .bool(let bool): writer.bool(bool)
        case .integer(let integer): writer.integer(integer)
        case .number(let number):
            if number.isFinite { writer.raw(Coercer.text(of: number)) } else { writer.null() }
        case .decimal(let decimal): writer.raw(decimal.description)
        case .string(let string): writer.string(string)
        case .date(let date): writer.string(Coercer.iso8601(date))
        case .url(let url): writer.string(url.absoluteString)
        case .array(let items):
            writer.beginArray()
            for item in items { write(item, to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                write(member.value, to: &writer)
            }
            writer.endObject()
        }
    }
}
