import FoundationEssentials

/// HTTP-dates (RFC 9110 section 5.6.7) without a formatter: writes IMF-fixdate and reads
/// IMF-fixdate and the two obsolete forms that recipients must still accept.
///
/// | Form | Example |
/// |---|---|
/// | IMF-fixdate | `Sun, 06 Nov 1994 08:49:37 GMT` |
/// | RFC 850 | `Sunday, 06-Nov-94 08:49:37 GMT` |
/// | asctime | `Sun Nov  6 08:49:37 1994` |
///
/// ```swift
/// HTTPDate.string(fromSeconds: 784_111_777)                      // "Sun, 06 Nov 1994 08:49:37 GMT"
/// HTTPDate.seconds(from: "Sunday, 06-Nov-94 08:49:37 GMT")        // 784_111_777
/// HTTPDate.seconds(from: "sun, 6 nov 1994 08:49:37 utc")          // nil
/// HTTPDate.seconds(from: "sun, 6 nov 1994 08:49:37 utc", syntax: .lenient)   // 784_111_777
/// ```
///
/// Instants are whole seconds since 1970-01-01T00:00:00Z. Parsing checks that the day exists in
/// its month and that the time is within 00:00:00…23:59:59, but not that the weekday matches
/// the date. An RFC 850 two-digit year below 70 is 20xx, any other 19xx. Every function is
/// safe to call from any thread.
public enum HTTPDate {
    /// Which of the three forms a parse accepts.
    public struct Forms: OptionSet, Sendable {
        public let rawValue: UInt8

        /// Creates a set of forms from its bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `Sun, 06 Nov 1994 08:49:37 GMT`, the form HTTP senders write (RFC 1123's date).
        public static let imfFixdate = Forms(rawValue: 1 << 0)
        /// `Sunday, 06-Nov-94 08:49:37 GMT`.
        public static let rfc850 = Forms(rawValue: 1 << 1)
        /// `Sun Nov  6 08:49:37 1994` (C's `asctime`, always UTC).
        public static let asctime = Forms(rawValue: 1 << 2)
        /// The three forms, as RFC 9110 asks a recipient to accept.
        public static let all: Forms = [.imfFixdate, .rfc850, .asctime]
    }

    /// How closely a parse follows the RFC grammar.
    public enum Syntax: Sendable {
        /// Exactly RFC 9110's grammar: names in their case (`Sun`, `Nov`, `GMT`), single spaces,
        /// two-digit days (asctime: two digits or a space and one digit), zone `GMT`.
        case strict
        /// What senders write in the wild as well: names in any case, runs of spaces, a one-digit
        /// day, no weekday in IMF-fixdate (`6 Nov 1994 08:49:37 GMT`), and besides `GMT` the zones
        /// `UTC`, `UT`, `Z` and a numeric offset `±hhmm` in IMF-fixdate and RFC 850.
        case lenient
    }

    /// The most bytes `write(_:to:)` writes (a year of up to 19 digits and a sign).
    public static let maximumByteCount = 48

    // MARK: Writing

    /// The IMF-fixdate of an instant given in whole seconds since 1970: `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// Years outside 0…9999 have no HTTP-date; they are written with as many digits as they
    /// need (and a minus sign before year 0), which no parse reads back.
    public static func string(fromSeconds seconds: Int64) -> String {
        String(unsafeUninitializedCapacity: maximumByteCount) { buffer in
            write(seconds, to: buffer.baseAddress!)
        }
    }

    /// The IMF-fixdate of a date, its fraction of a second dropped (rounded down).
    public static func string(from date: Date) -> String {
        string(fromSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// Writes the IMF-fixdate of an instant (as `string(fromSeconds:)` gives it) as UTF-8 at
    /// `buffer`, which has room for `maximumByteCount` bytes; returns how many bytes it wrote.
    public static func write(_ seconds: Int64, to buffer: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = CivilDate.fromDays(days)
        var end = 0
        @inline(__always) func put(_ byte: UInt8) {
            buffer[end] = byte
            end += 1
        }
        @inline(__always) func putTwoDigits(_ number: Int64) {
            put(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number / 10))
            put(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number % 10))
        }
        @inline(__always) func putName(_ packed: UInt32) {
            put(UInt8(truncatingIfNeeded: packed >> 16))
            put(UInt8(truncatingIfNeeded: packed >> 8))
            put(UInt8(truncatingIfNeeded: packed))
        }
        // Day 0, 1970-01-01, was a Thursday (index 4 from Sunday).
        putName(shortDayNames[Int((days.floorDivided(by: 7).remainder + 4) % 7)])
        put(UInt8(ascii: ","))
        put(UInt8(ascii: " "))
        putTwoDigits(day)
        put(UInt8(ascii: " "))
        putName(monthNames[Int(month - 1)])
        put(UInt8(ascii: " "))
        if (0...9999).contains(year) {
            putTwoDigits(year / 100)
            putTwoDigits(year % 100)
        } else {
            if year < 0 { put(UInt8(ascii: "-")) }
            var digits: [UInt8] = []
            var rest = year.magnitude
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            for _ in digits.count..<max(4, digits.count) { put(UInt8(ascii: "0")) }
            for digit in digits.reversed() { put(digit) }
        }
        put(UInt8(ascii: " "))
        putTwoDigits(secondOfDay / 3600)
        put(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay / 60 % 60)
        put(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay % 60)
        put(UInt8(ascii: " "))
        putName(0x47_4D_54)   // GMT
        return end
    }

