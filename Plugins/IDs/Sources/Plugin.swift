import RestMapPluginKit

/// The `ids` plugin: normalizing identifiers (ObjectIds, integers, UUIDs, URL tails, composites).
public enum IDsPlugin: RestMapPlugin {
    public static let name = "ids"
    public static let version = "1.0.0"

    public static var transformers: [TransformerDefinition] {
        [
            TransformerDefinition(
                name: "oid", summary: "MongoDB id: {\"$oid\": …} (24 hex digits) or a plain string id",
                make: { _ in ObjectIDTransformer() }),
            TransformerDefinition(
                name: "integer", summary: "an exact 64-bit integer from a number or numeric string",
                make: { _ in IntegerTransformer() }),
            TransformerDefinition(
                name: "string", summary: "an identifier as a string (integral numbers without .0)",
                make: { _ in StringTransformer() }),
            TransformerDefinition(
                name: "uuid", summary: "a UUID in canonical lowercase form",
                make: { _ in UUIDTransformer() }),
            TransformerDefinition(
                name: "lastPathComponent", summary: "the last path segment of a URL (…/services/aaron → aaron)",
                make: { _ in LastPathComponentTransformer() }),
            TransformerDefinition(
                name: "prefix", summary: "prepends a prefix; the reverse strips it",
                arguments: [ArgumentSpec("prefix", .string, required: true, summary: "the text to prepend")],
                make: { arguments in
                    let reader = Arguments(arguments)
                    return PrefixTransformer(prefix: try reader.required("prefix", reader.string))
                }),
            TransformerDefinition(
                name: "composite", summary: "an object's members joined into one key",
                arguments: [
                    ArgumentSpec("keys", .strings, required: true, summary: "the members to join, in order"),
                    ArgumentSpec("separator", .string, summary: "between members (default \":\")"),
                ],
                make: { arguments in
                    let reader = Arguments(arguments)
                    let keys = try reader.required("keys", reader.strings)
                    guard !keys.isEmpty else { throw TransformerError("argument 'keys' must name at least one member") }
                    return CompositeTransformer(keys: keys, separator: try reader.string("separator") ?? ":")
                }),
        ]
    }
}
