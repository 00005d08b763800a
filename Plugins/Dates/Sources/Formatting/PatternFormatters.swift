import Foundation
import Synchronization

/// Unicode date patterns (`dd.MM.yyyy HH:mm`) through `DateFormatter`, for the formats a schema
/// names. Formatters are made once per (pattern, zone, locale) and shared by every transformer in
/// the process; `DateFormatter` is not thread-safe, so every use holds the cache's lock.
public enum PatternFormatters {
    private static let cache = Mutex<[String: DateFormatter]>([:])

    /// The instant `text` names in `pattern`, or `nil`.
    public static func date(from text: String, pattern: String, timeZone: TimeZone, locale: Locale) -> Date? {
        cache.withLock { formatters in
            formatter(&formatters, pattern: pattern, timeZone: timeZone, locale: locale).date(from: text)
        }
    }

    /// The text of `date` in `pattern`.
    public static func string(from date: Date, pattern: String, timeZone: TimeZone, locale: Locale) -> String {
        cache.withLock { formatters in
            formatter(&formatters, pattern: pattern, timeZone: timeZone, locale: locale).string(from: date)
        }
    }

    private static func formatter(
        _ formatters: inout [String: DateFormatter], pattern: String, timeZone: TimeZone, locale: Locale
    ) -> DateFormatter {
        let key = "\(pattern)\u{0}\(timeZone.identifier)\u{0}\(locale.identifier)"
        if let formatter = formatters[key] { return formatter }
        let formatter = DateFormatter()
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        formatter.isLenient = false
        formatters[key] = formatter
        return formatter
    }
}
