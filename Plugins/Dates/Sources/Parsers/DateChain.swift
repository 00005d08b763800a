import RestMapPluginKit

/// The default chain of `dates.parse`: every date form RestMap recognizes without configuration.
///
/// In order: ISO 8601 (and `yyyy-MM-dd`), RFC 1123, RFC 850, asctime, `MM/dd/yyyy`, then a Unix
/// timestamp in a numeric string (see `UnixTime` for the seconds/milliseconds rule). Text that
/// names no zone is read in `timeZone`.
public struct DateChain: Sendable {
    /// The zone of zone-less text; `nil` is UTC.
    let zone: NamedZone?

    /// A chain reading zone-less text in UTC.
    public init() {
        zone = nil
    }

    /// A chain reading zone-less text in `zone`.
    init(zone: NamedZone) {
        self.zone = zone
    }

    /// The instant a string names, or `nil`; surrounding whitespace is ignored.
    public func seconds(from text: String) -> Double? {
        var text = text
        return text.withUTF8 { seconds(fromUTF8: $0) }
    }

    /// The instant a string's UTF-8 names, or `nil`; surrounding whitespace is ignored.
    public func seconds(fromUTF8 all: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = 0, end = all.count
        while start < end, all[start] == 0x20 || all[start] == 0x09 { start += 1 }
        while end > start, all[end - 1] == 0x20 || all[end - 1] == 0x09 || all[end - 1] == 0x0A || all[end - 1] == 0x0D {
            end -= 1
        }
        let bytes = UnsafeBufferPointer(rebasing: all[start..<end])
        guard let first = bytes.first else { return nil }
        if first &- 0x30 < 10 {
            if let parsed = ISO8601Parser.parse(bytes) ?? HTTPDateParser.parseRFC1123(bytes)
                ?? HTTPDateParser.parseSlashDate(bytes) {
                return resolve(parsed)
            }
        } else if let parsed = HTTPDateParser.parseRFC1123(bytes) ?? HTTPDateParser.parseRFC850(bytes)
            ?? HTTPDateParser.parseAsctime(bytes) {
            return resolve(parsed)
        }
        return UnixTime.number(in: bytes).map { UnixTime.seconds($0, unit: nil) }
    }

    /// The instant of parsed fields, reading zone-less fields in `timeZone`.
    public func resolve(_ parsed: ParsedDateTime) -> Double {
        guard parsed.offsetSeconds == nil, let zone else {
            return parsed.utcSeconds
        }
        let local = parsed.localSeconds
        let guess = local - Double(zone.offset(at: local))
        return local - Double(zone.offset(at: guess))
    }
}

/// A time zone named by the tz database (`Europe/Berlin`), its offsets from the calendar library.
struct NamedZone: @unchecked Sendable {
    let name: String
    private let calendar: CalendarLibrary.Functions
    /// The calendar library's zone, immutable and kept for the life of the process.
    private let handle: UnsafeRawPointer

    /// The zone `name`, or why it cannot be used: the calendar library is missing, or no zone has that name.
    init(_ name: String) throws(TransformerError) {
        calendar = try CalendarLibrary.functions(for: "the time zone '\(name)'")
        guard let handle = calendar.zone(named: name) else {
            throw TransformerError("argument 'timeZone': unknown time zone '\(name)'")
        }
        self.name = name
        self.handle = handle
    }

    /// The offset from UTC, in seconds, at `seconds` since 1970.
    func offset(at seconds: Double) -> Int {
        calendar.offset(ofZone: handle, at: seconds)
    }
}
