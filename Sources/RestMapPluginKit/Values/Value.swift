import FoundationEssentials

/// A dynamic value: what a record attribute holds and what transformers receive and return.
///
/// Numbers keep their exactness: `integer` is an exact 64-bit integer, `decimal` an exact decimal,
/// `number` a binary double. `date` and `url` appear after coercion or a transformer.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case url(URL)
    case array([Value])
    case object([Member])

    /// One member of an object value; objects keep their members in source order.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: Value
        public init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// The member named `key` of an object value (the last one if the key repeats), else `nil`.
    public subscript(key: String) -> Value? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// `true` for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string payload of a `.string` value.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// A short name of the value's kind, for error messages ("string", "integer", ...).
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .url: "url"
        case .array: "array"
        case .object: "object"
        }
    }
}
