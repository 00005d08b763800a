/// Text functions Foundation's `NSString` methods used to give: trimming white space at the ends
/// (`trimmingCharacters(in:)` with `.whitespaces` and `.whitespacesAndNewlines`) and comparing
/// without regard to case. The programs that read schemas do not link Foundation, whose loading
/// every process start would pay for.
package extension StringProtocol {
    /// Whether the two texts are equal once lowercased (`caseInsensitiveCompare(_:) == .orderedSame`).
    func equalsIgnoringCase(_ other: some StringProtocol) -> Bool {
        self == other || lowercased() == other.lowercased()
    }

    /// The text without spaces at either end: the tab, Unicode's space separators (general
    /// category Zs) and the zero-width space, as Foundation's `CharacterSet.whitespaces` has them.
    func trimmingWhitespace() -> String { trimming(where: Self.isWhitespace) }

    /// The text without spaces and line breaks at either end: `trimmingWhitespace()`'s characters,
    /// U+000A through U+000D, U+0085 and the line and paragraph separators (Foundation's
    /// `CharacterSet.whitespacesAndNewlines`).
    func trimmingWhitespaceAndNewlines() -> String {
        trimming { Self.isWhitespace($0) || Self.isNewline($0) }
    }

    /// The text without the Unicode scalars at either end for which `isTrimmed` is true.
    func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
