/// Writes instants as ISO 8601 UTC text without a formatter: `2013-03-13T18:10:21Z`, with
/// milliseconds (`…21.250Z`) only when the instant has a fractional second.
public enum ISO8601Text {
    /// The ISO 8601 UTC text of an instant given in seconds since 1970-01-01T00:00:00Z.
    public static func string(from secondsSince1970: Double) -> String {
        var text: [UInt8] = []
        append(secondsSince1970, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the ISO 8601 UTC text of an instant (as `string(from:)` gives it) as UTF-8.
    public static func append(_ secondsSince1970: Double, to text: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumByteCount) { buffer in
            let end = write(secondsSince1970, to: buffer.baseAddress!)
            text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<end]))
        }
    }

    /// The most bytes `write` writes: a sign, 20 digits of year, "-MM-DDTHH:MM:SS.mmmZ".
    public static let maximumByteCount = 41

    /// Writes the ISO 8601 UTC text of an instant (as `string(from:)` gives it) as UTF-8 at
    /// `buffer`, which has room for `maximumByteCount` bytes; returns how many it wrote.
    public static func write(_ secondsSince1970: Double, to buffer: UnsafeMutablePointer<UInt8>) -> Int {
        let milliseconds = Int64((secondsSince1970 * 1000).rounded())
        let (seconds, millisecond) = milliseconds.floorDivided(by: 1000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = CivilDate.fromDays(days)
        var end = 0
        func put(_ byte: UInt8) {
            buffer[end] = byte
            end += 1
        }
        /// A number's decimal digits, padded with zeros to at least `width` digits.
        func putDigits(_ number: UInt64, width: Int) {
            var divisor: UInt64 = 1
            var digits = 1
            while digits < width || number / divisor >= 10 {
                divisor *= 10
                digits += 1
            }
            var rest = number
            while divisor > 0 {
                put(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        /// Two digits of a number below 100.
        @inline(__always) func putTwoDigits(_ number: Int64) {
            buffer[end] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number / 10)
            buffer[end + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number % 10)
            end += 2
        }
        if (0...9999).contains(year) {
            putTwoDigits(year / 100)
            putTwoDigits(year % 100)
        } else {
            if year < 0 { put(UInt8(ascii: "-")) }
            putDigits(year.magnitude, width: 4)
        }
        put(UInt8(ascii: "-"))
        putTwoDigits(month)
        put(UInt8(ascii: "-"))
        putTwoDigits(day)
        put(UInt8(ascii: "T"))
        putTwoDigits(secondOfDay / 3600)
        put(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay / 60 % 60)
        put(UInt8(ascii: ":"))
        putTwoDigits(secondOfDay % 60)
        if millisecond != 0 {
            put(UInt8(ascii: "."))
            put(UInt8(ascii: "0") + UInt8(millisecond / 100))
            putTwoDigits(millisecond % 100)
        }
        put(UInt8(ascii: "Z"))
        return end
    }
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's `days_from_civil` and `civil_from_days`.
public enum CivilDate {
    /// The day number of a year, month (1–12) and day (1–31).
    @inline(__always)
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month and day of a day number.
    public static func fromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    /// Floor division and the matching non-negative remainder.
    @inline(__always)
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self / divisor
        let remainder = self % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
