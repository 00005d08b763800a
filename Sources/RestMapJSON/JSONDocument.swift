#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// Options of JSON parsing.
public struct JSONParsingOptions: Sendable {
    /// Deepest nesting of arrays and objects accepted; deeper documents are refused with an
    /// error (the parser is iterative, so this bounds memory, not the stack). Default 512.
    public var maximumDepth: Int
    /// Most values a document may hold, member names included (every object, array, name,
    /// string, number, `true`, `false` and `null` counts one); a larger document is refused with
    /// an error whose `exceedsValueCount` is set. This bounds the parsed form (16 bytes a value)
    /// and everything mapped from it. Default: no limit.
    public var maximumValueCount: Int

    public init(maximumDepth: Int = 512, maximumValueCount: Int = .max) {
        self.maximumDepth = maximumDepth
        self.maximumValueCount = maximumValueCount
    }
}

/// Why a body is not valid JSON, and where.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "expected ',' or '}' after an object member".
    public var message: String
    /// Byte offset of the problem.
    public var offset: Int
    /// 1-based line.
    public var line: Int
    /// 1-based column, in bytes.
    public var column: Int
    /// The document holds more values than `JSONParsingOptions.maximumValueCount`: a limit, not
    /// a syntax error.
    public var exceedsValueCount = false

    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// The kind of a JSON value.
public enum JSONKind: Sendable, Hashable {
    case null, bool, number, string, array, object
}

/// One entry of the tape: a value's kind, where its text is, and for containers where the
/// container ends on the tape (so a whole subtree is skipped in O(1)).
@usableFromInline
struct TapeEntry {
    @usableFromInline
    enum Tag: UInt8 { case null, `true`, `false`, number, string, array, object }
    @usableFromInline var tag: Tag
    /// Numbers: the lexeme has no fraction or exponent. Strings: the text has escapes.
    @usableFromInline var flag: Bool
    /// Strings: offset after the opening quote; numbers and literals: first byte; containers: the bracket.
    @usableFromInline var start: UInt32
    /// Strings and numbers: end offset (exclusive); containers: tape index after the last descendant.
    @usableFromInline var end: UInt32
    /// Containers: number of elements or members.
    @usableFromInline var count: UInt32

    @inlinable var isContainer: Bool { tag == .array || tag == .object }
}

/// A parsed JSON document: the bytes and a flat tape of values, built in one pass.
///
/// Nothing is materialized while parsing: strings and numbers are read from the bytes when a
/// `JSONNode` is asked for them. Parse once, then read only what is needed.
///
/// The document keeps the body's array as it is (no copy) and owns the tape; neither changes
/// after parsing, so the hot accessors read them through plain pointers.
public final class JSONDocument: @unchecked Sendable {
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline let tape: UnsafeBufferPointer<TapeEntry>
    /// The array `bytes` points into. A constant of the document, so its buffer lives as long as
    /// the document and never changes: a mutation through another reference to the same array
    /// copies it first (copy-on-write), and Swift arrays on Linux are always contiguous.
    private let storage: [UInt8]
    /// The memory `tape` is in, released when the document ends.
    private let tapeAllocation: TapeAllocation

    /// The largest body a document holds: tape offsets are 32-bit, so larger input is refused
    /// with an error instead of overflowing them.
    public static let maximumByteCount = Int(UInt32.max) - 1

    /// The document `null`: a root to hold where no document is wanted any longer.
    package static let null = try! JSONDocument(bytes: Array("null".utf8))

    /// Parses UTF-8 JSON (RFC 8259): strict grammar, top-level scalars allowed.
    public init(bytes: [UInt8], options: JSONParsingOptions = .init()) throws(JSONParseError) {
        guard bytes.count <= Self.maximumByteCount else {
            throw JSONParseError(message: "the document is \(bytes.count) bytes; at most \(Self.maximumByteCount) are supported",
                                 offset: Self.maximumByteCount, line: 1, column: 1)
        }
        let buffer = bytes.withUnsafeBufferPointer { $0 }
        var parser = JSONParser(bytes: buffer, maximumDepth: options.maximumDepth, maximumValueCount: options.maximumValueCount)
        let parsed = try parser.parse()
        storage = bytes
        self.bytes = buffer
        self.tape = UnsafeBufferPointer(parsed.entries)
        tapeAllocation = parsed.allocation
        stoppedAt = nil
    }

