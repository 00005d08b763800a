import RestMapPluginKit

/// The `dates` plugin: reading and writing dates in every common web format.
///
/// - `dates.parse` — no arguments: the default chain (see `DateChain`); with `formats`, those
///   Unicode patterns first. Reverse: ISO 8601 UTC text (or the first format).
/// - `dates.format` — a date to text in a pattern (the request direction, and also when mapping).
/// - `dates.rfc1123`, `dates.iso8601`, `dates.unix` — one form each, both directions.
public enum DatesPlugin: RestMapPlugin {
    public static let name = "dates"
    public static let version = "1.0.0"

    private static let zoneArgument = ArgumentSpec("timeZone", .string, summary: "zone of text without one (default UTC)")
    private static let localeArgument = ArgumentSpec("locale", .string, summary: "locale of patterns (default en_US_POSIX)")

    public static var transformers: [TransformerDefinition] {
        [
            TransformerDefinition(
                name: "parse",
                summary: "date text or Unix timestamp to a date (ISO 8601, RFC 1123/850, asctime, MM/dd/yyyy, seconds/ms)",
                arguments: [
                    ArgumentSpec("formats", .strings, summary: "Unicode date patterns tried before the default chain"),
                    zoneArgument, localeArgument,
                ],
                make: { arguments in ParseTransformer(reading: try DateReading(Arguments(arguments))) }),
            TransformerDefinition(
                name: "format",
                summary: "a date to text in a Unicode pattern",
                arguments: [
                    ArgumentSpec("format", .string, required: true, summary: "the Unicode date pattern"),
                    zoneArgument, localeArgument,
                ],
                make: { arguments in
                    let reader = Arguments(arguments)
                    return try FormatTransformer(
                        reading: try DateReading(reader, patternsArgument: nil),
                        pattern: try reader.required("format", reader.string))
                }),
            TransformerDefinition(
                name: "rfc1123", summary: "RFC 1123 text (Wed, 13 Mar 2013 18:10:21 GMT) to a date and back",
                make: { _ in RFC1123Transformer() }),
            TransformerDefinition(
                name: "iso8601", summary: "ISO 8601 text to a date and back (UTC)",
                make: { _ in ISO8601Transformer() }),
            TransformerDefinition(
                name: "unix",
                summary: "a Unix timestamp to a date and back",
                arguments: [ArgumentSpec("unit", .string, summary: "seconds or milliseconds (default: by magnitude)")],
                make: { arguments in
                    let unitName = try Arguments(arguments).string("unit")
                    guard let unitName else { return UnixTransformer(unit: nil) }
                    guard let unit = UnixTime.Unit(rawValue: unitName) else {
                        throw TransformerError("argument 'unit' must be 'seconds' or 'milliseconds', found '\(unitName)'")
                    }
                    return UnixTransformer(unit: unit)
                }),
        ]
    }
}
