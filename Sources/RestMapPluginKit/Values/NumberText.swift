import FoundationEssentials

/// A number written as text, checked whole: what coercion accepts as an integer, number or
/// decimal written in a string (and reads from a JSON number's lexeme).
///
/// The text, after leading and trailing ASCII whitespace (spaces, tabs, line breaks), must be one
/// decimal number and nothing else: an optional sign, digits with an optional fraction (`12`,
/// `12.5`, `.5`, `5.`), and an optional exponent (`1e3`, `2.5E-4`). Anything else — `0x10`, `-`,
/// `99 bottles`, `1_000`, `1,5`, `inf`, `nan`, an empty string — is not a number.
package struct NumberText: Sendable {
    /// The number without the whitespace around it.
    package let text: Substring
    /// The text has no fraction and no exponent (`-12`, `+7`, `007`).
    package let isInteger: Bool
    /// Digits from the first non-zero digit to the last non-zero one, the point aside
    /// (`0.00120` has 2, `1200` has 2, `0` has 0): what a decimal must keep to hold the value.
    package let significantDigits: Int

    /// Whether the value is zero (`0`, `-0.0`, `0e999`).
    package var isZero: Bool { significantDigits == 0 }

    /// The most significant digits a `Decimal` keeps: its 128-bit mantissa holds every 38-digit
    /// integer (and some of 39 digits, which are not counted on).
    package static let decimalDigits = 38

    /// The number a string holds, or `nil` when the string is anything but one number.
    package init?(_ string: String) {
        var string = string
        guard let parsed = string.withUTF8({ Self.parse($0) }) else { return nil }
        let utf8 = string.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: parsed.start)
        let end = utf8.index(utf8.startIndex, offsetBy: parsed.end)
        text = string[start..<end]
        isInteger = parsed.isInteger
        significantDigits = parsed.significantDigits
    }

    /// The whitespace `init` ignores around a number.
    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Where the number is in `bytes` (whitespace around it left out) and its shape; `nil` when
    /// `bytes` are not one number.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, end: Int, isInteger: Bool, significantDigits: Int)? {
        var start = 0, end = bytes.count
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        var position = start
        if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
        var mantissaDigits = 0
        var firstNonZero = -1, lastNonZero = -1
        var isInteger = true
        func digits() {
            while position < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                if bytes[position] != UInt8(ascii: "0") {
                    if firstNonZero < 0 { firstNonZero = mantissaDigits }
                    lastNonZero = mantissaDigits
                }
                mantissaDigits += 1
                position += 1
            }
        }
        digits()
        if position < end, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            digits()
        }
        guard mantissaDigits > 0 else { return nil }
        if position < end, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < end, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponentStart = position
            while position < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > exponentStart else { return nil }
        }
        guard position == end else { return nil }
        return (start, end, isInteger, firstNonZero < 0 ? 0 : lastNonZero - firstNonZero + 1)
    }

    /// The value as a 64-bit integer: `.success` when it is a whole number in range (`12`, `1.0`,
    /// `1e3`), else why not.
    package func integer() -> Result<Int64, NumberProblem> {
        if isInteger {
            return Int64(text).map { .success($0) } ?? .failure(.outOfIntegerRange)
        }
        if isZero { return .success(0) }
        guard case .success(let decimal) = decimal() else { return .failure(.outOfIntegerRange) }
        guard decimal.isWhole else { return .failure(.notWhole) }
        return Int64(decimal.description).map { .success($0) } ?? .failure(.outOfIntegerRange)
    }

    /// The value as an exact decimal, or why it cannot be one without losing digits.
    package func decimal() -> Result<Decimal, NumberProblem> {
        if isZero { return .success(0) }
        guard significantDigits <= Self.decimalDigits else { return .failure(.tooPrecise(significantDigits)) }
        return Decimal(string: String(text), locale: Locale(identifier: "en_US_POSIX")).map { .success($0) } ?? .failure(.outOfDecimalRange)
    }

    /// The value as a double, or why it cannot be one (too large, or so small it would be 0).
    package func double() -> Result<Double, NumberProblem> {
        guard let double = Double(text), double.isFinite else { return .failure(.outOfDoubleRange) }
        if double == 0, !isZero { return .failure(.outOfDoubleRange) }
        return .success(double)
    }

    /// A number's text for an error message: whole up to 40 characters, else its first 40 and its
    /// length (`12345…` followed by `(1000000 digits)`), so an error never echoes a huge number.
    package static func short(_ text: some StringProtocol) -> String {
        guard text.utf8.count > 40 else { return String(text) }
        let digits = text.utf8.count(where: { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        return String(text.prefix(40)) + "… (\(digits) digits)"
    }
}

/// Why a number cannot be held by an attribute's type.
package enum NumberProblem: Error {
    case notWhole
    case outOfIntegerRange
    case outOfDecimalRange
    case outOfDoubleRange
    case tooPrecise(Int)

    /// The reason, as an error message ends with it.
    package var reason: String {
        switch self {
        case .notWhole: "not a whole number"
        case .outOfIntegerRange: "out of the 64-bit integer range"
        case .outOfDecimalRange: "out of the decimal range"
        case .outOfDoubleRange: "out of the range of a double"
        case .tooPrecise(let digits):
            "\(digits) significant digits; a decimal keeps at most \(NumberText.decimalDigits)"
        }
    }
}

package extension Decimal {
    /// Whether the value is a whole number. A decimal's description is its plain digits (never
    /// an exponent), so a whole one has no point.
    var isWhole: Bool { !description.contains(".") }

    /// The double nearest to the value (the decimal's digits read as a double literal).
    var nearestDouble: Double { Double(description) ?? .nan }
}