    // MARK: Reading

    /// The instant an HTTP-date names, in whole seconds since 1970; `nil` when the text is none
    /// of `forms` in `syntax` (surrounding whitespace included).
    public static func seconds(from text: String, forms: Forms = .all, syntax: Syntax = .strict) -> Int64? {
        var text = text
        return text.withUTF8 { seconds(fromUTF8: $0, forms: forms, syntax: syntax) }
    }

    /// The instant an HTTP-date names, as a `Date`; `nil` when the text is none of `forms` in `syntax`.
    public static func date(from text: String, forms: Forms = .all, syntax: Syntax = .strict) -> Date? {
        seconds(from: text, forms: forms, syntax: syntax).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// The instant the UTF-8 text of an HTTP-date names, in whole seconds since 1970; `nil`
    /// when the text is none of `forms` in `syntax`.
    public static func seconds(fromUTF8 bytes: UnsafeBufferPointer<UInt8>, forms: Forms = .all, syntax: Syntax = .strict) -> Int64? {
        var scanner = Scanner(bytes: bytes, lenient: syntax == .lenient)
        guard let first = scanner.peek else { return nil }
        if first &- UInt8(ascii: "0") < 10 {
            // Only lenient IMF-fixdate may leave out the weekday.
            guard scanner.lenient, forms.contains(.imfFixdate) else { return nil }
            return scanner.imfFixdateAfterWeekday()
        }
        let weekday = scanner.letters()
        if scanner.take(UInt8(ascii: ",")) {
            if weekday.count == 3 {
                guard forms.contains(.imfFixdate), scanner.isName(weekday, in: shortDayNames), scanner.space() else { return nil }
                return scanner.imfFixdateAfterWeekday()
            }
            guard forms.contains(.rfc850), scanner.isLongDayName(weekday), scanner.space() else { return nil }
            return scanner.rfc850AfterWeekday()
        }
        guard forms.contains(.asctime), weekday.count == 3, scanner.isName(weekday, in: shortDayNames), scanner.space() else { return nil }
        return scanner.asctimeAfterWeekday()
    }

    /// `Sun`…`Sat`, three ASCII letters packed big-endian.
    fileprivate static let shortDayNames: [UInt32] = [0x53_75_6E, 0x4D_6F_6E, 0x54_75_65, 0x57_65_64, 0x54_68_75, 0x46_72_69, 0x53_61_74]
    /// `Jan`…`Dec`, three ASCII letters packed big-endian.
    fileprivate static let monthNames: [UInt32] = [
        0x4A_61_6E, 0x46_65_62, 0x4D_61_72, 0x41_70_72, 0x4D_61_79, 0x4A_75_6E,
        0x4A_75_6C, 0x41_75_67, 0x53_65_70, 0x4F_63_74, 0x4E_6F_76, 0x44_65_63,
    ]
    fileprivate static let longDayNames: [[UInt8]] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"].map { Array($0.utf8) }
}

/// A forward cursor over the bytes of an HTTP-date.
private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let lenient: Bool
    var offset = 0

    init(bytes: UnsafeBufferPointer<UInt8>, lenient: Bool) {
        self.bytes = bytes
        self.lenient = lenient
    }

