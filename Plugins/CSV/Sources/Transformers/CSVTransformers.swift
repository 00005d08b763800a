import Foundation
import RestMapPluginKit

/// Splits text at a separator into trimmed strings (`"a, b"` → `["a", "b"]`; empty text → `[]`).
func splitList(_ text: String, separator: String) -> Value {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty { return .array([]) }
    return .array(trimmed.components(separatedBy: separator).map { .string($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
}

/// Joins an array's elements (strings and numbers) with a separator.
func joinList(_ value: Value, separator: String) throws(TransformerError) -> Value {
    guard case .array(let elements) = value else {
        if value.isNull { return .null }
        throw TransformerError("cannot join a \(value.kindName); expected an array")
    }
    var parts: [String] = []
    for element in elements {
        switch element {
        case .string(let text): parts.append(text)
        case .integer(let integer): parts.append(String(integer))
        case .number(let number): parts.append(Int64(exactly: number).map(String.init) ?? number.description)
        case .decimal(let decimal): parts.append(decimal.description)
        case .bool(let flag): parts.append(flag ? "true" : "false")
        default: throw TransformerError("cannot join an array holding a \(element.kindName)")
        }
    }
    return .string(parts.joined(separator: separator))
}

/// `csv.split`: text to an array of trimmed strings; the reverse joins.
struct SplitTransformer: ValueTransformer {
    let separator: String

    func transform(_ value: Value) throws -> Value {
        switch value {
        case .null, .array: return value
        case .string(let text): return splitList(text, separator: separator)
        default: throw TransformerError("cannot split a \(value.kindName); expected a string")
        }
    }

    func reverseTransform(_ value: Value) throws -> Value {
        try joinList(value, separator: separator)
    }
}

/// `csv.join`: an array to text; the reverse splits.
struct JoinTransformer: ValueTransformer {
    let separator: String

    func transform(_ value: Value) throws -> Value {
        try joinList(value, separator: separator)
    }

    func reverseTransform(_ value: Value) throws -> Value {
        guard case .string(let text) = value else { return value }
        return splitList(text, separator: separator)
    }
}

/// `csv.number`: formatted number text to an exact number: `"234,310"` → integer 234310,
/// `"1,234.5"` → decimal 1234.5. Numbers pass through; empty text is null.
struct NumberTransformer: ValueTransformer {
    let thousands: String
    let decimalSeparator: String

    func transform(_ value: Value) throws -> Value {
        switch value {
        case .null, .integer, .number, .decimal: return value
        case .string(let text): return try number(text)
        default: throw TransformerError("cannot read a \(value.kindName) as a number")
        }
    }

    private func number(_ text: String) throws(TransformerError) -> Value {
        var body = text.trimmingCharacters(in: .whitespaces)
        if body.isEmpty { return .null }
        var sign = ""
        if let first = body.first, first == "-" || first == "+" {
            sign = first == "-" ? "-" : ""
            body.removeFirst()
        }
        let halves = body.components(separatedBy: decimalSeparator)
        guard halves.count <= 2 else { throw TransformerError("'\(text)' is not a number") }
        let integerPart = thousands.isEmpty ? halves[0] : halves[0].replacingOccurrences(of: thousands, with: "")
        let fraction = halves.count == 2 ? halves[1] : nil
        guard !integerPart.isEmpty || fraction?.isEmpty == false,
              integerPart.allSatisfy(\.isASCIIDigit), fraction?.allSatisfy(\.isASCIIDigit) ?? true
        else { throw TransformerError("'\(text)' is not a number") }
        if fraction == nil || fraction?.isEmpty == true, let integer = Int64(sign + integerPart) {
            return .integer(integer)
        }
        let canonical = sign + (integerPart.isEmpty ? "0" : integerPart) + "." + (fraction.flatMap { $0.isEmpty ? nil : $0 } ?? "0")
        guard let decimal = Decimal(string: canonical, locale: nil) else { throw TransformerError("'\(text)' is not a number") }
        return .decimal(decimal)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
