#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a stream's bytes come from: a file descriptor or bytes in memory.
public protocol JSONByteSource {
    /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int

    /// The same bytes as a regular file that several threads can read at their own offsets
    /// (`JSONPositionalBytes`), when the source is one and nothing has been read from it yet;
    /// `nil` (the default) reads it in turn with `read(into:)`.
    var positional: JSONPositionalBytes? { get }
}

extension JSONByteSource {
    public var positional: JSONPositionalBytes? { nil }
}

/// Reads an open file descriptor (a file, a pipe, standard input) without taking ownership of it.
public struct FileDescriptorSource: JSONByteSource {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        while true {
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            #else
            let count = Darwin.read(descriptor, buffer.baseAddress, buffer.count)
            #endif
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .unreadable(at: 0)
        }
    }

    /// The descriptor's bytes from its current offset, when it is a regular file.
    public var positional: JSONPositionalBytes? {
        JSONPositionalBytes(descriptor: descriptor, from: lseek(descriptor, 0, SEEK_CUR))
    }
}

/// Bytes already in memory, read as a stream (tests and embedders holding a buffer).
public struct InMemorySource: JSONByteSource {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        bytes.withUnsafeBytes { source in
            buffer.baseAddress?.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}

/// Why a stream cannot go on: its framing (the array around the elements, the line structure)
/// is broken, or the input cannot be read. Elements before it were already delivered.
public struct JSONStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Byte offset in the whole input.
    public var offset: Int
    /// The index of the element being read, when one was.
    public var element: Int?
    /// Whether the input is malformed (`false`: it could not be read, or an element is over the size limit).
    public var isMalformed = true

    public init(message: String, offset: Int, element: Int?, isMalformed: Bool = true) {
        self.message = message
        self.offset = offset
        self.element = element
        self.isMalformed = isMalformed
    }

    /// An element (or line) longer than `maximumElementBytes`, which begins at `offset`; reading
    /// stopped once `bytesRead` bytes of the input were read.
    static func oversized(maximumElementBytes: Int, bytesRead: Int, offset: Int, element: Int?) -> JSONStreamError {
        JSONStreamError(message: "an element (or line) is larger than \(maximumElementBytes) bytes, the most one may have; "
                            + "reading stopped after \(bytesRead) bytes of input",
                        offset: offset, element: element, isMalformed: false)
    }

    /// A read that failed with the current `errno`, at `offset`.
    static func unreadable(at offset: Int) -> JSONStreamError {
        JSONStreamError(message: "cannot read the input: \(String(cString: strerror(errno)))", offset: offset, element: nil, isMalformed: false)
    }

    public var description: String {
        let place = "byte \(offset)\(element.map { " (element \($0))" } ?? "")"
        return isMalformed ? "malformed JSON at \(place): \(message)" : "\(message) (at \(place))"
    }
}

/// Consecutive elements of a stream, copied into one buffer that parses as a JSON array of them
/// (`[e0,e1,…]`), so a whole batch is one `JSONDocument` instead of one per element — or, cut from
/// an array in a file, the bytes read and the elements already parsed from them (`parsed`).
public struct JSONElementBatch: Sendable {
    /// `[`, the elements separated by `,`, `]`; or, with `parsed`, the bytes it was parsed from.
    public var bytes: [UInt8]
    /// Each element's byte range in `bytes`.
    public var ranges: [Range<Int>]
    /// The stream index of the first element (elements are numbered from 0).
    public var firstIndex: Int
    /// NDJSON: each element's 1-based line number; empty for arrays.
    public var lines: [Int]
    /// The elements, already parsed (an array whose elements are the batch's).
    public var parsed: JSONDocument?

    /// A batch of the elements at `ranges` of `bytes`, the first numbered `firstIndex`.
    public init(bytes: [UInt8], ranges: [Range<Int>], firstIndex: Int, lines: [Int], parsed: JSONDocument? = nil) {
        self.bytes = bytes
        self.ranges = ranges
        self.firstIndex = firstIndex
        self.lines = lines
        self.parsed = parsed
    }

    /// The batch's elements, parsed; `nil` when one of them is not valid JSON.
    public func nodes() -> [JSONNode]? {
        wholeDocument().map { Array($0.root.elements) }
    }

