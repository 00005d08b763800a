import FoundationEssentials
import RestMapSchema

/// Transformers every schema can use without a plugin; their names are unqualified.
public enum BuiltinTransformers: RestMapPlugin {
    public static let name = ""
    public static let version = "1"

    public static let transformers: [TransformerDefinition] = [
        TransformerDefinition(name: "trim", summary: "Removes leading and trailing whitespace.") { _ in
            StringTransformer { $0.trimmingWhitespaceAndNewlines() }
        },
        TransformerDefinition(name: "lowercase", summary: "Lowercases a string.") { _ in StringTransformer { $0.lowercased() } },
        TransformerDefinition(name: "uppercase", summary: "Uppercases a string.") { _ in StringTransformer { $0.uppercased() } },
        TransformerDefinition(name: "nullIfEmpty", summary: "An empty string becomes null.") { _ in NullIfEmpty() },
        TransformerDefinition(
            name: "replace", summary: "Replaces every occurrence of a text.",
            arguments: [ArgumentSpec("of", .string, required: true), ArgumentSpec("with", .string)]
        ) { arguments in
            let target = arguments["of"]?.stringValue ?? ""
            let replacement = arguments["with"]?.stringValue ?? ""
            guard !target.isEmpty else { throw TransformerError("'of' must not be empty") }
            return StringTransformer { $0.replacing(target, with: replacement) }
        },
        TransformerDefinition(
            name: "lookup", summary: "Maps values through a table; unknown values use 'otherwise' or fail.",
            arguments: [ArgumentSpec("values", .any, required: true), ArgumentSpec("otherwise", .any)]
        ) { arguments in
            guard case .object(let members)? = arguments["values"] else { throw TransformerError("'values' must be a mapping") }
            return Lookup(table: Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }),
                          otherwise: arguments["otherwise"])
        },
    ]
}

/// Applies a function to string values; other values pass through.
struct StringTransformer: ValueTransformer {
    let apply: @Sendable (String) -> String
    func transform(_ value: Value) throws -> Value {
        guard case .string(let string) = value else { return value }
        return .string(apply(string))
    }
}

struct NullIfEmpty: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        if case .string(let string) = value, string.isEmpty { return .null }
        return value
    }
}

struct Lookup: ValueTransformer {
    let table: [String: Value]
    let otherwise: Value?
    func transform(_ value: Value) throws -> Value {
        if value.isNull { return value }
        let key = ValueText.plain(value)
        if let mapped = table[key] { return mapped }
        if let otherwise { return otherwise }
        throw TransformerError("no entry for \(ValueText.short(value)) in the lookup table")
    }
    func reverseTransform(_ value: Value) throws -> Value {
        table.first { $0.value == value }.map { .string($0.key) } ?? value
    }
}
