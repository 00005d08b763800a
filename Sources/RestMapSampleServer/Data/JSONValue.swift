import RestMapJSON

/// A JSON value the server can hold, change and write back: objects keep their key order and
/// numbers keep their lexeme, so a sample is served byte-for-byte in the same order it was read.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's JSON text (`325.00` stays `325.00`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One object member.
    struct Member: Sendable, Equatable {
        var key: String
        var value: JSONValue
    }

    /// Parses JSON bytes.
    init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self.init(try JSONDocument(bytes: bytes).root)
    }

    init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool: self = .bool(node.boolValue ?? false)
        case .number: self = .number(node.number?.text ?? "0")
        case .string: self = .string(node.stringValue ?? "")
        case .array: self = .array(node.elements.map(JSONValue.init))
        case .object: self = .object(node.members.map { Member(key: $0.key, value: JSONValue($0.value)) })
        }
    }

    static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// Builds an object from key/value pairs in order.
    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { Member(key: $0.key, value: $0.value) })
    }

    /// The member's value, the first one when a key repeats.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// An integer from a number or from a string holding digits (form bodies send text).
    var intValue: Int? {
        switch self {
        case .number(let text), .string(let text): return Int(text)
        default: return nil
        }
    }

    /// The members of an object; empty for anything else.
    var members: [Member] {
        if case .object(let members) = self { return members }
        return []
    }

    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Sets a member, replacing the first one with this key or appending it.
    mutating func set(_ key: String, _ value: JSONValue) {
        guard case .object(var members) = self else { return }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append(Member(key: key, value: value))
        }
        self = .object(members)
    }

    /// Compact UTF-8 JSON.
    var bytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let text): writer.raw(text)
        case .string(let text): writer.string(text)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
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