    /// Parses the elements of a JSON array cut out of `body` without copying it: the bytes from
    /// `range.lowerBound` to `range.upperBound` (both included) are read as an array whose `[` and
    /// `]` the first and last bytes stand for, whatever they are — a `,` where a larger array was
    /// cut between two elements. Offsets (`JSONNode.byteOffset`) count from `range.lowerBound`.
    package init(elementsIn body: [UInt8], range: ClosedRange<Int>, options: JSONParsingOptions = .init()) throws(JSONParseError) {
        let whole = body.withUnsafeBufferPointer { $0 }
        let buffer = UnsafeBufferPointer(rebasing: whole[range])
        guard buffer.count <= Self.maximumByteCount else {
            throw JSONParseError(message: "the run is \(buffer.count) bytes; at most \(Self.maximumByteCount) are supported",
                                 offset: Self.maximumByteCount, line: 1, column: 1)
        }
        var parser = JSONParser(bytes: buffer, maximumDepth: options.maximumDepth, maximumValueCount: options.maximumValueCount,
                                bracketed: true)
        let parsed = try parser.parse()
        storage = body
        self.bytes = buffer
        self.tape = UnsafeBufferPointer(parsed.entries)
        tapeAllocation = parsed.allocation
        stoppedAt = nil
    }

    /// Parses the elements of a JSON array from the second byte of `body` on (the first stands
    /// for `[`, whatever it is), up to the first element after a `,` that begins at or after
    /// `stopOffset`: that element's offset is `stoppedAt`. Input that ends first, or any other
    /// end of the array, is an error. Offsets count from the start of `body`.
    package init(elementsIn body: [UInt8], stoppingAt stopOffset: Int, options: JSONParsingOptions = .init()) throws(JSONParseError) {
        let buffer = body.withUnsafeBufferPointer { $0 }
        guard buffer.count <= Self.maximumByteCount else {
            throw JSONParseError(message: "the run is \(buffer.count) bytes; at most \(Self.maximumByteCount) are supported",
                                 offset: Self.maximumByteCount, line: 1, column: 1)
        }
        var parser = JSONParser(bytes: buffer, maximumDepth: options.maximumDepth, maximumValueCount: options.maximumValueCount,
                                bracketed: true, stopOffset: stopOffset)
        let parsed = try parser.parse()
        guard let stoppedAt = parser.stoppedAt else {
            parsed.allocation.release()
            throw JSONParseError(message: "the run did not reach an element at or after \(stopOffset)", offset: buffer.count, line: 1, column: 1)
        }
        storage = body
        self.bytes = buffer
        self.tape = UnsafeBufferPointer(parsed.entries)
        tapeAllocation = parsed.allocation
        self.stoppedAt = stoppedAt
    }

    /// A run parsed with `init(elementsIn:stoppingAt:)`: the offset of the element it stopped before.
    package let stoppedAt: Int?

    deinit {
        tapeAllocation.release()
    }

    /// Parses the UTF-8 bytes of a string.
    public convenience init(string: String, options: JSONParsingOptions = .init()) throws(JSONParseError) {
        try self.init(bytes: Array(string.utf8), options: options)
    }

    /// The top-level value.
    public var root: JSONNode { JSONNode(document: self, index: 0) }
}

/// A value of a document: a cheap handle (document and tape index).
public struct JSONNode: Sendable {
    @usableFromInline let document: JSONDocument
    @usableFromInline let index: Int

    @inlinable init(document: JSONDocument, index: Int) {
        self.document = document
        self.index = index
    }

    @inlinable var entry: TapeEntry { document.tape[index] }

