import Foundation
import RestMapPluginKit

/// How a transformer reads a value as an instant: custom patterns first, then the default chain.
struct DateReading: Sendable {
    var chain: DateChain
    var patterns: [String]
    /// The locale of Unicode patterns; the `Locale` is made with a pattern's formatter, when one is used.
    var localeIdentifier: String

    /// Reads zone, locale and patterns from `timeZone`, `locale` and `formats` arguments.
    init(_ arguments: Arguments, patternsArgument: String? = "formats") throws(TransformerError) {
        let zoneName = try arguments.string("timeZone") ?? "UTC"
        if zoneName == "UTC" || zoneName == "GMT" {
            chain = DateChain()
        } else if let timeZone = TimeZone(identifier: zoneName) {
            chain = DateChain(timeZone: timeZone)
        } else {
            throw TransformerError("argument 'timeZone': unknown time zone '\(zoneName)'")
        }
        localeIdentifier = try arguments.string("locale") ?? "en_US_POSIX"
        patterns = try patternsArgument.flatMap { name throws(TransformerError) in try arguments.strings(name) } ?? []
    }

    /// The instant a value names: `.null` for null and empty strings, the date itself for a date.
    func date(from value: Value) throws(TransformerError) -> Value {
        switch value {
        case .null, .date: return value
        case .integer(let integer): return .date(Date(timeIntervalSince1970: UnixTime.seconds(Double(integer), unit: nil)))
        case .number(let number): return .date(Date(timeIntervalSince1970: UnixTime.seconds(number, unit: nil)))
        case .decimal(let decimal):
            return .date(Date(timeIntervalSince1970: UnixTime.seconds(NSDecimalNumber(decimal: decimal).doubleValue, unit: nil)))
        case .string(let text):
            if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return .null }
            for pattern in patterns {
                if let date = PatternFormatters.date(from: text, pattern: pattern, timeZone: chain.timeZone, localeIdentifier: localeIdentifier) {
                    return .date(date)
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
