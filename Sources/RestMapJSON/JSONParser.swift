/// A one-pass, iterative (no recursion) RFC 8259 parser producing the tape.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    /// Most tape entries (values and member names) accepted.
    let maximumValueCount: Int
    var position = 0
    var tape: TapeBuffer
    /// Open containers: tape index and whether it is an object.
    var stack: [(index: Int, isObject: Bool)] = []

    /// Whether the first and last bytes stand for `[` and `]`, whatever they are (a run of
    /// elements cut out of a larger array at commas: `JSONDocument(elementsIn:)`).
    let bracketed: Bool
    /// A bracketed run ends before the first element after a `,` that begins at or after this
    /// offset (then its last byte stands for nothing); `Int.max`: at its last byte.
    let stopOffset: Int
    /// Where the run ended: the first byte of the element it stopped before.
    private(set) var stoppedAt: Int?

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, maximumValueCount: Int = .max, bracketed: Bool = false,
         stopOffset: Int = .max) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.maximumValueCount = maximumValueCount
        self.bracketed = bracketed
        self.stopOffset = stopOffset
        // A bracketed run is a part of a large body, parsed once: its tape takes huge pages from
        // 1 MiB. Other documents, and the runs of a stream (which stop), only from 4 MiB, so that
        // the ~2 MiB tapes of streamed batches, allocated and freed batch after batch, reuse the
        // allocator's memory instead of zeroing fresh huge pages each time.
        let partOfABody = bracketed && stopOffset == .max
        self.tape = TapeBuffer(capacity: min(bytes.count / 8, maximumValueCount) + 4, hugePagesFrom: partOfABody ? 1 << 20 : HugePages.minimumByteCount)
    }

    /// Parses the whole input; on success the caller owns the returned tape's memory.
    mutating func parse() throws(JSONParseError) -> (entries: UnsafeMutableBufferPointer<TapeEntry>, allocation: TapeAllocation) {
        do { try parseDocument() } catch {
            tape.deallocate()
            throw error
        }
        return tape.take()
    }

    private mutating func parseDocument() throws(JSONParseError) {
        if bracketed {
            try openBracketedArray()
            if stoppedAt != nil {
                close()
                return
            }
        } else {
            skipWhitespace()
            if position == bytes.count { throw error("empty document", at: position) }
            try parseValue()
        }
        while !stack.isEmpty {
            skipWhitespace()
            guard position < bytes.count else {
                // Total: the loop runs while the stack is not empty.
                throw error(stack.last!.isObject ? "unterminated object: expected ',' or '}'" : "unterminated array: expected ',' or ']'", at: position)
            }
            let byte = bytes[position]
            let top = stack[stack.count - 1]
            if bracketed, stopOffset == .max, stack.count == 1, position == bytes.count - 1 {
                // The last byte closes the bracketed array.
                position += 1
                close()
            } else if byte == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                // `stopOffset` first: it is `Int.max` in every parse but a run's, so this costs one compare a comma.
                if position >= stopOffset, stack.count == 1, position < bytes.count, bytes[position] != UInt8(ascii: "]") {
                    stoppedAt = position
                    close()
                    return
                }
                if top.isObject { try parseKey() }
                try parseValue()
            } else if byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                close()
            } else {
                throw error(top.isObject ? "expected ',' or '}' after an object member" : "expected ',' or ']' after an array element", at: position)
            }
        }
        skipWhitespace()
        if position < bytes.count { throw error("unexpected text after the document", at: position) }
    }

    /// Opens the array whose `[` the first byte stands for, and parses its first element.
    private mutating func openBracketedArray() throws(JSONParseError) {
        guard bytes.count >= 2 else { throw error("expected a bracketed run of elements", at: 0) }
        stack.append((tape.count, false))
        tape.append(TapeEntry(tag: .array, flag: false, start: 0, end: 0, count: 0))
        position = 1
        skipWhitespace()
        if position >= stopOffset, position < bytes.count, bytes[position] != UInt8(ascii: "]") {
            stoppedAt = position   // the first element begins at or after the stop: none
            return
        }
        if position == bytes.count - 1 { return }   // no elements: the loop closes it
        try parseValue()
    }

    private mutating func close() {
        let top = stack.removeLast()
        tape[top.index].end = UInt32(tape.count)
    }

    @inline(__always) private mutating func skipWhitespace() {
        var cursor = position
        while cursor < bytes.count {
            switch bytes[cursor] {
            case 0x20, 0x0A, 0x0D, 0x09: cursor += 1
            default:
                position = cursor
                return
            }
        }
        position = cursor
    }

    /// Parses an object key and the ':' after it.
    private mutating func parseKey() throws(JSONParseError) {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw error("expected a string key", at: position)
        }
        try parseString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw error("expected ':' after an object key", at: position)
        }
        position += 1
        skipWhitespace()
    }

    /// Parses one value; a container is opened (and closed at once when empty).
    private mutating func parseValue() throws(JSONParseError) {
        guard position < bytes.count else { throw error("expected a value", at: position) }
        if tape.count >= maximumValueCount {
            var failure = error("the document holds more than \(maximumValueCount) values", at: position)
            failure.exceedsValueCount = true
            throw failure
        }
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = byte == UInt8(ascii: "{")
            if stack.count >= maximumDepth { throw error("nesting deeper than \(maximumDepth) levels", at: position) }
            if let top = stack.last { tape[top.index].count += 1 }
            stack.append((tape.count, isObject))
            tape.append(TapeEntry(tag: isObject ? .object : .array, flag: false, start: UInt32(position), end: 0, count: 0))
            position += 1
            skipWhitespace()
            if position < bytes.count, bytes[position] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                position += 1
                close()
                return
            }
            if isObject { try parseKey() }
            try parseValue()
            return
        case UInt8(ascii: "\""):
            try parseString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try parseNumber()
        case UInt8(ascii: "t"):
            try literal("true", .true)
        case UInt8(ascii: "f"):
            try literal("false", .false)
        case UInt8(ascii: "n"):
            try literal("null", .null)
        default:
            if position == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                throw error("expected a value, found a UTF-8 byte order mark (EF BB BF), which JSON text must not begin with", at: 0)
            }
            throw error("expected a value, found \(describe(byte))", at: position)
        }
        // A scalar inside a container counts toward it.
        if let top = stack.last { tape[top.index].count += 1 }
    }

    private mutating func literal(_ word: StaticString, _ tag: TapeEntry.Tag) throws(JSONParseError) {
        let length = word.utf8CodeUnitCount
        // Total: the input is not empty (parseDocument refuses an empty document first). The
        // first four bytes are compared as one word (`true`, `null`, `fals`), then the rest,
        // rather than by a call to `memcmp` (3.7 M instructions more for a 20 MB listing).
        guard position + length <= bytes.count,
              UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt32.self)
                == UnsafeRawPointer(word.utf8Start).loadUnaligned(as: UInt32.self),
              (4..<length).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] }) else {
            throw error("invalid literal: expected '\(word)'", at: position)
        }
        tape.append(TapeEntry(tag: tag, flag: false, start: UInt32(position), end: UInt32(position + length), count: 0))
        position += length
    }

    private mutating func parseNumber() throws(JSONParseError) {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in a number", at: position) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) { throw error("a number cannot have leading zeros", at: position) }
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit after '.'", at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw error("expected a digit in the exponent", at: position) }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        tape.append(TapeEntry(tag: .number, flag: isInteger, start: UInt32(start), end: UInt32(position), count: 0))
    }

    @inline(__always) private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Parses a string starting at its opening quote; validates escapes and UTF-8.
    private mutating func parseString() throws(JSONParseError) {
        // The cursor lives in a local: a stored property would be written back on every byte.
        let start = position + 1
        var cursor = start
        var hasEscapes = false
        let base = bytes.baseAddress!  // Total: a string starts at a quote, so the input is not empty.
        let count = bytes.count
        while true {
            // Skip plain ASCII eight bytes at a time: stop at a word holding '"', '\\', a control
            // character or a non-ASCII byte. The scan of `JSONStrings.skipPlainWords` written out:
            // calling it here costs 3% more instructions in this, the hottest loop (callgrind).
            while cursor + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self))
                let ones: UInt64 = 0x0101_0101_0101_0101
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20) | word)
                    & 0x8080_8080_8080_8080
                if special != 0 {
                    // The lowest flagged byte is a real stop (borrows only flag bytes above one).
                    cursor += special.trailingZeroBitCount >> 3
                    break
                }
                cursor += 8
            }
            guard cursor < count else { throw error("unterminated string", at: start - 1) }
            let byte = base[cursor]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                cursor += 1
                guard cursor < count else { throw error("unterminated escape", at: cursor - 1) }
                switch base[cursor] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    cursor += 1
                case UInt8(ascii: "u"):
                    guard cursor + 4 < count,
                          (1...4).allSatisfy({ JSONStrings.hexValue(base[cursor + $0]) != nil }) else {
                        throw error("invalid \\u escape: expected 4 hexadecimal digits", at: cursor - 1)
                    }
                    cursor += 5
                default:
                    throw error("invalid escape '\\\(describe(base[cursor]))'", at: cursor - 1)
                }
            } else if byte < 0x20 {
                throw error("control character \(describe(byte)) in a string must be escaped", at: cursor)
            } else if byte < 0x80 {
                cursor += 1
            } else {
                guard let width = JSONStrings.validUTF8Width(bytes, at: cursor) else {
                    throw error("invalid UTF-8 byte 0x\(String(byte, radix: 16, uppercase: true))", at: cursor)
                }
                cursor += width
            }
        }
        tape.append(TapeEntry(tag: .string, flag: hasEscapes, start: UInt32(start), end: UInt32(cursor), count: 0))
        position = cursor + 1
    }

    private func describe(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func error(_ message: String, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return JSONParseError(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable array of tape entries without copy-on-write checks; ownership moves to the document.
struct TapeBuffer {
    private var allocation: TapeAllocation
    private(set) var count = 0
    /// The size from which the tape is allocated in whole huge pages.
    private let hugePagesFrom: Int

    init(capacity: Int, hugePagesFrom: Int) {
        self.hugePagesFrom = hugePagesFrom
        allocation = TapeAllocation(capacity: max(capacity, 16), hugePagesFrom: hugePagesFrom)
    }

    @inline(__always) mutating func append(_ entry: TapeEntry) {
        if count == allocation.capacity { grow() }
        (allocation.base + count).initialize(to: entry)
        count += 1
    }

    subscript(index: Int) -> TapeEntry {
        get { allocation.base[index] }
        set { allocation.base[index] = newValue }
    }

    private mutating func grow() {
        let larger = TapeAllocation(capacity: allocation.capacity * 2, hugePagesFrom: hugePagesFrom)
        larger.base.moveInitialize(from: allocation.base, count: count)
        allocation.release()
        allocation = larger
    }

    /// The entries and their allocation; the caller releases it.
    func take() -> (entries: UnsafeMutableBufferPointer<TapeEntry>, allocation: TapeAllocation) {
        (UnsafeMutableBufferPointer(start: allocation.base, count: count), allocation)
    }

    func deallocate() { allocation.release() }
}

/// The memory of a tape: from `hugePagesFrom` bytes in whole huge pages (`HugePages.allocate`,
/// given back to be reused), as the tape is written front to back once; smaller ones from the
/// allocator.
struct TapeAllocation {
    let base: UnsafeMutablePointer<TapeEntry>
    let capacity: Int
    private let isHugePages: Bool

    init(capacity: Int, hugePagesFrom: Int) {
        let byteCount = capacity * MemoryLayout<TapeEntry>.stride
        if byteCount >= hugePagesFrom {
            let (start, allocated) = HugePages.allocate(byteCount: byteCount)
            self.capacity = allocated / MemoryLayout<TapeEntry>.stride
            base = start.bindMemory(to: TapeEntry.self, capacity: self.capacity)
            isHugePages = true
        } else {
            self.capacity = capacity
            base = .allocate(capacity: capacity)
            isHugePages = false
        }
    }

    func release() {
        if isHugePages {
            HugePages.recycle(UnsafeMutableRawPointer(base), byteCount: capacity * MemoryLayout<TapeEntry>.stride)
        } else {
            base.deallocate()
        }
    }
}