    @inlinable public var kind: JSONKind {
        switch entry.tag {
        case .null: .null
        case .true, .false: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    @inlinable public var isNull: Bool { entry.tag == .null }

    /// The value of `true` or `false`; `nil` for other kinds.
    @inlinable public var boolValue: Bool? {
        switch entry.tag {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The decoded string (escapes resolved); `nil` unless a string.
    @inlinable public var stringValue: String? {
        let entry = self.entry
        guard entry.tag == .string else { return nil }
        let slice = UnsafeBufferPointer(rebasing: document.bytes[Int(entry.start)..<Int(entry.end)])
        return entry.flag ? JSONStrings.unescape(slice) : String(decoding: slice, as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 of a string without escapes, in place (no `String` is made);
    /// `nil` for strings with escapes (read those with `stringValue`) and for other kinds.
    @inlinable package func withUnescapedStringUTF8<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let entry = self.entry
        guard entry.tag == .string, !entry.flag else { return nil }
        return try body(UnsafeBufferPointer(rebasing: document.bytes[Int(entry.start)..<Int(entry.end)]))
    }

    /// The number; `nil` unless a number.
    @inlinable public var number: JSONNumber? {
        let entry = self.entry
        guard entry.tag == .number else { return nil }
        return JSONNumber(document: document, start: Int(entry.start), end: Int(entry.end), isInteger: entry.flag)
    }

    /// Elements of an array or members of an object; 0 otherwise.
    public var count: Int {
        let entry = self.entry
        return entry.tag == .array || entry.tag == .object ? Int(entry.count) : 0
    }

    /// Where the value starts in the source (for a string: its opening quote).
    public var byteOffset: Int {
        let entry = self.entry
        return entry.tag == .string ? Int(entry.start) - 1 : Int(entry.start)
    }

    /// The value's text from its first byte through the end of its last scalar (or the opening
    /// bracket of its last, empty, container). What follows in the value is whitespace and the
    /// closing brackets that this text leaves open, so two values with the same such text are the
    /// same value. Valid while the document lives.
    package var leadingText: UnsafeBufferPointer<UInt8> {
        let entry = self.entry
        let lastIndex = entry.isContainer ? Int(entry.end) - 1 : index
        let last = document.tape[lastIndex]
        let end = switch last.tag {
        case .string: Int(last.end) + 1
        case .number: Int(last.end)
        case .true, .null: Int(last.start) + 4
        case .false: Int(last.start) + 5
        case .array, .object: Int(last.start) + 1
        }
        return UnsafeBufferPointer(rebasing: document.bytes[byteOffset..<end])
    }

    /// Whether this value and `other` are the same JSON, compared by their text
    /// (`leadingText`): byte for byte, so the same value written with other spacing or escapes
    /// is not recognized (the caller then does the work it wanted to skip).
    package func hasSameText(as other: JSONNode) -> Bool {
        let mine = leadingText, theirs = other.leadingText
        return mine.count == theirs.count && (mine.baseAddress == theirs.baseAddress || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0)
    }

    /// The tape index after this value and its descendants.
    @inlinable var next: Int {
        let entry = self.entry
        return entry.isContainer ? Int(entry.end) : index + 1
    }

    /// The member named `key`; with duplicate keys the first one wins (RFC 8259 leaves the
    /// choice open; the first lets a lookup stop early). `nil` for other kinds.
    @inlinable public subscript(key: String) -> JSONNode? {
        let container = entry
        guard container.tag == .object else { return nil }
        var key = key
        return key.withUTF8 { wanted -> JSONNode? in
            let bytes = document.bytes
            let tape = document.tape
            let wantedCount = wanted.count
            let firstByte = wantedCount > 0 ? wanted[0] : 0
            var position = index + 1
            let end = Int(container.end)
            while position < end {
                let keyEntry = tape[position]
                let start = Int(keyEntry.start)
                let length = Int(keyEntry.end) &- start
                if keyEntry.flag {
                    let decoded = JSONStrings.unescape(UnsafeBufferPointer(rebasing: bytes[start..<Int(keyEntry.end)]))
                    if decoded.utf8.elementsEqual(wanted) { return JSONNode(document: document, index: position + 1) }
                } else if length == wantedCount,
                          // Total: both base addresses exist when length > 0 (the document's
                          // buffer is never empty; `wanted` has `length` bytes).
                          length == 0 || (bytes[start] == firstByte && memcmp(bytes.baseAddress! + start, wanted.baseAddress!, length) == 0) {
                    return JSONNode(document: document, index: position + 1)
                }
                let value = tape[position + 1]
                position = value.isContainer ? Int(value.end) : position + 2
            }
            return nil
        }
    }

    /// The element at `index` of an array; `nil` when out of range or not an array.
    public subscript(index: Int) -> JSONNode? {
        guard entry.tag == .array, index >= 0, index < count else { return nil }
        var position = self.index + 1
        for _ in 0..<index { position = JSONNode(document: document, index: position).next }
        return JSONNode(document: document, index: position)
    }

    /// The elements of an array (empty for other kinds).
    public var elements: JSONArrayElements { JSONArrayElements(node: self) }

    /// The members of an object in source order (empty for other kinds).
    public var members: JSONObjectMembers { JSONObjectMembers(node: self) }

    /// The keys of an object in source order (empty for other kinds).
    public var keys: [String] { members.map(\.key) }
}

/// The elements of an array node.
public struct JSONArrayElements: Sequence, Sendable {
    let node: JSONNode

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var position: Int
        let end: Int

        public mutating func next() -> JSONNode? {
            guard position < end else { return nil }
            let node = JSONNode(document: document, index: position)
            position = node.next
            return node
        }
    }

    public func makeIterator() -> Iterator {
        let entry = node.entry
        guard entry.tag == .array else { return Iterator(document: node.document, position: 0, end: 0) }
        return Iterator(document: node.document, position: node.index + 1, end: Int(entry.end))
    }

    /// The element count of an array; 0 for every other kind, whose iterator yields nothing
    /// (`Sequence.map` trusts this number, so it must never exceed what the iterator yields).
    public var underestimatedCount: Int { node.kind == .array ? node.count : 0 }
}

/// The members of an object node.
public struct JSONObjectMembers: Sequence, Sendable {
    let node: JSONNode

    public struct Iterator: IteratorProtocol {
        let document: JSONDocument
        var position: Int
        let end: Int

        public mutating func next() -> (key: String, value: JSONNode)? {
            guard position < end else { return nil }
            let key = JSONNode(document: document, index: position).stringValue ?? ""
            let value = JSONNode(document: document, index: position + 1)
            position = value.next
            return (key, value)
        }
    }

    public func makeIterator() -> Iterator {
        let entry = node.entry
        guard entry.tag == .object else { return Iterator(document: node.document, position: 0, end: 0) }
        return Iterator(document: node.document, position: node.index + 1, end: Int(entry.end))
    }

    /// The member count of an object; 0 for every other kind, whose iterator yields nothing
    /// (`Sequence.map` trusts this number, so it must never exceed what the iterator yields).
    public var underestimatedCount: Int { node.kind == .object ? node.count : 0 }
}

/// A JSON number: the exact lexeme, read lazily.
public struct JSONNumber: Sendable, Hashable {
    @usableFromInline let document: JSONDocument
    @usableFromInline let start: Int
    @usableFromInline let end: Int
    /// The lexeme has no fraction and no exponent.
    public let isInteger: Bool

    @inlinable init(document: JSONDocument, start: Int, end: Int, isInteger: Bool) {
        self.document = document
        self.start = start
        self.end = end
        self.isInteger = isInteger
    }

    /// The exact lexeme, e.g. "69726278940360707", "150.115", "-1e5".
    public var text: String {
        String(decoding: UnsafeBufferPointer(rebasing: document.bytes[start..<end]), as: UTF8.self)
    }

    /// The exact value when the lexeme is an integer that fits 64 bits.
    @inlinable public var int64: Int64? {
        guard isInteger else { return nil }
        let bytes = document.bytes
        do {
            var position = start
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            var value: Int64 = 0
            while position < end {
                let digit = Int64(bytes[position] &- UInt8(ascii: "0"))
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (added, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                if overflow1 || overflow2 { return nil }
                value = added
                position += 1
            }
            return value
        }
    }

    /// The nearest double.
    public var double: Double {
        if let exact = int64, abs(exact) < 1 << 53 { return Double(exact) }
        return Double(text) ?? .nan
    }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