    /// Parses the batch; when it is not valid JSON, parses each element on its own so a bad
    /// element is reported alone and the others still map.
    public func documents() -> [Result<JSONNode, JSONParseError>] {
        if let document = wholeDocument() { return document.root.elements.map { .success($0) } }
        return ranges.map { range in
            // An element missing before a comma (`[1,,2]`) is an empty range: the comma found
            // where it should begin is parsed instead, for an error that names it.
            let comma = range.isEmpty ? bytes[range.lowerBound...].firstIndex(where: { !isJSONWhitespace($0) }) : nil
            let shown = comma.flatMap { bytes[$0] == UInt8(ascii: ",") ? $0..<($0 + 1) : nil }
            return Result { () throws(JSONParseError) in try JSONDocument(bytes: Array(bytes[shown ?? range])).root }
        }
    }

    /// The array of every element: `parsed`, or the batch's bytes parsed; `nil` when they are not
    /// valid JSON.
    private func wholeDocument() -> JSONDocument? {
        if let parsed { return parsed }
        guard let document = try? JSONDocument(bytes: bytes), document.root.count == ranges.count else { return nil }
        return document
    }
}

/// What a stream holds.
public enum JSONStreamLayout: Sendable, Equatable {
    /// A JSON document whose array at `keys` (object keys from the top; none: the document is
    /// the array) holds the elements.
    case array(keys: [String])
    /// One JSON text per line; blank lines are skipped.
    case lines
}

/// Splits a stream into elements without holding the whole input: the elements of a top-level
/// array (or of the array at a path of object keys), or the lines of NDJSON.
///
/// Only the framing is checked here (brackets, commas, what surrounds the array); each element is
/// parsed, strictly, by `JSONElementBatch.documents()`. Memory is bounded by the batch size plus
/// the largest element.
public struct JSONElementStream<Source: JSONByteSource> {
    private enum State {
        case start, inArray(expectingElement: Bool), afterArray(openObjects: Int), finished
    }

    private var source: Source
    private let layout: JSONStreamLayout
    private var buffer: [UInt8]
    /// Unread bytes are `buffer[position..<filled]`.
    private var position = 0
    private var filled = 0
    /// Offset in the input of `buffer[0]`.
    private var bufferOffset = 0
    private var atEnd = false
    private var state = State.start
    private var nextIndex = 0
    private var lineNumber = 1
    private var pendingFailure: JSONStreamError?
    /// The most bytes one element (or line) may have; a longer one ends the stream with an error
    /// as soon as that many bytes of it are read, instead of growing the buffer without end.
    private let maximumElementBytes: Int
    /// Arrays: an element beginning at or after this input offset is not read (`stoppedAt`).
    private var stopOffset = Int.max
    /// Where the stream stopped before an element at or after its stop offset; `nil` while it has
    /// not (and once the array ended or the stream failed).
    public private(set) var stoppedAt: JSONArrayCursor?

    /// - Parameter maximumElementBytes: the largest element (or line) held; at most
    ///   `JSONDocument.maximumByteCount`, which is also the default (no larger element parses).
    public init(source: Source, layout: JSONStreamLayout, bufferSize: Int = 1 << 20,
                maximumElementBytes: Int = JSONDocument.maximumByteCount) {
        self.source = source
        self.layout = layout
        self.maximumElementBytes = min(max(maximumElementBytes, 1), JSONDocument.maximumByteCount)
        self.buffer = [UInt8](repeating: 0, count: max(min(bufferSize, self.maximumElementBytes + 1), 64))
    }

    /// Splits bytes already in memory, reading them in place instead of copying them into a read
    /// buffer piece by piece.
    public init(bytes: [UInt8], layout: JSONStreamLayout) where Source == InMemorySource {
        self.source = InMemorySource([])
        self.layout = layout
        self.maximumElementBytes = JSONDocument.maximumByteCount
        // Never empty, so the scans always have a base address; nothing is read past `filled`.
        self.buffer = bytes.isEmpty ? [0] : bytes
        self.filled = bytes.count
        self.atEnd = true
    }

