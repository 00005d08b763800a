import RestMapPluginKit

/// The fields of a parsed date-time: an instant in some zone.
public struct ParsedDateTime: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00 of the wall-clock time (fraction included).
    public var localSeconds: Double
    /// The UTC offset the text gave, in seconds; `nil` when the text names no zone.
    public var offsetSeconds: Int64?

    /// The instant in seconds since 1970, reading a zone-less time in UTC.
    public var utcSeconds: Double { localSeconds - Double(offsetSeconds ?? 0) }
}

/// A hand-written ISO 8601 / RFC 3339 parser over bytes (no formatter).
///
/// Accepts `yyyy-MM-dd` and `yyyy-MM-dd'T'HH:mm[:ss[.fraction]][zone]`, where `T` may also be `t`
/// or a space, the fraction separator `.` or `,`, and the zone `Z`, `z`, `±HH`, `±HHmm` or
/// `±HH:mm`. Fields are range-checked (month 1–12, day within the month, hour 0–23, minute and
/// second 0–59).
public enum ISO8601Parser {
    /// Parses ISO 8601 text; `nil` if it is not ISO 8601.
    public static func parse(_ text: String) -> ParsedDateTime? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// Parses ISO 8601 UTF-8 bytes; `nil` if they are not ISO 8601.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        var cursor = ByteCursor(bytes)
        guard let year = cursor.digits(4), cursor.take(UInt8(ascii: "-")),
              let month = cursor.digits(2), cursor.take(UInt8(ascii: "-")),
              let day = cursor.digits(2),
              (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month)
        else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        if cursor.isAtEnd { return ParsedDateTime(localSeconds: Double(days * 86_400), offsetSeconds: nil) }

        guard let separator = cursor.peek,
              separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ")
        else { return nil }
        cursor.offset += 1
        guard let hour = cursor.digits(2), cursor.take(UInt8(ascii: ":")), let minute = cursor.digits(2),
              hour < 24, minute < 60
        else { return nil }
        var second: Int64 = 0
        var fraction = 0.0
        if cursor.take(UInt8(ascii: ":")) {
            guard let parsed = cursor.digits(2), parsed < 60 else { return nil }
            second = parsed
            if cursor.take(UInt8(ascii: ".")) || cursor.take(UInt8(ascii: ",")) {
                var scale = 0.1
                var count = 0
                while let byte = cursor.peek, byte &- 0x30 < 10 {
                    fraction += Double(byte &- 0x30) * scale
                    scale /= 10
                    count += 1
                    cursor.offset += 1
                }
                guard count > 0 else { return nil }
            }
        }
        let local = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        guard let zone = cursor.peek else { return ParsedDateTime(localSeconds: local, offsetSeconds: nil) }
        cursor.offset += 1
        let offset: Int64
        switch zone {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            offset = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHours = cursor.digits(2), offsetHours < 24 else { return nil }
            var offsetMinutes: Int64 = 0
            if !cursor.isAtEnd {
                _ = cursor.take(UInt8(ascii: ":"))
                guard let parsed = cursor.digits(2), parsed < 60 else { return nil }
                offsetMinutes = parsed
            }
            offset = (zone == UInt8(ascii: "-") ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard cursor.isAtEnd else { return nil }
        return ParsedDateTime(localSeconds: local, offsetSeconds: offset)
    }
}
