/// JSON whitespace (RFC 8259): space, line feed, carriage return, tab.
@inline(__always)
package func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}

/// String escapes and UTF-8 validation.
@usableFromInline
enum JSONStrings {
    /// The bytes a string scan stops at, besides `"` and `\\`.
    enum ScanStops {
        /// Only `"` and `\\` (finding where a string ends).
        case quoteAndBackslash
        /// Also control characters (what a writer must escape).
        case escapes
        /// Also brackets and braces (what changes the nesting of JSON text).
        case structure
    }

    /// Moves `position` over the bytes that are not stops, eight bytes at a time: to the first
    /// stop, or to where fewer than eight bytes are left before `end` (the caller goes on byte by
    /// byte from there).
    @inline(__always)
    static func skipPlainWords(_ base: UnsafePointer<UInt8>, at position: inout Int, to end: Int, stoppingAt stops: ScanStops) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // `[` `{` (0x5B 0x7B) and `]` `}` (0x5D 0x7D) once bit 5 is cleared (only for `.structure`).
            let opening = (word & (ones &* 0xDF)) ^ (ones &* 0x5B)
            let closing = (word & (ones &* 0xDF)) ^ (ones &* 0x5D)
            // Each term flags the bytes that are zero (a quote, a backslash) or below 0x20;
            // borrows only flag bytes above a flagged one, so the lowest flag is a real stop.
            // (`JSONParser.parseString` writes the same scan out, stopping at non-ASCII too.)
            let flags: UInt64 = switch stops {
            case .quoteAndBackslash: ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
            case .escapes: ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            case .structure:
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((opening &- ones) & ~opening)
                    | ((closing &- ones) & ~closing)
            }
            let special = flags & 0x8080_8080_8080_8080
            if special != 0 {
                position += special.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }

    @inline(__always) static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The length of the valid UTF-8 sequence starting at `position` (RFC 3629: no overlong
    /// forms, no surrogates, at most U+10FFFF), or `nil`.
    static func validUTF8Width(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int? {
        let lead = bytes[position]
        let width: Int
        let minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: width = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF: width = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4: width = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
        default: return nil
        }
        guard position + width <= bytes.count else { return nil }
        for offset in 1..<width {
            let byte = bytes[position + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return nil }
        return width
    }

    /// Decodes a validated string body with escapes; lone surrogates become U+FFFD.
    @usableFromInline static func unescape(_ body: UnsafeBufferPointer<UInt8>) -> String {
        guard let base = body.baseAddress else { return "" }
        let count = body.count
        // The text is never longer than its escaped form: written straight into the string.
        return String(unsafeUninitializedCapacity: count) { output in
            var written = 0
            var index = 0
            func put(_ byte: UInt8) {
                output[written] = byte
                written += 1
            }
            func hex4(_ at: Int) -> UInt32 {
                (0..<4).reduce(0) { $0 << 4 | (hexValue(base[at + $1]) ?? 0) }
            }
            func put(scalar: UInt32) {
                for byte in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")! { put(byte) }  // Total: every Unicode.Scalar encodes.
            }
            while index < count {
                // The run up to the next backslash, copied at once (a quote inside a string
                // only comes escaped, after a backslash).
                var end = index
                skipPlainWords(base, at: &end, to: count, stoppingAt: .quoteAndBackslash)
                while end < count, base[end] != UInt8(ascii: "\\") { end += 1 }
                if end > index {
                    UnsafeMutableRawPointer(output.baseAddress! + written).copyMemory(from: base + index, byteCount: end - index)
                    written += end - index
                    index = end
                }
                guard index + 1 < count else { break }
                let escape = base[index + 1]
                index += 2
                switch escape {
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    let unit = hex4(index)
                    index += 4
                    if (0xD800...0xDBFF).contains(unit), index + 6 <= count, base[index] == UInt8(ascii: "\\"),
                       base[index + 1] == UInt8(ascii: "u") {
                        let low = hex4(index + 2)
                        if (0xDC00...0xDFFF).contains(low) {
                            put(scalar: 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            index += 6
                            continue
                        }
                    }
                    put(scalar: (0xD800...0xDFFF).contains(unit) ? 0xFFFD : unit)
                default: put(escape)  // \" \\ \/
                }
            }
            return written
        }
    }
}
