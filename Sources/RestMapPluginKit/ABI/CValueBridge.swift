import CRestMapPluginABI
import FoundationEssentials
import Glibc

/// Conversions between `Value` and the ABI's `restmap_value`, used on both sides of the boundary.
///
/// Scalars cross in the tagged struct; arrays and objects cross as JSON text (see `JSONText`).
package enum CValueBridge {
    /// Calls `body` with a C view of `value`. Its text borrows the value's storage: valid only
    /// during the call.
    @inlinable
    package static func withCValue<Result>(
        _ value: Value, _ body: (UnsafePointer<restmap_value>) throws -> Result
    ) rethrows -> Result {
        var c = restmap_value()
        switch value {
        case .null: c.kind = RESTMAP_VALUE_NULL.rawValue
        case .bool(let flag): c.kind = RESTMAP_VALUE_BOOL.rawValue; c.boolean = flag ? 1 : 0
        case .integer(let integer): c.kind = RESTMAP_VALUE_INT64.rawValue; c.integer = integer
        case .number(let number): c.kind = RESTMAP_VALUE_DOUBLE.rawValue; c.number = number
        case .date(let date): c.kind = RESTMAP_VALUE_DATE.rawValue; c.number = date.timeIntervalSince1970
        case .decimal(let decimal): return try withText(decimal.description, RESTMAP_VALUE_DECIMAL, body)
        case .string(let string): return try withText(string, RESTMAP_VALUE_STRING, body)
        case .url(let url): return try withText(url.absoluteString, RESTMAP_VALUE_URL, body)
        case .array, .object: return try withText(JSONText.string(from: value), RESTMAP_VALUE_JSON, body)
        }
        return try withUnsafePointer(to: &c, body)
    }

    @inlinable
    package static func withText<Result>(
        _ text: String, _ kind: restmap_value_kind, _ body: (UnsafePointer<restmap_value>) throws -> Result
    ) rethrows -> Result {
        var text = text
        return try text.withUTF8 { utf8 in
            var c = restmap_value()
            c.kind = kind.rawValue
            c.text = UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self)
            c.length = utf8.count
            return try withUnsafePointer(to: &c, body)
        }
    }

    /// The value a C value describes; its text is copied.
    @inlinable
    package static func value(from c: restmap_value) throws(TransformerError) -> Value {
        switch restmap_value_kind(rawValue: c.kind) {
        case RESTMAP_VALUE_NULL: return .null
        case RESTMAP_VALUE_BOOL: return .bool(c.boolean != 0)
        case RESTMAP_VALUE_INT64: return .integer(c.integer)
        case RESTMAP_VALUE_DOUBLE: return .number(c.number)
        case RESTMAP_VALUE_DATE: return .date(Date(timeIntervalSince1970: c.number))
        case RESTMAP_VALUE_STRING: return .string(text(of: c))
        case RESTMAP_VALUE_DECIMAL:
            // The whole text must be one number: Foundation's parser would read "12abc" as 12.
            let decimalText = text(of: c)
            guard let number = NumberText(decimalText), case .success(let decimal) = number.decimal() else {
                throw TransformerError("invalid decimal text '\(NumberText.short(decimalText))'")
            }
            return .decimal(decimal)
        case RESTMAP_VALUE_URL:
            guard let url = URL(string: text(of: c)) else { throw TransformerError("invalid URL '\(text(of: c))'") }
            return .url(url)
        case RESTMAP_VALUE_JSON:
            do {
                let buffer = UnsafeBufferPointer(
                    start: UnsafeRawPointer(c.text)?.assumingMemoryBound(to: UInt8.self), count: c.length)
                return try JSONText.parse(buffer)
            } catch {
                throw TransformerError("\(error)")
            }
        default: throw TransformerError("unknown value kind \(c.kind)")
        }
    }

    /// Fills `output` with `value`; its text is allocated with `malloc` (release it with `free`).
    @inlinable
    package static func fill(_ output: UnsafeMutablePointer<restmap_value>, with value: Value) {
        withCValue(value) { borrowed in
            var owned = borrowed.pointee
            if owned.length > 0, let text = owned.text {
                let copy = malloc(owned.length)!
                copy.copyMemory(from: text, byteCount: owned.length)
                owned.text = UnsafePointer(copy.assumingMemoryBound(to: CChar.self))
            } else {
                owned.text = nil
            }
            output.pointee = owned
        }
    }

    /// A malloc'ed buffer holding a copy of `bytes` (release it with `free`).
    package static func buffer<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> restmap_buffer {
        guard !bytes.isEmpty else { return restmap_buffer(bytes: nil, length: 0) }
        let copy = malloc(bytes.count)!.assumingMemoryBound(to: UInt8.self)
        _ = UnsafeMutableBufferPointer(start: copy, count: bytes.count).initialize(from: bytes)
        return restmap_buffer(bytes: UnsafeMutableRawPointer(copy).assumingMemoryBound(to: CChar.self), length: bytes.count)
    }

    /// The string a buffer holds (copied).
    package static func string(from buffer: restmap_buffer) -> String {
        guard let bytes = buffer.bytes else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: buffer.length), as: UTF8.self)
    }

    @inlinable
    package static func text(of c: restmap_value) -> String {
        guard let text = c.text else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: c.length), as: UTF8.self)
    }

    /// The arguments object a JSON text holds.
    package static func arguments(fromJSON bytes: UnsafePointer<CChar>?, length: Int) throws(TransformerError) -> [String: Value] {
        guard let bytes, length > 0 else { return [:] }
        let parsed: Value
        do {
            parsed = try JSONText.parse(UnsafeBufferPointer(
                start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length))
        } catch {
            throw TransformerError("arguments: \(error)")
        }
        guard case .object(let members) = parsed else { throw TransformerError("arguments must be a JSON object") }
        var arguments: [String: Value] = [:]
        for member in members { arguments[member.key] = member.value }
        return arguments
    }

    /// The JSON text of an arguments dictionary (keys sorted).
    package static func json(fromArguments arguments: [String: Value]) -> String {
        JSONText.string(from: .object(arguments.sorted { $0.key < $1.key }.map { Value.Member(key: $0.key, value: $0.value) }))
    }
}

extension ArgumentSpec.Kind {
    /// The ABI's code for this kind (`restmap_argument_kind`).
    package var abiCode: UInt32 {
        switch self {
        case .string: RESTMAP_ARGUMENT_STRING.rawValue
        case .strings: RESTMAP_ARGUMENT_STRINGS.rawValue
        case .integer: RESTMAP_ARGUMENT_INTEGER.rawValue
        case .number: RESTMAP_ARGUMENT_NUMBER.rawValue
        case .boolean: RESTMAP_ARGUMENT_BOOLEAN.rawValue
        case .any: RESTMAP_ARGUMENT_ANY.rawValue
        }
    }

    /// The kind an ABI code names; unknown codes read as `.any`.
    package init(abiCode: UInt32) {
        switch restmap_argument_kind(rawValue: abiCode) {
        case RESTMAP_ARGUMENT_STRING: self = .string
        case RESTMAP_ARGUMENT_STRINGS: self = .strings
        case RESTMAP_ARGUMENT_INTEGER: self = .integer
        case RESTMAP_ARGUMENT_NUMBER: self = .number
        case RESTMAP_ARGUMENT_BOOLEAN: self = .boolean
        default: self = .any
        }
    }
}
