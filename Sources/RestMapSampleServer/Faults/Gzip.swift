/// gzip streams (RFC 1952) over deflate blocks with the fixed Huffman code (RFC 1951 3.2.6),
/// written by hand: the server needs no zlib.
enum Gzip {
    /// `bytes` compressed as literals only: a valid stream, slightly larger than the input.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var deflate = BitWriter()
        deflate.blockHeader()
        for byte in bytes { deflate.literal(Int(byte)) }
        deflate.endOfBlock()
        return wrap(deflate.finish(), crc: CRC32.checksum(bytes), size: UInt64(bytes.count))
    }

    /// A stream that inflates to `count` zero bytes: one literal zero, then back-references of
    /// 258 bytes at distance 1 (13 bits each, about 1/159 of the output).
    static func zeros(count: Int) -> [UInt8] {
        precondition(count >= 1)
        var deflate = BitWriter()
        deflate.blockHeader()
        deflate.literal(0)
        let (matches, rest) = (count - 1).quotientAndRemainder(dividingBy: 258)
        for _ in 0..<matches { deflate.longestMatchAtDistanceOne() }
        for _ in 0..<rest { deflate.literal(0) }
        deflate.endOfBlock()
        return wrap(deflate.finish(), crc: CRC32.ofZeros(count: UInt64(count)), size: UInt64(count))
    }

    /// A stream that inflates to the JSON array `[{"id":1},{"id":1},…]` of `count` objects: the
    /// first object as literals, then back-references of 258 bytes at distance 9 (about 1/150 of
    /// the output on the wire).
    static func objectArray(count: Int) -> [UInt8] {
        precondition(count >= 1)
        let object = Array(#"{"id":1},"#.utf8)
        let repeated = object.count * count - 1   // the objects and the commas between them
        var deflate = BitWriter()
        deflate.blockHeader()
        deflate.literal(Int(UInt8(ascii: "[")))
        for byte in object.prefix(min(object.count, repeated)) { deflate.literal(Int(byte)) }
        var written = min(object.count, repeated)
        while repeated - written >= 258 {
            deflate.longestMatchAtDistanceNine()
            written += 258
        }
        while written < repeated {
            deflate.literal(Int(object[written % object.count]))
            written += 1
        }
        deflate.literal(Int(UInt8(ascii: "]")))
        deflate.endOfBlock()
        var crc = CRC32.Running()
        crc.add([UInt8(ascii: "[")])
        crc.add(object, times: count - 1)
        crc.add(object.dropLast())
        crc.add([UInt8(ascii: "]")])
        return wrap(deflate.finish(), crc: crc.value, size: UInt64(repeated + 2))
    }

    private static func wrap(_ deflate: [UInt8], crc: UInt32, size: UInt64) -> [UInt8] {
        // ID1 ID2, CM=deflate, no flags, MTIME 0, XFL 0, OS 3 (Unix)
        var stream: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        stream += deflate
        for shift in stride(from: 0, to: 32, by: 8) { stream.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        let isize = UInt32(truncatingIfNeeded: size)
        for shift in stride(from: 0, to: 32, by: 8) { stream.append(UInt8(truncatingIfNeeded: isize >> UInt32(shift))) }
        return stream
    }
}

/// Deflate's bit order: values LSB first, Huffman codes MSB first.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var bitCount = 0

    mutating func bits(_ value: Int, count: Int) {
        accumulator |= UInt64(value) << UInt64(bitCount)
        bitCount += count
        while bitCount >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            bitCount -= 8
        }
    }

    /// A Huffman code of `length` bits, most significant bit first.
    mutating func code(_ value: Int, length: Int) {
        var reversed = 0
        for bit in 0..<length where value & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
        bits(reversed, count: length)
    }

    /// BFINAL 1, BTYPE 01 (fixed Huffman).
    mutating func blockHeader() { bits(0b011, count: 3) }

    /// A literal byte with its fixed code (0–143: 8 bits from 0x30; 144–255: 9 bits from 0x190).
    mutating func literal(_ byte: Int) {
        if byte < 144 { code(0x30 + byte, length: 8) } else { code(0x190 + byte - 144, length: 9) }
    }

    /// Length 258 (symbol 285, 8 bits 0xC5, no extra bits), distance 1 (code 0, 5 bits).
    mutating func longestMatchAtDistanceOne() {
        code(0xC5, length: 8)
        code(0, length: 5)
    }

    /// Length 258 (symbol 285), distance 9 (code 6, 5 bits, then 2 extra bits of zero).
    mutating func longestMatchAtDistanceNine() {
        code(0xC5, length: 8)
        code(6, length: 5)
        bits(0, count: 2)
    }

    /// Symbol 256, 7 bits of zero.
    mutating func endOfBlock() { code(0, length: 7) }

    mutating func finish() -> [UInt8] {
        if bitCount > 0 { bits(0, count: 8 - bitCount) }
        return bytes
    }
}

/// CRC-32 (IEEE, reflected, as gzip uses it).
enum CRC32 {
    fileprivate static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        return crc
    }

    /// A checksum fed in parts.
    struct Running {
        private var crc: UInt32 = 0xFFFF_FFFF

        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { crc = Self.update(crc, byte) }
        }

        /// Adds `bytes` `count` times in O(log count): feeding a fixed run of bytes maps the
        /// register affinely (c ↦ A·c ⊕ v over GF(2)), and that map is raised to the power `count`
        /// by squaring.
        mutating func add(_ bytes: [UInt8], times count: Int) {
            var columns = (0..<32).map { bit in bytes.reduce(UInt32(1) << UInt32(bit)) { register, _ in Self.update(register, 0) } }
            var vector = bytes.reduce(UInt32(0)) { Self.update($0, $1) }
            var remaining = count
            while remaining > 0 {
                if remaining & 1 != 0 { crc = CRC32.times(columns, crc) ^ vector }
                remaining >>= 1
                if remaining > 0 {
                    vector = CRC32.times(columns, vector) ^ vector
                    columns = columns.map { CRC32.times(columns, $0) }
                }
            }
        }

        private static func update(_ register: UInt32, _ byte: UInt8) -> UInt32 {
            CRC32.table[Int((register ^ UInt32(byte)) & 0xFF)] ^ (register >> 8)
        }

        var value: UInt32 { crc ^ 0xFFFF_FFFF }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of `count` zero bytes in O(log count): feeding zeros is linear over GF(2),
    /// so the operator for 2^k zero bytes is squared up (zlib's `crc32_combine` method).
    static func ofZeros(count: UInt64) -> UInt32 {
        // The operator for one zero bit: shift right, xor the polynomial when the low bit was set.
        var operatorMatrix = [UInt32](repeating: 0, count: 32)
        operatorMatrix[0] = 0xEDB8_8320
        for bit in 1..<32 { operatorMatrix[bit] = 1 << UInt32(bit - 1) }
        for _ in 0..<3 { operatorMatrix = square(operatorMatrix) }   // one zero byte
        var crc: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining != 0 {
            if remaining & 1 != 0 { crc = times(operatorMatrix, crc) }
            remaining >>= 1
            if remaining != 0 { operatorMatrix = square(operatorMatrix) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    fileprivate static func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        var rest = vector
        var row = 0
        while rest != 0 {
            if rest & 1 != 0 { sum ^= matrix[row] }
            rest >>= 1
            row += 1
        }
        return sum
    }

    private static func square(_ matrix: [UInt32]) -> [UInt32] {
        matrix.map { times(matrix, $0) }
    }
}
