import RestMapPluginKit

/// Hand-written parsers for the three HTTP date forms (RFC 9110 §5.6.7) and US `MM/dd/yyyy`.
public enum HTTPDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let zones = ["gmt", "utc", "ut", "z"]

    /// RFC 1123: `Wed, 13 Mar 2013 18:10:21 GMT` (zone `GMT`, `UTC`, `Z` or `±HHmm`; weekday optional).
    public static func parseRFC1123(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        var cursor = ByteCursor(bytes)
        if cursor.peek.map({ $0 &- 0x30 >= 10 }) == true {
            guard cursor.word(in: shortDays) != nil, cursor.take(UInt8(ascii: ",")), cursor.spaces() else { return nil }
        }
        guard let day = cursor.digits(minimum: 1, maximum: 2), cursor.spaces(),
              let month = cursor.word(in: months).map({ Int64($0 + 1) }), cursor.spaces(),
              let year = cursor.digits(4), cursor.spaces()
        else { return nil }
        return finish(&cursor, year: year, month: month, day: day)
    }

    /// RFC 850: `Wednesday, 13-Mar-13 18:10:21 GMT`. Two-digit years below 70 are 20xx, others 19xx.
    public static func parseRFC850(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        var cursor = ByteCursor(bytes)
        guard cursor.word(in: longDays) != nil, cursor.take(UInt8(ascii: ",")), cursor.spaces(),
              let day = cursor.digits(2), cursor.take(UInt8(ascii: "-")),
              let month = cursor.word(in: months).map({ Int64($0 + 1) }), cursor.take(UInt8(ascii: "-")),
              let shortYear = cursor.digits(2), cursor.spaces()
        else { return nil }
        return finish(&cursor, year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day)
    }

    /// C `asctime`: `Wed Mar 13 18:10:21 2013` (the day may be space-padded: `Mar  3`); UTC.
    public static func parseAsctime(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDateTime? {
        var cursor = ByteCursor(bytes)
        guard cursor.word(in: shortDays) != nil, cursor.spaces(),
              let month = cursor.word(in: months).map({ Int64($0 + 1) }), cursor.spaces(),
              let day = cursor.digits(minimum: 1, maximum: 2), cursor.spaces(),
              let time = time(&cursor), cursor.spaces(),
              let year = cursor.digits(4), cursor.isAtEnd,
              valid(year: year, month: month, day: day)
        else { return nil }
        let local = CivilDate.days(year: year, month: month, day: day) * 86_400 + time
        return ParsedDateTime(localSeconds: Double(local), offsetSeconds: 0)
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

    /// The RFC 1123 text of an instant: `Wed, 13 Mar 2013 18:10:21 GMT`.
    public static func rfc1123String(fromSeconds seconds: Double) -> String {
        let whole = Int64(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        bytes.append(contentsOf: weekdayNames[Int((days % 7 + 7) % 7)].utf8)
        bytes.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")])
        appendDigits(day, 2, &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: monthNames[Int(month - 1)].utf8)
        bytes.append(UInt8(ascii: " "))
        appendDigits(year, 4, &bytes)
        bytes.append(UInt8(ascii: " "))
        appendDigits(secondOfDay / 3600, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, 2, &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, 2, &bytes)
        bytes.append(contentsOf: " GMT".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Day 0 (1970-01-01) was a Thursday.
    private static let weekdayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func appendDigits(_ number: Int64, _ width: Int, _ bytes: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = number.magnitude
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, width - digits.count)))
        bytes.append(contentsOf: digits.reversed())
    }

    private static func valid(year: Int64, month: Int64, day: Int64) -> Bool {
        (1...12).contains(month) && day >= 1 && day <= CivilDate.daysInMonth(year: year, month: month)
    }

    /// `HH:mm:ss` as seconds of the day.
    private static func time(_ cursor: inout ByteCursor) -> Int64? {
        guard let hour = cursor.digits(2), cursor.take(UInt8(ascii: ":")),
              let minute = cursor.digits(2), cursor.take(UInt8(ascii: ":")),
              let second = cursor.digits(2), hour < 24, minute < 60, second < 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// The time and zone that end RFC 1123 and RFC 850 dates.
    private static func finish(_ cursor: inout ByteCursor, year: Int64, month: Int64, day: Int64) -> ParsedDateTime? {
        guard valid(year: year, month: month, day: day), let time = time(&cursor), cursor.spaces() else { return nil }
        let offset: Int64
        if let sign = cursor.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            cursor.offset += 1
            guard let hours = cursor.digits(2), let minutes = cursor.digits(2), hours < 24, minutes < 60 else { return nil }
            offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        } else {
            guard cursor.word(in: zones) != nil else { return nil }
            offset = 0
        }
        guard cursor.isAtEnd else { return nil }
        let local = CivilDate.days(year: year, month: month, day: day) * 86_400 + time
        return ParsedDateTime(localSeconds: Double(local), offsetSeconds: offset)
    }
}