    /// Reads an array's elements from `cursor` on (input offset `cursor.offset` is the source's
    /// first byte), up to the first element beginning at or after input offset `stopOffset`
    /// (`stoppedAt` then says where it is), or through the end of the document.
    ///
    /// From the same cursor and bytes it gives what a stream reading the whole input gives from
    /// there on — elements, framing errors, the end of the document — except that elements are
    /// numbered from 0 at the cursor, in batches and in errors.
    public init(resuming cursor: JSONArrayCursor.Element, source: Source, layout: JSONStreamLayout, stopOffset: Int = .max,
                bufferSize: Int = 1 << 20, maximumElementBytes: Int = JSONDocument.maximumByteCount) {
        self.init(source: source, layout: layout, bufferSize: bufferSize, maximumElementBytes: maximumElementBytes)
        bufferOffset = cursor.offset
        self.stopOffset = stopOffset
        state = .inArray(expectingElement: cursor.afterComma)
    }

    /// Reads what comes before an array's first element (the objects around it, its `[`); the
    /// cursor after the `[`, or `.ended` when the input is empty (or only whitespace), which holds
    /// no elements.
    public mutating func arrayEntry() throws(JSONStreamError) -> JSONArrayCursor {
        guard case .array(let keys) = layout, case .start = state else { preconditionFailure("arrayEntry() begins an array stream") }
        try skipWhitespace()
        if position >= filled, atEnd {
            state = .finished
            return .ended
        }
        try enterArray(keys: keys)
        state = .inArray(expectingElement: false)
        return .element(.init(offset: bufferOffset + position, afterComma: false))
    }

    /// The next elements, about `targetBytes` of them; `nil` once the stream is over.
    public mutating func nextBatch(targetBytes: Int = 1 << 20) throws(JSONStreamError) -> JSONElementBatch? {
        var batch = JSONElementBatch(bytes: [UInt8(ascii: "[")], ranges: [], firstIndex: nextIndex, lines: [])
        batch.bytes.reserveCapacity(min(targetBytes, buffer.count) + 64)
        if let pendingFailure {
            self.pendingFailure = nil
            throw pendingFailure
        }
        while batch.ranges.isEmpty || batch.bytes.count < targetBytes {
            let element: Element
            do throws(JSONStreamError) {
                guard let next = try nextElement() else { break }
                element = next
            } catch {
                // Deliver the elements read so far; the failure comes with the next call.
                if batch.ranges.isEmpty { throw error }
                pendingFailure = error
                break
            }
            if !batch.ranges.isEmpty { batch.bytes.append(UInt8(ascii: ",")) }
            let start = batch.bytes.count
            batch.bytes.append(contentsOf: buffer[element.range])
            batch.ranges.append(start..<batch.bytes.count)
            if let line = element.line { batch.lines.append(line) }
            position = element.resume
        }
        batch.bytes.append(UInt8(ascii: "]"))
        return batch.ranges.isEmpty ? nil : batch
    }

    // MARK: Elements

    /// An element's bytes in `buffer` (valid until the next read) and where reading goes on.
    private typealias Element = (range: Range<Int>, line: Int?, resume: Int)

    /// The next element, or `nil` at the end.
    private mutating func nextElement() throws(JSONStreamError) -> Element? {
        switch layout {
        case .lines: return try nextLine()
        case .array(let keys): return try nextArrayElement(keys: keys)
        }
    }

    private mutating func nextLine() throws(JSONStreamError) -> Element? {
        while true {
            var searched = position
            while true {
                let newline = buffer.withUnsafeBytes { bytes in
                    memchr(bytes.baseAddress! + searched, 0x0A, filled - searched).map { UnsafeRawPointer($0) - bytes.baseAddress! }
                }
                if let newline {
                    let line = lineNumber
                    lineNumber += 1
                    var end = newline
                    if end > position, buffer[end - 1] == 0x0D { end -= 1 }
                    let range = position..<end
                    if isBlank(range) {
                        position = newline + 1
                        break
                    }
                    nextIndex += 1
                    return (range, line, newline + 1)
                }
                searched = filled
                if atEnd {
                    guard position < filled, !isBlank(position..<filled) else { return nil }
                    let line = lineNumber
                    lineNumber += 1
                    nextIndex += 1
                    return (position..<filled, line, filled)
                }
                let shift = try refill()
                searched -= shift
            }
        }
    }

