import RestMapPluginKit

/// The HTTP date forms (RFC 9110 §5.6.7) as the dates plugin reads them, and US `MM/dd/yyyy`.
///
/// The HTTP forms are `HTTPDate`'s lenient syntax: names in any case, runs of spaces, a one-digit
/// day, and zones `GMT`, `UTC`, `UT`, `Z` or `±HHmm`.
public enum HTTPDateParser {
    /// RFC 1123: `Wed, 13 Mar 2013 18:10:21 GMT` (zone `GMT`, `UTC`, `Z` or `±HHmm`; weekday optional).
    public static func parseRFC1123(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        parsed(HTTPDate.seconds(fromUTF8: bytes, forms: .imfFixdate, syntax: .lenient))
    }

    /// RFC 850: `Wednesday, 13-Mar-13 18:10:21 GMT`. Two-digit years below 70 are 20xx, others 19xx.
    public static func parseRFC850(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        parsed(HTTPDate.seconds(fromUTF8: bytes, forms: .rfc850, syntax: .lenient))
    }

    /// C `asctime`: `Wed Mar 13 18:10:21 2013` (the day may be space-padded: `Mar  3`); UTC.
    public static func parseAsctime(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        parsed(HTTPDate.seconds(fromUTF8: bytes, forms: .asctime, syntax: .lenient))
    }

    private static func parsed(_ seconds: Int64?) -> ParsedDateTime? {
        seconds.map { ParsedDateTime(localSeconds: Double($0), offsetSeconds: 0) }
    }

    /// US dates: `MM/dd/yyyy` (one or two digits for month and day), midnight with no zone.
    public static func parseSlashDate(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        var cursor = ByteCursor(bytes)
        guard let month = cursor.digits(minimum: 1, maximum: 2), cursor.take(UInt8(ascii: "/")),
              let day = cursor.digits(minimum: 1, maximum: 2), cursor.take(UInt8(ascii: "/")),
              let year = cursor.digits(4), cursor.isAtEnd, valid(year: year, month: month, day: day)
        else { return nil }
        return ParsedDateTime(localSeconds: Double(CivilDate.days(year: year, month: month, day: day) * 86_400), offsetSeconds: nil)
    }

    /// The RFC 1123 text (IMF-fixdate) of an instant: `Wed, 13 Mar 2013 18:10:21 GMT`; the
    /// fraction of a second is dropped.
    public static func rfc1123String(fromSeconds seconds: Double) -> String {
        HTTPDate.string(fromSeconds: Int64(seconds.rounded(.down)))
    }

    private static func valid(year: Int64, month: Int64, day: Int64) -> Bool {
        (1...12).contains(month) && day >= 1 && day <= CivilDate.daysInMonth(year: year, month: month)
    }
}
