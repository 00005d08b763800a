import RestMapPluginKit

/// The `csv` plugin: `text/csv` bodies and comma-separated values inside fields.
///
/// - body decoder `text/csv` (argument `delimiter`): a JSON array of objects keyed by the header.
/// - `csv.split`, `csv.join`: text ↔ array of trimmed strings.
/// - `csv.number`: formatted numbers (`234,310`, `1,234.5`) to exact numbers.
public enum CSVPlugin: RestMapPlugin {
    public static let name = "csv"
    public static let version = "1.0.0"

    private static let separatorArgument = ArgumentSpec("separator", .string, summary: "between items (default \",\")")

    public static var transformers: [TransformerDefinition] {
        [
            TransformerDefinition(
                name: "split", summary: "text to an array of trimmed strings", arguments: [separatorArgument],
                make: { arguments in SplitTransformer(separator: try separator(arguments)) }),
            TransformerDefinition(
                name: "join", summary: "an array to text (the reverse splits)", arguments: [separatorArgument],
                make: { arguments in JoinTransformer(separator: try separator(arguments)) }),
            TransformerDefinition(
                name: "number", summary: "formatted number text (234,310 or 1,234.5) to an exact number",
                arguments: [
                    ArgumentSpec("thousands", .string, summary: "the grouping separator (default \",\")"),
                    ArgumentSpec("decimal", .string, summary: "the decimal separator (default \".\")"),
                ],
                make: { arguments in
                    let reader = Arguments(arguments)
                    let decimal = try reader.string("decimal") ?? "."
                    guard !decimal.isEmpty else { throw TransformerError("argument 'decimal' must not be empty") }
                    return NumberTransformer(thousands: try reader.string("thousands") ?? ",", decimalSeparator: decimal)
                }),
        ]
    }

    public static var bodyDecoders: [BodyDecoderDefinition] {
        [
            BodyDecoderDefinition(
                mediaType: "text/csv",
                summary: "RFC 4180 CSV with a header row to a JSON array of objects (string values)",
                arguments: [ArgumentSpec("delimiter", .string, summary: "one ASCII character (default \",\")")],
                decode: { body, arguments in
                    let delimiter = try Arguments(arguments).string("delimiter") ?? ","
                    guard delimiter.utf8.count == 1, let byte = delimiter.utf8.first, byte < 0x80,
                          byte != UInt8(ascii: "\""), byte != 0x0A, byte != 0x0D
                    else { throw TransformerError("argument 'delimiter' must be one ASCII character other than a quote or line break") }
                    return try CSVReader(delimiter: byte).json(body)
                }),
        ]
    }

    private static func separator(_ arguments: [String: Value]) throws(TransformerError) -> String {
        let separator = try Arguments(arguments).string("separator") ?? ","
        guard !separator.isEmpty else { throw TransformerError("argument 'separator' must not be empty") }
        return separator
    }
}
