import Foundation

/// Reading and writing `Value`s as JSON text: how arguments, arrays and objects cross the plugin
/// boundary, and what body decoders produce.
///
/// JSON has no date or URL type: dates are written as ISO 8601 UTC strings and URLs as strings.
/// When reading, an integer literal that fits 64 bits becomes `.integer`, any other number literal
/// `.decimal` (or `.number` when it has an exponent or more digits than a `Decimal` holds).
public enum JSONText {
    /// An error in JSON text: what was expected and the byte offset.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        /// The byte offset in the text.
        public var offset: Int
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Parses one JSON value from UTF-8 bytes; trailing non-whitespace is an error.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> Value {
        var reader = Reader(bytes: bytes)
        let value = try reader.readValue()
        reader.skipWhitespace()
        if reader.offset != bytes.count { throw reader.error("unexpected text after the value") }
        return value
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String) throws(SyntaxError) -> Value {
        var text = text
        do {
            return try text.withUTF8 { bytes in try parse(bytes) }
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw SyntaxError(message: "\(error)", offset: 0)
        }
    }

    /// The JSON text of a value.
    public static func string(from value: Value) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the JSON text of a value.
    public static func write(_ value: Value, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let integer): bytes.append(contentsOf: String(integer).utf8)
        case .number(let number):
            if number.isFinite {
                bytes.append(contentsOf: number.description.utf8)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .decimal(let decimal): bytes.append(contentsOf: decimal.description.utf8)
        case .string(let string): writeString(string, into: &bytes)
        case .date(let date): writeString(ISO8601Text.string(from: date.timeIntervalSince1970), into: &bytes)
        case .url(let url): writeString(url.absoluteString, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(member.value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a JSON string literal (quoted and escaped).
    public static func writeString(_ string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 { appendEscaped(byte, into: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes as a JSON string literal (quoted and escaped).
    public static func writeString<Bytes: Sequence<UInt8>>(utf8 string: Bytes, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string { appendEscaped(byte, into: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, into bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        default: bytes.append(byte)
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: offset) }

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func readValue() throws(SyntaxError) -> Value {
            skipWhitespace()
            guard offset < bytes.count else { throw error("expected a value") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try readObject()
            case UInt8(ascii: "["): return try readArray()
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            default: return try readNumber()
            }
        }

        mutating func expect(_ word: StaticString) throws(SyntaxError) {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count,
                  (0..<count).allSatisfy({ bytes[offset + $0] == word.utf8Start[$0] })
            else { throw error("expected '\(word)'") }
            offset += count
        }

        mutating func readObject() throws(SyntaxError) -> Value {
            offset += 1
            var members: [Value.Member] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try readString()
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':'") }
                offset += 1
                members.append(Value.Member(key: key, value: try readValue()))
                skipWhitespace()
                guard offset < bytes.count else { throw error("unterminated object") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func readArray() throws(SyntaxError) -> Value {
            offset += 1
            var elements: [Value] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
            while true {
                elements.append(try readValue())
                skipWhitespace()
                guard offset < bytes.count else { throw error("unterminated array") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
                throw error("expected ',' or ']'")
            }
        }

        mutating func readString() throws(SyntaxError) -> String {
            offset += 1
            var utf8: [UInt8] = []
            while offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { throw error("unterminated escape") }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "u"): try readUnicodeEscape(into: &utf8)
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    default: throw error("invalid escape")
                    }
                case 0..<0x20: throw error("control character in string")
                default: utf8.append(byte)
                }
            }
            throw error("unterminated string")
        }

        mutating func readHex4() throws(SyntaxError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw error("short \\u escape") }
            var scalar: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                offset += 1
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                scalar = scalar << 4 | digit
            }
            return scalar
        }

        mutating func readUnicodeEscape(into utf8: inout [UInt8]) throws(SyntaxError) {
            var scalar = try readHex4()
            if (0xD800..<0xDC00).contains(scalar), offset + 6 <= bytes.count,
               bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") {
                offset += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            utf8.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
        }

        mutating func readNumber() throws(SyntaxError) -> Value {
            let start = offset
            var isInteger = true
            var hasExponent = false
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let digitsStart = offset
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): break
                case UInt8(ascii: "."): isInteger = false
                case UInt8(ascii: "e"), UInt8(ascii: "E"): isInteger = false; hasExponent = true
                case UInt8(ascii: "+") where hasExponent, UInt8(ascii: "-") where hasExponent: break
                default:
                    guard offset > digitsStart else { throw error("expected a value") }
                    return try number(from: start, isInteger: isInteger, hasExponent: hasExponent)
                }
                offset += 1
            }
            guard offset > digitsStart else { throw error("expected a value") }
            return try number(from: start, isInteger: isInteger, hasExponent: hasExponent)
        }

        func number(from start: Int, isInteger: Bool, hasExponent: Bool) throws(SyntaxError) -> Value {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .integer(integer) }
            let significantDigits = text.utf8.lazy.filter { (0x30...0x39).contains($0) }.count
            if !hasExponent, significantDigits <= 38, let decimal = Decimal(string: text, locale: nil) {
                return .decimal(decimal)
            }
            guard let number = Double(text) else { throw SyntaxError(message: "invalid number", offset: start) }
            return .number(number)
        }
    }
}
