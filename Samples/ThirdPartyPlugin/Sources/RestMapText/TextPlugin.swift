import Foundation
import RestMapPluginKit

/// The `text` plugin: `text.slug` and `text.reverse`.
public enum TextPlugin: RestMapPlugin {
    public static let name = "text"
    public static let version = "0.1.0"

    public static var transformers: [TransformerDefinition] {
        [
            TransformerDefinition(
                name: "slug", summary: "text to a URL slug (\"Hello, World!\" → hello-world)",
                arguments: [ArgumentSpec("separator", .string, summary: "between words (default \"-\")")],
                make: { arguments in SlugTransformer(separator: try Arguments(arguments).string("separator") ?? "-") }),
            TransformerDefinition(
                name: "reverse", summary: "the characters of a string in reverse order (both directions)",
                make: { _ in ReverseTransformer() }),
        ]
    }
}

struct SlugTransformer: ValueTransformer {
    let separator: String

    func transform(_ value: Value) throws -> Value {
        guard case .string(let text) = value else {
            if value.isNull { return .null }
            throw TransformerError("cannot slug a \(value.kindName)")
        }
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        let words = folded.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return .string(words.joined(separator: separator))
    }
}

struct ReverseTransformer: ValueTransformer {
    func transform(_ value: Value) throws -> Value {
        guard case .string(let text) = value else {
            if value.isNull { return .null }
            throw TransformerError("cannot reverse a \(value.kindName)")
        }
        return .string(String(text.reversed()))
    }

    func reverseTransform(_ value: Value) throws -> Value {
        try transform(value)
    }
}

/// The entry symbol of `librestmap-text.so`.
@_cdecl("restmap_plugin_entry_v1")
public func restmapPluginEntry() -> UnsafeRawPointer { exportPlugin(TextPlugin.self) }
