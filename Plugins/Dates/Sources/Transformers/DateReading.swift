import FoundationEssentials
import RestMapPluginKit

/// How a transformer reads a value as an instant: custom patterns first, then the default chain.
struct DateReading: Sendable {
    var chain: DateChain
    var patterns: [String]
    /// The locale of Unicode patterns.
    var localeIdentifier: String
    /// Where patterns are read and written: present when there are patterns.
    var calendar: CalendarLibrary.Functions?

    /// Reads zone, locale and patterns from `timeZone`, `locale` and `formats` arguments.
    init(_ arguments: Arguments, patternsArgument: String? = "formats") throws(TransformerError) {
        let zoneName = try arguments.string("timeZone") ?? "UTC"
        chain = zoneName == "UTC" || zoneName == "GMT" ? DateChain() : DateChain(zone: try NamedZone(zoneName))
        localeIdentifier = try arguments.string("locale") ?? "en_US_POSIX"
        patterns = try patternsArgument.flatMap { name throws(TransformerError) in try arguments.strings(name) } ?? []
        if !patterns.isEmpty { calendar = try CalendarLibrary.functions(for: "a Unicode date pattern") }
    }

    /// The zone patterns are read and written in, as the calendar library names it ("" for UTC).
    var zoneName: String { chain.zone?.name ?? "" }

    /// The text of `date` in `pattern`, with `calendar`.
    func text(of date: Date, pattern: String, calendar: CalendarLibrary.Functions) -> String {
        calendar.text(of: date.timeIntervalSince1970, pattern: pattern, zone: zoneName, locale: localeIdentifier) ?? ""
    }

    /// The instant a value names: `.null` for null and empty strings, the date itself for a date.
    func date(from value: Value) throws(TransformerError) -> Value {
        switch value {
        case .null, .date: return value
        case .integer(let integer): return .date(Date(timeIntervalSince1970: UnixTime.seconds(Double(integer), unit: nil)))
        case .number(let number): return .date(Date(timeIntervalSince1970: UnixTime.seconds(number, unit: nil)))
        case .decimal(let decimal):
            return .date(Date(timeIntervalSince1970: UnixTime.seconds(decimal.nearestDouble, unit: nil)))
        case .string(let text):
            if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .null }
            if let calendar {
                for pattern in patterns {
                    if let seconds = calendar.seconds(from: text, pattern: pattern, zone: zoneName, locale: localeIdentifier) {
                        return .date(Date(timeIntervalSince1970: seconds))
                    }
                }
            }
            if let seconds = chain.seconds(from: text) { return .date(Date(timeIntervalSince1970: seconds)) }
            let tried = patterns.isEmpty ? "" : " (tried formats \(patterns.map { "'\($0)'" }.joined(separator: ", ")) and the default chain)"
            throw TransformerError("cannot read '\(text)' as a date\(tried)")
        default:
            throw TransformerError("cannot read a \(value.kindName) as a date")
        }
    }
}
