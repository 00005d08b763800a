/// A node of a loaded schema document (YAML or JSON) that keeps its source position.
///
/// Scalars keep their text and whether they were quoted: a quoted scalar is always a string,
/// a plain one is typed by the YAML 1.2 core schema (`null`, `true`, `12`, `1.5`, else a string),
/// so `yes` and `no` stay strings.
public struct SchemaNode: Sendable, Hashable {
    public indirect enum Content: Sendable, Hashable {
        case scalar(String, quoted: Bool)
        case sequence([SchemaNode])
        case mapping([Pair])
    }

    /// One key/value entry of a mapping, in source order.
    public struct Pair: Sendable, Hashable {
        public var key: SchemaNode
        public var value: SchemaNode
    }

    public var content: Content
    public var location: SourceLocation
    /// Number of nodes in this subtree, aliases expanded: bounds the work of walking it.
    public var size: Int

    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
        switch content {
        case .scalar: size = 1
        case .sequence(let items): size = items.reduce(1) { $0 + $1.size }
        case .mapping(let pairs): size = pairs.reduce(1) { $0 + $1.key.size + $1.value.size }
        }
    }

    // MARK: Reading

    /// The kind of node, as messages name it.
    public var kindName: String {
        switch content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let text, let quoted):
            if quoted { return "a string" }
            if isNull { return "null" }
            if boolValue != nil { return "a boolean" }
            if intValue != nil { return "an integer" }
            if Self.decimalNumber(text) != nil { return "a number" }
            return "a string"
        }
    }

    /// The scalar's text, whatever its type; `nil` for lists and mappings.
    public var scalarText: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// The text of a scalar that reads as a string (quoted, or plain and not null/bool/number).
    public var stringValue: String? {
        guard case .scalar(let text, let quoted) = content else { return nil }
        if quoted { return text }
        return isNull || boolValue != nil || intValue != nil || Self.decimalNumber(text) != nil ? nil : text
    }

    /// `true` for a plain `null`, `~` or empty scalar.
    public var isNull: Bool {
        guard case .scalar(let text, false) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// The value of a plain `true`/`false` scalar.
    public var boolValue: Bool? {
        guard case .scalar(let text, false) = content else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// The value of a plain integer scalar.
    public var intValue: Int? {
        guard case .scalar(let text, false) = content else { return nil }
        return Int(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    /// The value of a plain number scalar (integers included).
    public var numberValue: Double? {
        guard case .scalar(let text, false) = content, !isNull, boolValue == nil else { return nil }
        return Self.decimalNumber(text)
    }

    /// The value of text that is one decimal number and nothing else (`12`, `-1.5`, `2e3`), as
    /// mapping reads numbers; `Double(_:)` alone would also take `0x10`, `inf` and `nan`.
    static func decimalNumber(_ text: String) -> Double? {
        var bytes = Substring(text).utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let integerDigits = bytes.prefix(while: isDigit).count
        bytes = bytes.dropFirst(integerDigits)
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fractionDigits = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(fractionDigits)
        }
        guard integerDigits + fractionDigits > 0 else { return nil }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix(while: isDigit).count
            guard exponentDigits > 0 else { return nil }
            bytes = bytes.dropFirst(exponentDigits)
        }
        return bytes.isEmpty ? Double(text) : nil
    }

    /// The items of a list.
    public var sequence: [SchemaNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// The entries of a mapping.
    public var mapping: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The value under a key of a mapping (keys compared as text).
    public subscript(key: String) -> SchemaNode? {
        mapping?.first { $0.key.scalarText == key }?.value
    }

    /// The location of a string's first character: one column after an opening quote.
    public var textLocation: SourceLocation {
        if case .scalar(_, true) = content { return location.advanced(by: 1) }
        return location
    }
}
