import Foundation
import RestMapPluginKit

/// `ids.oid`: a MongoDB id. `{"$oid": "…"}` (extended JSON) must hold a 24-hex-digit ObjectId;
/// a plain string is an id as it is (MongoDB allows any string `_id`, as seed 000's documents show).
struct ObjectIDTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        switch value {
        case .null, .string: return value
        case .object:
            guard case .string(let text)? = value["$oid"] else {
                throw TransformerError("an ObjectId object needs a string member '$oid', found \(JSONText.string(from: value))")
            }
            guard text.utf8.count == 24, text.utf8.allSatisfy(\.isHexDigit) else {
                throw TransformerError("'\(text)' is not an ObjectId (24 hexadecimal digits)")
            }
            return .string(text)
        default: throw TransformerError("cannot read a \(value.kindName) as a MongoDB id")
        }
    }
}

/// `ids.integer`: an exact 64-bit integer from a number or a numeric string.
struct IntegerTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        switch value {
        case .null, .integer: return value
        case .string(let text):
            guard let integer = Int64(text.trimmingCharacters(in: .whitespaces)) else {
                throw TransformerError("'\(text)' is not an integer")
            }
            return .integer(integer)
        case .number(let number):
            guard let integer = Int64(exactly: number) else { throw TransformerError("\(number) is not an integer") }
            return .integer(integer)
        case .decimal(let decimal):
            guard let integer = Int64(decimal.description) else { throw TransformerError("\(decimal) is not an integer") }
            return .integer(integer)
        default: throw TransformerError("cannot read a \(value.kindName) as an integer")
        }
    }
}

/// `ids.string`: a string from a string or number (integral numbers without `.0`).
struct StringTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        if value.isNull { return .null }
        return .string(try identifierText(value))
    }
}

/// `ids.uuid`: a UUID in canonical lowercase form (braces and missing hyphens accepted).
struct UUIDTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        switch value {
        case .null: return .null
        case .string(let text):
            var hex = Substring(text)
            if hex.hasPrefix("{"), hex.hasSuffix("}") { hex = hex.dropFirst().dropLast() }
            let digits = hex.utf8.filter { $0 != UInt8(ascii: "-") }
            let hyphens = hex.utf8.enumerated().filter { $0.element == UInt8(ascii: "-") }.map(\.offset)
            guard digits.count == 32, digits.allSatisfy(\.isHexDigit), hyphens.isEmpty || hyphens == [8, 13, 18, 23] else {
                throw TransformerError("'\(text)' is not a UUID")
            }
            let lower = String(decoding: digits.map { $0 | 0x20 }, as: UTF8.self)
            var canonical = ""
            for (index, character) in lower.enumerated() {
                if [8, 12, 16, 20].contains(index) { canonical.append("-") }
                canonical.append(character)
            }
            return .string(canonical)
        default: throw TransformerError("cannot read a \(value.kindName) as a UUID")
        }
    }
}

/// `ids.lastPathComponent`: the last path segment of a URL or path (`…/services/aaron` → `aaron`),
/// ignoring a query, a fragment and trailing slashes.
struct LastPathComponentTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        let text: String
        switch value {
        case .null: return .null
        case .string(let string): text = string
        case .url(let url): text = url.absoluteString
        default: throw TransformerError("cannot take the last path component of a \(value.kindName)")
        }
        let path = text.prefix { $0 != "?" && $0 != "#" }
        guard let last = path.split(separator: "/").last else {
            if text.isEmpty { return .null }
            throw TransformerError("'\(text)' has no path component")
        }
        return .string(String(last))
    }
}

/// `ids.prefix`: prepends a prefix (`42` → `gh-42`); the reverse strips it.
struct PrefixTransformer: ValueTransformer {
    let prefix: String

    func transform(_ value: Value) throws -> Value {
        if value.isNull { return .null }
        return .string(prefix + (try identifierText(value)))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .string(let text) = value, text.hasPrefix(prefix) else { return value }
        return .string(String(text.dropFirst(prefix.count)))
    }
}

/// `ids.composite`: an object's members joined (`{a: 1, b: "x"}` with `keys: [a, b]` → `1:x`);
/// the reverse splits the string back into those members (as strings).
struct CompositeTransformer: ValueTransformer {
    let keys: [String]
    let separator: String

    func transform(_ value: Value) throws -> Value {
        guard case .object = value else {
            if value.isNull { return .null }
            throw TransformerError("a composite key needs an object, found \(value.kindName)")
        }
        let parts = try keys.map { key in
            guard let member = value[key], !member.isNull else {
                throw TransformerError("the object \(JSONText.string(from: value)) has no member '\(key)'")
            }
            return try identifierText(member)
        }
        return .string(parts.joined(separator: separator))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .string(let text) = value else { return value }
        let parts = text.components(separatedBy: separator)
        guard parts.count == keys.count else {
            throw TransformerError("'\(text)' does not have \(keys.count) parts separated by '\(separator)'")
        }
        return .object(zip(keys, parts).map { Value.Member(key: $0, value: .string($1)) })
    }
}

/// The text of an identifier: strings as they are, integral numbers without a fraction.
func identifierText(_ value: Value) throws(TransformerError) -> String {
    switch value {
    case .string(let text): return text
    case .integer(let integer): return String(integer)
    case .number(let number):
        if let integer = Int64(exactly: number) { return String(integer) }
        return number.description
    case .decimal(let decimal): return decimal.description
    case .bool(let flag): return flag ? "true" : "false"
    case .url(let url): return url.absoluteString
    default: throw TransformerError("cannot use a \(value.kindName) as an identifier")
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self | 0x20)
    }
}
