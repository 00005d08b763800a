/// A forward cursor over ASCII text, for the hand-written date parsers.
struct ByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Consumes `byte` if it is next.
    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// Consumes exactly `count` decimal digits.
    @inline(__always)
    mutating func digits(_ count: Int) -> Int64? {
        guard offset + count <= bytes.count else { return nil }
        var number: Int64 = 0
        for index in offset..<(offset + count) {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            number = number * 10 + Int64(digit)
        }
        offset += count
        return number
    }

    /// Consumes between `minimum` and `maximum` decimal digits.
    mutating func digits(minimum: Int, maximum: Int) -> Int64? {
        var number: Int64 = 0
        var count = 0
        while count < maximum, offset < bytes.count, bytes[offset] &- 0x30 < 10 {
            number = number * 10 + Int64(bytes[offset] &- 0x30)
            offset += 1
            count += 1
        }
        return count >= minimum ? number : nil
    }
}