    private func isBlank(_ range: Range<Int>) -> Bool {
        buffer[range].allSatisfy(isJSONWhitespace)
    }

    private mutating func nextArrayElement(keys: [String]) throws(JSONStreamError) -> Element? {
        while true {
            switch state {
            case .start:
                // An empty body (or only whitespace) has no elements, as it maps to no records whole.
                try skipWhitespace()
                if position >= filled, atEnd {
                    state = .finished
                    continue
                }
                try enterArray(keys: keys)
                state = .inArray(expectingElement: false)
            case .inArray(let expectingElement):
                try skipWhitespace()
                guard position < filled else { throw failure("unterminated array: expected ',' or ']'", element: nextIndex) }
                let byte = buffer[position]
                if byte == UInt8(ascii: "]") {
                    if expectingElement { throw failure("expected a value after ','", element: nextIndex) }
                    position += 1
                    state = .afterArray(openObjects: keys.count)
                    continue
                }
                if nextIndex > 0 && !expectingElement {
                    guard byte == UInt8(ascii: ",") else { throw failure("expected ',' or ']' after an array element", element: nextIndex - 1) }
                    position += 1
                    state = .inArray(expectingElement: true)
                    continue
                }
                if bufferOffset + position >= stopOffset {
                    stoppedAt = .element(.init(offset: bufferOffset + position, afterComma: expectingElement))
                    return nil
                }
                let end = try valueEnd(element: nextIndex)
                state = .inArray(expectingElement: false)
                nextIndex += 1
                return (position..<end, nil, end)
            case .afterArray(let openObjects):
                try finishDocument(openObjects: openObjects)
                state = .finished
            case .finished:
                return nil
            }
        }
    }

    // MARK: Framing

    /// Walks object keys down to the array and stops after its '['.
    private mutating func enterArray(keys: [String]) throws(JSONStreamError) {
        for (depth, key) in keys.enumerated() {
            try skipWhitespace()
            guard position < filled, buffer[position] == UInt8(ascii: "{") else {
                let walked = keys[..<depth].joined(separator: ".")
                throw failure("expected an object\(walked.isEmpty ? "" : " at '\(walked)'") to find '\(key)' in", element: nil)
            }
            position += 1
            var first = true
            while true {
                try skipWhitespace()
                guard position < filled else { throw failure("unterminated object", element: nil) }
                if buffer[position] == UInt8(ascii: "}") {
                    throw failure("no member '\(keys[...depth].joined(separator: "."))' holds an array to stream", element: nil)
                }
                if !first {
                    guard buffer[position] == UInt8(ascii: ",") else { throw failure("expected ',' or '}' after an object member", element: nil) }
                    position += 1
                    try skipWhitespace()
                }
                first = false
                let found = try readKey()
                if found == key { break }
                position = try valueEnd(element: nil)
            }
        }
        try skipWhitespace()
        guard position < filled, buffer[position] == UInt8(ascii: "[") else {
            let place = keys.isEmpty ? "the document" : "'\(keys.joined(separator: "."))'"
            throw failure("\(place) is not an array, which streaming needs (map it without streaming)", element: nil)
        }
        position += 1
    }

    /// After the array: the rest of each enclosing object, then nothing but whitespace.
    private mutating func finishDocument(openObjects: Int) throws(JSONStreamError) {
        for _ in 0..<openObjects {
            while true {
                try skipWhitespace()
                guard position < filled else { throw failure("unterminated object", element: nil) }
                if buffer[position] == UInt8(ascii: "}") {
                    position += 1
                    break
                }
                guard buffer[position] == UInt8(ascii: ",") else { throw failure("expected ',' or '}' after an object member", element: nil) }
                position += 1
                try skipWhitespace()
                _ = try readKey()
                position = try valueEnd(element: nil)
            }
        }
        try skipWhitespace()
        if position < filled { throw failure("unexpected text after the document", element: nil) }
    }

