import Foundation
import RestMapPluginKit
import Testing

/// The text functions that stand in for Foundation's, checked against Foundation itself.
@Suite struct TextFunctionsTests {
    static let texts = [
        "", " ", "plain", "  both  ", "\ttab\t", "\n\r\nlines\r\n", "\u{00A0}no-break\u{00A0}", "\u{2003}em\u{3000}",
        "\u{0085}next\u{2028}", "\u{2029}para", "\u{000B}\u{000C}v f", "inner  space", "e\u{301} ", " \u{301}x", "\u{200B}zero width",
    ]

    @Test("trimming white space is trimmingCharacters(in: .whitespaces)", arguments: texts)
    func whitespace(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
    }

    @Test("trimming white space and line breaks is trimmingCharacters(in: .whitespacesAndNewlines)", arguments: texts)
    func whitespaceAndNewlines(_ text: String) {
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
    }

    @Test("comparing without case is caseInsensitiveCompare for header names")
    func ignoringCase() {
        for (left, right) in [("Content-Type", "content-type"), ("ETAG", "ETag"), ("Link", "Links"), ("x-Request-ID", "X-REQUEST-ID"), ("", "")] {
            #expect(left.equalsIgnoringCase(right) == (left.caseInsensitiveCompare(right) == .orderedSame), "\(left) \(right)")
        }
    }

    @Test("a decimal is whole and converts to the nearest double")
    func decimals() throws {
        for (text, whole) in [("12", true), ("1.0", true), ("1e3", true), ("1.5", false), ("-0.25", false), ("1.5e1", true), ("0", true)] {
            let decimal = try #require(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")))
            #expect(decimal.isWhole == whole, "\(text)")
            var rounded = Decimal(), copy = decimal
            NSDecimalRound(&rounded, &copy, 0, .down)
            #expect(decimal.isWhole == (rounded == decimal), "\(text): Foundation's rounding")
            #expect(decimal.nearestDouble == NSDecimalNumber(decimal: decimal).doubleValue, "\(text): Foundation's conversion")
        }
    }
}
