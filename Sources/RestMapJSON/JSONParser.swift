/// A one-pass, iterative (no recursion) RFC 8259 parser producing the tape.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0
    var tape: [TapeEntry] = []
    /// Open containers: tape index and whether it is an object.
    var stack: [(index: Int, isObject: Bool)] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        tape.reserveCapacity(bytes.count / 6 + 4)
    }

    mutating func parse() throws(JSONParseError) -> [TapeEntry] {
        skipWhitespace()
        if position == bytes.count { throw error("empty document", at: position) }
        try parseValue()
        while !stack.isEmpty {
            skipWhitespace()
            guard position < bytes.count else {
                throw error(stack.last!.isObject ? "unterminated object: expected ',' or '}'" : "unterminated array: expected ',' or ']'", at: position)
            }
            let byte = bytes[position]
            let top = stack[stack.count - 1]
            if byte == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                if top.isObject { try parseKey() }
                try parseValue()
            } else if byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                close()
            } else {
                throw error(top.isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", at: position)
            }
        }
        skipWhitespace()
        if position < bytes.count { throw error("unexpected text after the document", at: position) }
        return tape
    }

    private mutating func close() {
        let top = stack.removeLast()
        tape[top.index].end = UInt32(tape.count)
    }

    @inline(__always) private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// Parses an object key and the ':' after it.
    private mutating func parseKey() throws(JSONParseError) {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw error("expected a string key", at: position)
        }
        try parseString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw error("expected ':' after an object key", at: position)
        }
        position += 1
        skipWhitespace()
    }

    /// Parses one value; a container is opened (and closed at once when empty).
    private mutating func parseValue() throws(JSONParseError) {
        guard position < bytes.count else { throw error("expected a value", at: position) }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = byte == UInt8(ascii: "{")
            if stack.count >= maximumDepth { throw error("nesting deeper than \(maximumDepth) levels", at: position) }
            if let top = stack.last { tape[top.index].count += 1 }
            stack.append((tape.count, isObject))
            tape.append(TapeEntry(tag: isObject ? .object : .array, flag: false, start: UInt32(position), end: 0, count: 0))
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                close()
                return
            }
            if isObject { try parseKey() }
            try parseValue()
            return
        case UInt8(ascii: "\""):
            try parseString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        case UInt8(ascii: "t"):
            try literal("true", .true)
        case UInt8(ascii: "f"):
            try literal("false", .false)
        case UInt8(ascii: "n"):
            try literal("null", .null)
        default:
            throw error("expected a value, found \(describe(byte))", at: position)
        }
        // A scalar inside a container counts toward it.
        if let top = stack.last { tape[top.index].count += 1 }
    }

    private mutating func literal(_ word: StaticString, _ tag: TapeEntry.Tag) throws(JSONParseError) {
        let length = word.utf8CodeUnitCount
        guard position + length <= bytes.count,
              memcmp(bytes.baseAddress! + position, word.utf8Start, length) == 0 else {
            throw error("invalid literal: expected '\(word)'", at: position)
        }
        tape.append(TapeEntry(tag: tag, flag: false, start: UInt32(position), end: UInt32(position + length), count: 0))
        position += length
    }

    private mutating func parseNumber() throws(JSONParseError) {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in a number", at: position) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("a number cannot have leading zeros", at: position) }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit after '.'", at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in the exponent", at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        tape.append(TapeEntry(tag: .number, flag: isInteger, start: UInt32(start), end: UInt32(position), count: 0))
    }

    @inline(__always) private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Parses a string starting at its opening quote; validates escapes and UTF-8.
    private mutating func parseString() throws(JSONParseError) {
        position += 1
        let start = position
        var hasEscapes = false
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start - 1) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                position += 1
                guard position < bytes.count else { throw error("unterminated escape", at: position - 1) }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard position + 4 < bytes.count,
                          (1...4).allSatisfy({ JSONStrings.hexValue(bytes[position + $0]) != nil }) else {
                        throw error("invalid \\u escape: expected 4 hexadecimal digits", at: position - 1)
                    }
                    position += 5
                default:
                    throw error("invalid escape '\\\(describe(bytes[position]))'", at: position - 1)
                }
            } else if byte < 0x20 {
                throw error("control character \(describe(byte)) in a string must be escaped", at: position)
            } else if byte < 0x80 {
                position += 1
            } else {
                guard let width = JSONStrings.validUTF8Width(bytes, at: position) else {
                    throw error("invalid UTF-8 byte 0x\(String(byte, radix: 16, uppercase: true))", at: position)
                }
                position += width
            }
        }
        tape.append(TapeEntry(tag: .string, flag: hasEscapes, start: UInt32(start), end: UInt32(position), count: 0))
        position += 1
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func error(_ message: String, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return JSONParseError(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
