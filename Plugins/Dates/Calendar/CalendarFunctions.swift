import Foundation
import Synchronization

// `librestmap-dates-calendar.so`: what the `dates` plugin needs from ICU, through Foundation's
// `DateFormatter` and `TimeZone` — Unicode date patterns (`dd.MM.yyyy HH:mm`) and named time
// zones (`Europe/Berlin`). Loading Foundation and ICU costs a process about 3 ms, so the plugin
// opens this library only when a schema names a pattern or a zone (`CalendarLibrary` in
// RestMapDates), and talks to it through these C functions: the two sides share no Swift type.
// Strings are UTF-8 C strings; a zone of "" is UTC.

/// Formatters made once per (pattern, zone, locale) and shared by every transformer in the
/// process; `DateFormatter` is not thread-safe, so every use holds the lock.
private let formatters = Mutex<[String: DateFormatter]>([:])
/// Zones by name, each made once and kept for the life of the process (handles point at them).
private let zones = Mutex<[String: Zone?]>([:])

private final class Zone: Sendable {
    let timeZone: TimeZone
    init(_ timeZone: TimeZone) { self.timeZone = timeZone }
}

private func zone(named name: String) -> TimeZone? {
    if name.isEmpty { return .gmt }
    return knownZone(named: name)?.timeZone
}

private func knownZone(named name: String) -> Zone? {
    zones.withLock { zones in
        if let known = zones[name] { return known }
        let zone = TimeZone(identifier: name).map(Zone.init)
        zones[name] = zone
        return zone
    }
}

private func withFormatter<Result>(_ pattern: String, _ zoneName: String, _ locale: String,
                                   _ body: (DateFormatter) -> Result) -> Result? {
    guard let timeZone = zone(named: zoneName) else { return nil }
    return formatters.withLock { formatters in
        let key = "\(pattern)\u{0}\(zoneName)\u{0}\(locale)"
        let formatter = formatters[key] ?? {
            let formatter = DateFormatter()
            formatter.calendar = Calendar(identifier: .gregorian)
            formatter.locale = Locale(identifier: locale)
            formatter.timeZone = timeZone
            formatter.dateFormat = pattern
            formatter.isLenient = false
            formatters[key] = formatter
            return formatter
        }()
        return body(formatter)
    }
}

/// A handle of the zone `name`, valid for the life of the process; `NULL` when no zone has that name.
@_cdecl("restmap_dates_calendar_zone")
public func restmapDatesCalendarZone(_ name: UnsafePointer<CChar>) -> UnsafeRawPointer? {
    knownZone(named: String(cString: name)).map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
}

/// The offset from UTC, in seconds, of the zone `handle` at the instant `seconds` (since 1970):
/// one call per date read in a named zone, without looking the zone up by name.
@_cdecl("restmap_dates_calendar_zone_offset")
public func restmapDatesCalendarZoneOffset(_ handle: UnsafeRawPointer, _ seconds: Double) -> Int32 {
    let zone = Unmanaged<Zone>.fromOpaque(handle).takeUnretainedValue()
    return Int32(zone.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
}

/// The instant (seconds since 1970) that `text` names in `pattern`, read in the zone `zoneName`
/// and `locale`, into `seconds`; `false` when the text does not match or the zone is unknown.
@_cdecl("restmap_dates_calendar_parse")
public func restmapDatesCalendarParse(_ pattern: UnsafePointer<CChar>, _ text: UnsafePointer<CChar>,
                                      _ zoneName: UnsafePointer<CChar>, _ locale: UnsafePointer<CChar>,
                                      _ seconds: UnsafeMutablePointer<Double>) -> Bool {
    let text = String(cString: text)
    guard let date = withFormatter(String(cString: pattern), String(cString: zoneName), String(cString: locale), { $0.date(from: text) }) ?? nil
    else { return false }
    seconds.pointee = date.timeIntervalSince1970
    return true
}

/// The text of the instant `seconds` in `pattern`, in the zone `zoneName` and `locale`, as a C
/// string the caller frees with `free`; `NULL` when the zone is unknown.
@_cdecl("restmap_dates_calendar_format")
public func restmapDatesCalendarFormat(_ pattern: UnsafePointer<CChar>, _ seconds: Double,
                                       _ zoneName: UnsafePointer<CChar>, _ locale: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>? {
    let date = Date(timeIntervalSince1970: seconds)
    guard let text = withFormatter(String(cString: pattern), String(cString: zoneName), String(cString: locale), { $0.string(from: date) })
    else { return nil }
    return strdup(text)
}
