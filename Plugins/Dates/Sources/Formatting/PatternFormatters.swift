import Foundation
import Synchronization

/// Unicode date patterns (`dd.MM.yyyy HH:mm`) through `DateFormatter`, for the formats a schema
/// names. Formatters are made once per (pattern, zone, locale) and shared by every transformer in
/// the process; `DateFormatter` is not thread-safe, so every use holds the cache's lock.
public enum PatternFormatters {
    private static let cache = Mutex<[String: DateFormatter]>([:])

    /// The instant `text` names in `pattern` read in `timeZone` (`nil`: UTC), or `nil`.
    public static func date(from text: String, pattern: String, timeZone: TimeZone?, localeIdentifier: String) -> Date? {
        cache.withLock { formatters in
            formatter(&formatters, pattern: pattern, timeZone: timeZone, localeIdentifier: localeIdentifier).date(from: text)
        }
    }

    /// The text of `date` in `pattern` in `timeZone` (`nil`: UTC).
    public static func string(from date: Date, pattern: String, timeZone: TimeZone?, localeIdentifier: String) -> String {
        cache.withLock { formatters in
            formatter(&formatters, pattern: pattern, timeZone: timeZone, localeIdentifier: localeIdentifier).string(from: date)
        }
    }

    private static func formatter(
        _ formatters: inout [String: DateFormatter], pattern: String, timeZone: TimeZone?, localeIdentifier: String
    ) -> DateFormatter {
        let timeZone = timeZone ?? .gmt
        let key = "\(pattern)\u{0}\(timeZone.identifier)\u{0}\(localeIdentifier)"
        if let formatter = formatters[key] { return formatter }
        let formatter = DateFormatter()
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.locale = Locale(identifier: localeIdentifier)
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        formatter.isLenient = false
        formatters[key] = formatter
        return formatter
    }
}
