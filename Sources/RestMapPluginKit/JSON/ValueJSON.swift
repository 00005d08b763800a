import FoundationEssentials
import RestMapJSON

extension Value {
    /// The value of a JSON node. An integer literal that fits 64 bits becomes `.integer`; any
    /// other number literal `.decimal` (exact), or `.number` when it has an exponent or more
    /// digits than a `Decimal` holds. Objects keep their member order.
    public init(json node: JSONNode) {
        // The unwraps below are total: each case has checked the node's kind.
        switch node.kind {
        case .null: self = .null
        case .bool: self = .bool(node.boolValue!)
        case .string: self = .string(node.stringValue!)
        case .number:
            let number = node.number!
            if let integer = number.int64 {
                self = .integer(integer)
                return
            }
            let text = number.text
            let digits = text.utf8.lazy.filter { (0x30...0x39).contains($0) }.count
            if !text.contains(where: { $0 == "e" || $0 == "E" }), digits <= 38,
               let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                self = .decimal(decimal)
            } else {
                self = .number(number.double)
            }
        case .array: self = .array(node.elements.map(Value.init(json:)))
        case .object: self = .object(node.members.map { Member(key: $0.key, value: Value(json: $0.value)) })
        }
    }

    /// Writes the value as JSON. JSON has no date or URL type: dates are written as ISO 8601 UTC
    /// strings, URLs as strings; doubles in their shortest form (`3`, not `3.0`), non-finite ones as null.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let bool): writer.bool(bool)
        case .integer(let integer): writer.integer(integer)
        case .number(let number): writer.double(number)
        case .decimal(let decimal): writer.raw(decimal.description)
        case .string(let string): writer.string(string)
        case .date(let date):
            writer.unescapedString(maximumByteCount: ISO8601Text.maximumByteCount) { ISO8601Text.write(date.timeIntervalSince1970, to: $0) }
        case .url(let url): writer.string(url.absoluteString)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
