import FoundationEssentials
import RestMap
import RestMapJSON
import RestMapSchema

/// Expected values written in test files (YAML nodes), compared with mapped values.
///
/// A plain YAML integer matches an exact integer (or an equal decimal or double); a plain float
/// matches a number or decimal of equal value; a string matches a string, a date by its ISO 8601
/// UTC text, a URL by its text, and a decimal or integer only when it is written as the same
/// number (`"12.50"` matches the decimal 12.5). Lists and mappings match arrays and objects
/// element by element (object key order is ignored).
enum ExpectedValue {
    static func matches(_ expected: SchemaNode, _ actual: Value) -> Bool {
        switch expected.content {
        case .sequence(let items):
            guard case .array(let values) = actual, values.count == items.count else { return false }
            return zip(items, values).allSatisfy { matches($0, $1) }
        case .mapping(let pairs):
            guard case .object(let members) = actual, members.count == pairs.count else { return false }
            return pairs.allSatisfy { pair in
                guard let key = pair.key.scalarText, let value = actual[key] else { return false }
                return matches(pair.value, value)
            }
        case .scalar(let text, _):
            if expected.isNull { return actual.isNull }
            if let bool = expected.boolValue { return actual == .bool(bool) }
            if expected.stringValue == nil, let number = decimal(text) {
                return numericValue(of: actual) == number
            }
            switch actual {
            case .string(let string): return string == text
            case .date: return JSONText.string(from: actual) == JSONText.string(from: .string(text))
            case .url(let url): return url.absoluteString == text
            case .integer, .decimal: return decimal(text).map { numericValue(of: actual) == $0 } ?? false
            default: return false
            }
        }
    }

    /// An exact decimal of a number's text.
    static func decimal(_ text: String) -> Decimal? {
        guard Double(text) != nil else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    private static func numericValue(of value: Value) -> Decimal? {
        switch value {
        case .integer(let integer): Decimal(integer)
        case .decimal(let decimal): decimal
        case .number(let number): number.isFinite ? decimal(String(number)) : nil
        default: nil
        }
    }

    /// How an expected value prints in a failure: JSON text.
    static func text(_ node: SchemaNode) -> String {
        String(decoding: json(node), as: UTF8.self)
    }

    /// How an actual value prints in a failure: JSON text, with its kind when that could confuse.
    static func text(_ value: Value) -> String {
        switch value {
        case .date, .url, .decimal: "\(JSONText.string(from: value)) (\(value.kindName))"
        default: JSONText.string(from: value)
        }
    }

    /// The JSON text of a node: plain numbers are written as they are spelled (exact), other
    /// scalars typed by the YAML 1.2 core schema.
    static func json(_ node: SchemaNode) -> [UInt8] {
        var bytes: [UInt8] = []
        write(node, into: &bytes)
        return bytes
    }

    private static func write(_ node: SchemaNode, into bytes: inout [UInt8]) {
        switch node.content {
        case .sequence(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .mapping(let pairs):
            bytes.append(UInt8(ascii: "{"))
            for (index, pair) in pairs.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.writeString(pair.key.scalarText ?? "", into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(pair.value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .scalar(let text, _):
            if node.isNull { bytes += Array("null".utf8) }
            else if let bool = node.boolValue { bytes += Array((bool ? "true" : "false").utf8) }
            else if node.stringValue == nil, (try? JSONDocument(string: text)) != nil { bytes += Array(text.utf8) }
            else { JSONText.writeString(text, into: &bytes) }
        }
    }

    /// The value of a node, as a JSON reader would produce it (exact numbers).
    static func value(_ node: SchemaNode) -> Value {
        // The node's JSON text always parses: `json` writes only valid JSON.
        guard let document = try? JSONDocument(bytes: json(node)) else { return .null }
        return Value(json: document.root)
    }
}
