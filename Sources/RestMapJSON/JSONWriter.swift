/// A fast appending JSON writer; commas and colons are placed automatically.
///
/// Strings are escaped per RFC 8259 (quotes, backslashes and control characters; `/` and
/// non-ASCII are written as is). With `pretty`, containers are indented by two spaces.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private let pretty: Bool
    /// Per open container: whether it has an element yet.
    private var hasElements: [Bool] = []
    private var afterKey = false

    public init(pretty: Bool = false) {
        self.pretty = pretty
    }

    /// Makes room ahead for a large output, between two values: once a quarter of the buffer is
    /// left, it moves to one twice as large on huge pages (`HugePages`), instead of growing by
    /// the array's own reallocation, which maps the new buffer 4 KiB at a time.
    public mutating func reserveAhead() {
        let capacity = bytes.capacity, count = bytes.count
        guard capacity - count < capacity / 4, 2 * capacity >= HugePages.minimumByteCount else { return }
        bytes = [UInt8](unsafeUninitializedCapacity: 2 * capacity) { buffer, initialized in
            HugePages.advise(buffer.baseAddress!, byteCount: buffer.count)
            initialized = bytes.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }

    /// The written text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Writes a member key (and the comma before it when needed).
    public mutating func key(_ key: String) {
        separate()
        appendString(key)
        endKey()
    }

    /// Writes a member key given as encoded JSON text, quotes included (see `encoded(_:)`): a key
    /// known in advance is escaped once, not each time it is written.
    public mutating func key(encoded key: [UInt8]) {
        key.withUnsafeBufferPointer { self.key(encoded: $0) }
    }

    /// Writes a member key given as encoded JSON text in borrowed memory (see `key(encoded:)`).
    package mutating func key(encoded key: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(contentsOf: key)
        endKey()
    }

    /// The colon after a key; the value comes next.
    private mutating func endKey() {
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// Writes a value given as encoded JSON text (see `encoded(_:)`).
    public mutating func value(encoded value: [UInt8]) {
        separate()
        bytes.append(contentsOf: value)
    }

    /// A string as encoded JSON text, quotes included, for `key(encoded:)` and `value(encoded:)`.
    public static func encoded(_ string: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.string(string)
        return writer.bytes
    }

    public mutating func string(_ value: String) {
        separate()
        appendString(value)
    }

    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // room for the 20 digits of UInt64.max, filled from the end
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// A double in its shortest round-trip form; non-finite values are written as null.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        raw(value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value))
    }

    /// Writes a string whose UTF-8 text `append` adds to the output; the text must need no
    /// escaping (no quote, backslash or control character), as formatted dates and numbers do not.
    public mutating func unescapedString(_ append: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Ends the line of a top-level value (NDJSON: one value per line).
    public mutating func endLine() {
        bytes.append(0x0A)
    }

    /// Writes a `,` between top-level values (array elements written without their array's brackets).
    public mutating func comma() {
        bytes.append(UInt8(ascii: ","))
    }

    public mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }
    public mutating func null() { raw("null") }

    /// Writes text that is already JSON (an exact number lexeme, a decimal).
    public mutating func raw(_ json: String) {
        separate()
        bytes.append(contentsOf: json.utf8)
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        hasElements.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        let hadElements = hasElements.removeLast()
        if pretty, hadElements { newline() }
        bytes.append(bracket)
    }

    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard !hasElements.isEmpty else { return }
        if hasElements[hasElements.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasElements[hasElements.count - 1] = true
        if pretty { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: hasElements.count * 2))
    }

    /// The position of the first byte from `start` on that a JSON string must escape (a quote, a
    /// backslash or a control character), or `utf8.count`; eight bytes at a time.
    static func nextEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        // Total: callers pass a non-empty buffer.
        let base = utf8.baseAddress!
        let count = utf8.count
        var position = start
        JSONStrings.skipPlainWords(base, at: &position, to: count, stoppingAt: .escapes)
        while position < count {
            let byte = base[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return position }
            position += 1
        }
        return count
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Runs of bytes that need no escaping (most strings are one run) are copied at once.
        var text = value
        text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return }
            var start = 0
            while true {
                let escape = Self.nextEscape(in: utf8, from: start)
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: escape - start))
                guard escape < utf8.count else { return }
                appendEscape(of: base[escape])
                start = escape + 1
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The escape of a quote, a backslash or a control character.
    private mutating func appendEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