    /// Reads `"key":` and the whitespace after it; returns the key's text.
    private mutating func readKey() throws(JSONStreamError) -> String {
        guard position < filled, buffer[position] == UInt8(ascii: "\"") else { throw failure("expected a string key", element: nil) }
        let end = try valueEnd(element: nil)
        let text = buffer[position..<end]
        let key: String
        if text.contains(UInt8(ascii: "\\")) {
            guard let decoded = (try? JSONDocument(bytes: Array(text)))?.root.stringValue else { throw failure("invalid key", element: nil) }
            key = decoded
        } else {
            key = String(decoding: text.dropFirst().dropLast(), as: UTF8.self)
        }
        position = end
        try skipWhitespace()
        guard position < filled, buffer[position] == UInt8(ascii: ":") else { throw failure("expected ':' after an object key", element: nil) }
        position += 1
        return key
    }

    /// The end of the value at `position` (reading more input as needed). Containers end at their
    /// matching bracket (strings skipped), scalars at the next delimiter; the value itself is
    /// checked when it is parsed.
    private mutating func valueEnd(element: Int?) throws(JSONStreamError) -> Int {
        try skipWhitespace()
        var scanned = position
        var scan = JSONValueScan()
        guard position < filled else { throw failure("expected a value", element: element) }
        let first = buffer[position]
        let isScalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        while true {
            let end: Int? = buffer.withUnsafeBufferPointer { bytes in
                var cursor = scanned
                // A local copy, kept in registers by the loop, written back once.
                var state = scan
                defer { scan = state }
                while cursor < filled {
                    if state.inString, !state.escaped {
                        // Skip eight bytes at a time to the next '"' or '\\'.
                        JSONStrings.skipPlainWords(bytes.baseAddress!, at: &cursor, to: filled, stoppingAt: .quoteAndBackslash)
                        if cursor >= filled { break }
                    }
                    let byte = bytes[cursor]
                    cursor += 1
                    if !isScalar {
                        if state.ends(at: byte) { return cursor }
                        continue
                    }
                    switch byte {
                    case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: return cursor - 1
                    default: continue
                    }
                }
                scanned = cursor
                return nil
            }
            if let end { return end }
            if atEnd {
                if isScalar { return filled }
                throw failure(scan.inString ? "unterminated string" : "unterminated \(first == UInt8(ascii: "{") ? "object" : "array")", element: element)
            }
            scanned -= try refill()
        }
    }

    private mutating func skipWhitespace() throws(JSONStreamError) {
        while true {
            while position < filled {
                switch buffer[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
            if atEnd { return }
            _ = try refill()
        }
    }

    /// Reads more input, first moving the unread bytes to the front (growing the buffer when an
    /// element fills it). Returns how far the unread bytes moved.
    @discardableResult
    private mutating func refill() throws(JSONStreamError) -> Int {
        let shift = position
        if shift > 0 {
            buffer.withUnsafeMutableBytes { bytes in
                _ = memmove(bytes.baseAddress!, bytes.baseAddress! + shift, filled - shift)
            }
            filled -= shift
            position = 0
            bufferOffset += shift
        }
        if filled == buffer.count {
            // The unread bytes fill the buffer: one element (or line) has all of them.
            guard filled <= maximumElementBytes else {
                throw .oversized(maximumElementBytes: maximumElementBytes, bytesRead: bufferOffset + filled, offset: bufferOffset,
                                 element: nextIndex)
            }
            buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, maximumElementBytes + 1 - buffer.count)))
        }
        var failure: JSONStreamError?
        let count = buffer.withUnsafeMutableBytes { bytes in
            do throws(JSONStreamError) { return try source.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...])) } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        if count == 0 { atEnd = true }
        filled += count
        return shift
    }

    private func failure(_ message: String, element: Int?) -> JSONStreamError {
        JSONStreamError(message: message, offset: bufferOffset + position, element: element)
    }
}

/// Where a JSON value ends, found byte by byte: the containers open in it, and whether the scan is
/// in a string (and right after a backslash there). Strings are skipped whole, so brackets in
/// them count for nothing. Shared by `JSONElementStream` (the end of each element) and
/// `JSONPositionalArrayChunks` (the end of the element a chunk begins inside).
struct JSONValueScan {
    var depth = 0
    var inString = false
    var escaped = false

    /// Takes the next byte; `true` when it ends the value: the quote closing a string, or the
    /// bracket closing a container, that leaves no container open.
    @inline(__always) mutating func ends(at byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return depth == 0
            }
            return false
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            return depth == 0
        default:
            break
        }
        return false
    }
}