    var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }
    var isAtEnd: Bool { offset >= bytes.count }

    /// Consumes `byte` if it is next.
    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// One space; lenient: a run of them.
    mutating func space() -> Bool {
        guard take(UInt8(ascii: " ")) else { return false }
        if lenient { while take(UInt8(ascii: " ")) {} }
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int64? {
        guard offset + count <= bytes.count else { return nil }
        var number: Int64 = 0
        for index in offset..<(offset + count) {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            number = number * 10 + Int64(digit)
        }
        offset += count
        return number
    }

    /// A day of the month: two digits; lenient: one or two.
    mutating func day() -> Int64? {
        guard lenient else { return digits(2) }
        return digits(2) ?? digits(1)
    }

    /// Consumes a run of ASCII letters and returns where it lies.
    mutating func letters() -> Range<Int> {
        let start = offset
        while offset < bytes.count, (bytes[offset] | 0x20) &- UInt8(ascii: "a") < 26 { offset += 1 }
        return start..<offset
    }

    /// Whether `range` holds one of three-letter `names` (exactly; lenient: in any case).
    func isName(_ range: Range<Int>, in names: [UInt32]) -> Bool {
        index(range, in: names) != nil
    }

    func index(_ range: Range<Int>, in names: [UInt32]) -> Int? {
        guard range.count == 3 else { return nil }
        let packed = UInt32(bytes[range.lowerBound]) << 16 | UInt32(bytes[range.lowerBound + 1]) << 8 | UInt32(bytes[range.lowerBound + 2])
        let caseMask: UInt32 = lenient ? 0x20_20_20 : 0
        return names.firstIndex { $0 | caseMask == packed | caseMask }
    }

    /// Whether `range` holds a full weekday name (`Sunday`; lenient: in any case).
    func isLongDayName(_ range: Range<Int>) -> Bool {
        HTTPDate.longDayNames.contains { name in
            name.count == range.count && zip(name, bytes[range]).allSatisfy { lenient ? $0 | 0x20 == $1 | 0x20 : $0 == $1 }
        }
    }

    /// A month name as 1…12.
    mutating func month() -> Int64? {
        index(letters(), in: HTTPDate.monthNames).map { Int64($0 + 1) }
    }

    /// `HH:mm:ss` as seconds of the day.
    mutating func time() -> Int64? {
        guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), take(UInt8(ascii: ":")),
              let second = digits(2), hour < 24, minute < 60, second < 60 else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// The zone that ends IMF-fixdate and RFC 850, as an offset east of UTC in seconds: `GMT`;
    /// lenient also `UTC`, `UT`, `Z` and `±hhmm`, in any case.
    mutating func zone() -> Int64? {
        if lenient, let sign = peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            offset += 1
            guard let hours = digits(2), let minutes = digits(2), hours < 24, minutes < 60 else { return nil }
            return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        let name = letters()
        var packed: UInt32 = 0
        for index in name where name.count <= 3 {
            packed = packed << 8 | UInt32(lenient ? bytes[index] | 0x20 : bytes[index])
        }
        switch (name.count, packed) {
        case (3, 0x47_4D_54): return 0   // GMT
        case (3, 0x67_6D_74), (3, 0x75_74_63), (2, 0x75_74), (1, 0x7A): return lenient ? 0 : nil   // gmt utc ut z
        default: return nil
        }
    }

    /// The instant of a valid date and time at a UTC offset.
    func instant(year: Int64, month: Int64, day: Int64, time: Int64, offset: Int64) -> Int64? {
        guard day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
        return CivilDate.days(year: year, month: month, day: day) * 86_400 + time - offset
    }

    /// `06 Nov 1994 08:49:37 GMT`.
    mutating func imfFixdateAfterWeekday() -> Int64? {
        guard let day = day(), space(), let month = month(), space(), let year = digits(4), space(),
              let time = time(), space(), let zone = zone(), isAtEnd else { return nil }
        return instant(year: year, month: month, day: day, time: time, offset: zone)
    }

    /// `06-Nov-94 08:49:37 GMT`.
    mutating func rfc850AfterWeekday() -> Int64? {
        guard let day = day(), take(UInt8(ascii: "-")), let month = month(), take(UInt8(ascii: "-")),
              let shortYear = digits(2), space(), let time = time(), space(), let zone = zone(), isAtEnd else { return nil }
        return instant(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month, day: day, time: time, offset: zone)
    }

    /// `Nov  6 08:49:37 1994` (the day two digits, or a space and one digit).
    mutating func asctimeAfterWeekday() -> Int64? {
        guard let month = month(), space() else { return nil }
        let day: Int64?
        if lenient {
            while take(UInt8(ascii: " ")) {}
            day = self.day()
        } else {
            day = take(UInt8(ascii: " ")) ? digits(1) : digits(2)
        }
        guard let day, space(), let time = time(), space(), let year = digits(4), isAtEnd else { return nil }
        return instant(year: year, month: month, day: day, time: time, offset: 0)
    }
}
