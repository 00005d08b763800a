/// A path pattern such as `/databases/:databaseID/collections` (section 8).
///
/// Parameters are `:name` (letters, digits, `_`) or `{name}`; `\.` ends a name before a literal dot.
/// A parameter matches one or more characters up to the next literal text, never a `/`.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    public var components: [Component]
    public var text: String

    public var description: String { text }

    /// Parameter names in order of appearance.
    public var parameterNames: [String] {
        components.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Length of the literal text: more literal text is more specific.
    public var literalLength: Int {
        components.reduce(0) { if case .literal(let text) = $1 { $0 + text.count } else { $0 } }
    }

    /// Why a pattern is malformed, and at which character offset.
    public struct ParseError: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    public static func parse(_ text: String) throws(ParseError) -> PathPattern {
        guard text.hasPrefix("/") else {
            throw ParseError(message: "a path pattern starts with '/': '\(text)'", offset: 0)
        }
        let characters = Array(text)
        var components: [Component] = []
        var literal = ""
        var seen = Set<String>()
        var index = 0
        func isNameCharacter(_ c: Character) -> Bool { c == "_" || c.isASCII && (c.isLetter || c.isNumber) }
        func addParameter(_ name: String, at offset: Int) throws(ParseError) {
            guard !name.isEmpty else { throw ParseError(message: "a parameter needs a name after ':'", offset: offset) }
            guard seen.insert(name).inserted else {
                throw ParseError(message: "parameter ':\(name)' appears twice", offset: offset)
            }
            if case .parameter(let previous)? = components.last, literal.isEmpty {
                throw ParseError(message: "parameters ':\(previous)' and ':\(name)' need literal text between them", offset: offset)
            }
            if !literal.isEmpty { components.append(.literal(literal)); literal = "" }
            components.append(.parameter(name))
        }
        while index < characters.count {
            let c = characters[index]
            if c == "\\", index + 1 < characters.count {
                literal.append(characters[index + 1])
                index += 2
            } else if c == ":" {
                let start = index
                index += 1
                var name = ""
                while index < characters.count, isNameCharacter(characters[index]) { name.append(characters[index]); index += 1 }
                try addParameter(name, at: start)
            } else if c == "{" {
                let start = index
                guard let close = characters[index...].firstIndex(of: "}") else {
                    throw ParseError(message: "'{' without a closing '}'", offset: start)
                }
                let name = String(characters[(index + 1)..<close])
                guard name.allSatisfy(isNameCharacter) else {
                    throw ParseError(message: "'{\(name)}' is not a parameter name (letters, digits, '_')", offset: start)
                }
                try addParameter(name, at: start)
                index = close + 1
            } else if c == " " {
                throw ParseError(message: "a path pattern cannot contain spaces", offset: index)
            } else {
                literal.append(c)
                index += 1
            }
        }
        if !literal.isEmpty { components.append(.literal(literal)) }
        return PathPattern(components: components, text: text)
    }

    /// The parameters when `path` matches the whole pattern, else `nil`. The query string of
    /// `path`, if any, is ignored unless the pattern itself has one.
    public func match(_ path: Substring) -> [String: String]? {
        let hasQuery = text.contains("?")
        let subject = hasQuery ? path : (path.firstIndex(of: "?").map { path[..<$0] } ?? path)
        var parameters: [String: String] = [:]
        var rest = subject[...]
        var position = 0
        while position < components.count {
            switch components[position] {
            case .literal(let literal):
                guard rest.hasPrefix(literal) else { return nil }
                rest = rest.dropFirst(literal.count)
            case .parameter(let name):
                var end = rest.startIndex
                let next: String? = position + 1 < components.count ? {
                    if case .literal(let text) = components[position + 1] { return text } else { return nil }
                }() : nil
                while end < rest.endIndex, rest[end] != "/" {
                    if let next, rest[end...].hasPrefix(next) { break }
                    end = rest.index(after: end)
                }
                guard end > rest.startIndex else { return nil }
                parameters[name] = String(rest[..<end]).removingPercentEncodingIfValid
                rest = rest[end...]
            }
            position += 1
        }
        return rest.isEmpty ? parameters : nil
    }

    /// A missing interpolation value.
    public struct MissingParameter: Error, Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var pattern: String
        public var description: String { "no value for parameter ':\(name)' of '\(pattern)'" }
    }

    /// The path with each parameter replaced by `value(name)`, percent-escaped unless
    /// `escaping` is false (then a value may add path segments, so only use trusted values).
    public func interpolate(escaping: Bool = true, _ value: (String) -> String?) throws(MissingParameter) -> String {
        var path = ""
        for component in components {
            switch component {
            case .literal(let literal): path += literal
            case .parameter(let name):
                guard let raw = value(name) else { throw MissingParameter(name: name, pattern: text) }
                path += escaping ? Self.escape(raw) : raw
            }
        }
        return path
    }

    /// Percent-escapes everything but RFC 3986 unreserved characters.
    public static func escape(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }
}

package extension String {
    /// Percent-decoded, or unchanged when it is not valid percent-encoding.
    var removingPercentEncodingIfValid: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return self }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? self
    }
}
