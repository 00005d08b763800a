import FoundationEssentials
import RestMap
import RestMapPluginKit

/// What the scalar values seen under one key suggest as an attribute type.
struct TypeGuess: Equatable {
    /// The attribute type (`integer`, `[string]`, `any`…).
    var type: String
    /// The guess needs the `dates` plugin.
    var needsDates = false
    /// A transformer step to read the value (`csv.number`).
    var transform: String?
    /// Why, when it is a guess worth a comment.
    var note: String?
}

/// Attribute types from sample values.
enum ValueKinds {
    /// The type of the non-null scalar values of one key (`key` helps spot epoch dates).
    static func guess(_ values: [Value], key: String, fromCSV: Bool = false) -> TypeGuess {
        guard !values.isEmpty else { return TypeGuess(type: "any", note: "always null in the samples: type unknown") }
        if values.allSatisfy({ if case .bool = $0 { true } else { false } }) { return TypeGuess(type: "boolean") }
        // CSV fields such as "234,310" (numbers without separators were already read as numbers).
        if fromCSV, values.contains(where: { $0.stringValue?.contains(",") == true }), values.allSatisfy({ value in
            if case .integer = value { return true }
            return value.stringValue?.wholeMatch(of: /-?\d{1,3}(,\d{3})+/) != nil
        }) {
            return TypeGuess(type: "integer", transform: "csv.number", note: "guessed: numbers with thousands separators")
        }
        if values.allSatisfy(isNumber) {
            if values.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                if looksLikeDateKey(key), let unit = epochUnit(values) {
                    return TypeGuess(type: "date", needsDates: true,
                                     transform: unit == "seconds" ? "dates.unix" : "{ dates.unix: { unit: milliseconds } }",
                                     note: "guessed: Unix timestamps in \(unit) under a date-like key")
                }
                return TypeGuess(type: "integer")
            }
            if values.contains(where: { if case .number = $0 { true } else { false } }) { return TypeGuess(type: "number") }
            return TypeGuess(type: "decimal", note: values.contains { if case .integer = $0 { true } else { false } }
                                ? "integers and fractions in the samples: decimal keeps both exact" : nil)
        }
        let strings = values.compactMap(\.stringValue)
        if strings.count == values.count {
            if strings.allSatisfy(isISO8601) {
                return TypeGuess(type: "date", needsDates: true, note: "guessed: ISO 8601 dates in the samples")
            }
            if strings.allSatisfy(isRFC1123) {
                return TypeGuess(type: "date", needsDates: true, note: "guessed: RFC 1123 dates in the samples")
            }
            if strings.allSatisfy(isURL) { return TypeGuess(type: "url") }
            // Prices and amounts sent as text ("3.50"): exact decimals; not versions ("2.1").
            if strings.allSatisfy({ $0.wholeMatch(of: /-?\d{1,30}(\.\d{1,30})?/) != nil }),
               strings.contains(where: { $0.contains(".") }), !looksLikeVersionKey(key) {
                return TypeGuess(type: "decimal", note: "guessed: decimal numbers written as text")
            }

            return TypeGuess(type: "string")
        }
        let kinds = Set(values.map(\.kindName)).sorted()
        return TypeGuess(type: "any", note: "mixed kinds in the samples (\(kinds.joined(separator: ", ")))")
    }

    /// The type of arrays of scalars: `[T]` when every element has one plain type, else `any`.
    static func guessArray(_ elements: [Value], key: String) -> TypeGuess {
        guard !elements.isEmpty else { return TypeGuess(type: "any", note: "always an empty list in the samples: element type unknown") }
        let element = guess(elements, key: key)
        guard ["string", "integer", "number", "decimal", "boolean"].contains(element.type) else {
            return TypeGuess(type: "any", note: "a list of mixed values in the samples")
        }
        return TypeGuess(type: "[\(element.type)]")
    }

    private static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .decimal, .number: true
        default: false
        }
    }

    /// `seconds` or `milliseconds` when every integer is a Unix timestamp between 2000 and 2100 in that unit.
    private static func epochUnit(_ values: [Value]) -> String? {
        let integers = values.compactMap { if case .integer(let integer) = $0 { integer } else { nil } }
        let seconds: ClosedRange<Int64> = 946_684_800...4_102_444_800
        if integers.allSatisfy(seconds.contains) { return "seconds" }
        if integers.allSatisfy({ seconds.contains($0 / 1000) }) { return "milliseconds" }
        return nil
    }

    private static func looksLikeVersionKey(_ key: String) -> Bool {
        Naming.words(key).contains { ["version", "ver", "release", "build", "revision", "semver"].contains($0.lowercased()) }
    }

    private static func looksLikeDateKey(_ key: String) -> Bool {
        let words = Naming.words(key).map { $0.lowercased() }
        guard let last = words.last else { return false }
        return ["at", "on", "date", "time", "timestamp", "created", "updated", "modified", "expires"].contains(last)
    }

    /// `2013-03-13`, `2013-03-13T18:10:21Z`, with optional fraction and offset.
    static func isISO8601(_ text: String) -> Bool {
        text.wholeMatch(of: /\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?/) != nil
    }

    /// `Wed, 13 Mar 2013 18:10:21 GMT`: an IMF-fixdate, exactly as HTTP writes it.
    static func isRFC1123(_ text: String) -> Bool {
        HTTPDate.seconds(from: text, forms: .imfFixdate) != nil
    }

    /// An absolute http(s) URL with a host and no spaces.
    static func isURL(_ text: String) -> Bool {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), !text.contains(" "),
              let url = URL(string: text), let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
