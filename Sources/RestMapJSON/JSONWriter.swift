/// A fast appending JSON writer; commas and colons are placed automatically.
///
/// Strings are escaped per RFC 8259 (quotes, backslashes and control characters; `/` and
/// non-ASCII are written as is). With `pretty`, containers are indented by two spaces.
///
/// The text is written into a buffer of its own (a pointer, a count and a capacity), not an
/// `Array`: a record's dozen keys and values are a few dozen small appends, and each array append
/// checked uniqueness and capacity through a call. Copies of a writer share the buffer until one
/// of them writes (copy on write).
public struct JSONWriter: @unchecked Sendable {
    // `@unchecked`: `base` is owned by `owner`, and written only while `owner` is uniquely referenced.
    private var owner: Owner
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    /// The bytes the buffer has room for.
    package private(set) var capacity: Int
    private let pretty: Bool
    /// Whether the innermost open container has an element yet, and the same for the ones around it.
    private var hasElements = false
    private var enclosingHaveElements: [Bool] = []
    private var depth = 0
    private var afterKey = false

    /// A writer whose buffer starts with room for `capacity` bytes.
    public init(pretty: Bool = false, capacity: Int = 256) {
        self.pretty = pretty
        owner = Owner(byteCount: Swift.max(capacity, 16))
        base = owner.base
        self.capacity = owner.byteCount
    }

    /// Forgets what was written, keeping the buffer for what is written next (a writer that
    /// writes a long output in chunks reuses one buffer instead of touching fresh memory).
    public mutating func removeAll() {
        count = 0
        if !isKnownUniquelyReferenced(&owner) { move(toCapacity: capacity) }
        hasElements = false
        enclosingHaveElements.removeAll(keepingCapacity: true)
        depth = 0
        afterKey = false
    }

    /// The written text, copied out.
    public var bytes: [UInt8] { withBytes { Array($0) } }

    /// The number of bytes written.
    public var byteCount: Int { count }

    /// Calls `body` with the written text in place.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(owner) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }

    /// The written text.
    public var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Makes room ahead for a large output, between two values: once a quarter of the buffer is
    /// left, it moves to one twice as large on huge pages (`HugePages`), which the kernel maps
    /// 2 MiB at a time instead of 4 KiB.
    public mutating func reserveAhead() {
        guard capacity - count < capacity / 4, 2 * capacity >= HugePages.minimumByteCount else { return }
        move(toCapacity: 2 * capacity)
    }

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
        guard !pretty, let start = key.baseAddress else {
            separate()
            append(key)
            endKey()
            return
        }
        // Compact output, the common case: the comma, the key and the colon in one step.
        reserve(key.count + 2)
        var position = base + count
        if needsComma() {
            position.pointee = UInt8(ascii: ",")
            position += 1
        }
        position.update(from: start, count: key.count)
        position += key.count
        position.pointee = UInt8(ascii: ":")
        count = position + 1 - base
        afterKey = true
    }

    /// The colon after a key; the value comes next.
    private mutating func endKey() {
        append(UInt8(ascii: ":"))
        if pretty { append(UInt8(ascii: " ")) }
        afterKey = true
    }

    /// Writes a value given as encoded JSON text (see `encoded(_:)`).
    public mutating func value(encoded value: [UInt8]) {
        separate()
        value.withUnsafeBufferPointer { append($0) }
    }

    /// A string as encoded JSON text, quotes included, for `key(encoded:)` and `value(encoded:)`.
    public static func encoded(_ string: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.string(string)
        return writer.bytes
    }

    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            separate(reserving: utf8.count + 2)
            appendString(utf8)
        }
    }

    public mutating func integer(_ value: Int64) {
        separate(reserving: 21)
        // Room for a sign and the 20 digits of UInt64.max, filled from the end.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            var magnitude = value.magnitude
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            let digitsStart = buffer.baseAddress!.bindMemory(to: UInt8.self, capacity: buffer.count) + position
            append(UnsafeBufferPointer(start: digitsStart, count: buffer.count - position))
        }
    }

    /// A double in its shortest round-trip form; non-finite values are written as null.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        raw(Self.text(of: value))
    }

    /// The JSON text of a finite double: its shortest round-trip form, whole numbers below
    /// 10^15 without a fraction.
    public static func text(of value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Writes a string whose UTF-8 text `write` puts at the pointer it is given, at most
    /// `maximumByteCount` bytes, returning how many; the text must need no escaping (no quote,
    /// backslash or control character), as formatted dates and numbers do not.
    public mutating func unescapedString(maximumByteCount: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        separate(reserving: maximumByteCount + 2)
        base[count] = UInt8(ascii: "\"")
        let written = write(base + count + 1)
        precondition(written <= maximumByteCount, "wrote more than the room it asked for")
        base[count + 1 + written] = UInt8(ascii: "\"")
        count += written + 2
    }

    /// Writes a string whose UTF-8 text `append` adds to the array it is given; the text must
    /// need no escaping (no quote, backslash or control character).
    public mutating func unescapedString(_ append: (inout [UInt8]) -> Void) {
        var text: [UInt8] = []
        append(&text)
        unescapedString(maximumByteCount: text.count) { target in
            text.withUnsafeBufferPointer { target.update(from: $0.baseAddress!, count: $0.count) }
            return text.count
        }
    }

    /// Ends the line of a top-level value (NDJSON: one value per line).
    public mutating func endLine() {
        append(0x0A)
    }

    /// Writes a `,` between top-level values (array elements written without their array's brackets).
    public mutating func comma() {
        append(UInt8(ascii: ","))
    }

    public mutating func bool(_ value: Bool) {
        separate(reserving: 5)
        append(value ? Self.trueText : Self.falseText)
    }

    public mutating func null() {
        separate(reserving: 4)
        append(Self.nullText)
    }

    private static let trueText = StaticString("true")
    private static let falseText = StaticString("false")
    private static let nullText = StaticString("null")

    /// Writes text that is already JSON (an exact number lexeme, a decimal).
    public mutating func raw(_ json: String) {
        separate()
        var json = json
        json.withUTF8 { append($0) }
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        append(bracket)
        if depth > 0 { enclosingHaveElements.append(hasElements) }
        depth += 1
        hasElements = false
    }

    private mutating func close(_ bracket: UInt8) {
        let hadElements = hasElements
        depth -= 1
        hasElements = depth > 0 ? enclosingHaveElements.removeLast() : false
        if pretty, hadElements { newline(indent: depth) }
        append(bracket)
    }

    private mutating func separate() {
        if afterKey {
            afterKey = false
            return
        }
        guard depth > 0 else { return }
        if hasElements { append(UInt8(ascii: ",")) }
        hasElements = true
        if pretty { newline(indent: depth) }
    }

    /// Whether a value written now needs a comma before it, updating the state as `separate`
    /// does; for compact output only (pretty output also breaks the line).
    @inline(__always) private mutating func needsComma() -> Bool {
        if afterKey {
            afterKey = false
            return false
        }
        guard depth > 0 else { return false }
        defer { hasElements = true }
        return hasElements
    }

    /// Separates a value (`separate`) and makes room for `byteCount` bytes of it.
    @inline(__always) private mutating func separate(reserving byteCount: Int) {
        if pretty {
            separate()
            reserve(byteCount)
        } else {
            reserve(byteCount + 1)
            if needsComma() {
                base[count] = UInt8(ascii: ",")
                count += 1
            }
        }
    }

    private mutating func newline(indent: Int) {
        reserve(1 + indent * 2)
        base[count] = 0x0A
        (base + count + 1).initialize(repeating: UInt8(ascii: " "), count: indent * 2)
        count += 1 + indent * 2
    }

    // MARK: The buffer

    /// Makes room for `byteCount` more bytes in a buffer this writer alone holds.
    @inline(__always) private mutating func reserve(_ byteCount: Int) {
        if count + byteCount > capacity || !isKnownUniquelyReferenced(&owner) {
            move(toCapacity: Swift.max(2 * capacity, count + byteCount))
        }
    }

    /// Moves the text to a buffer of its own of at least `byteCount` bytes.
    private mutating func move(toCapacity byteCount: Int) {
        let larger = Owner(byteCount: Swift.max(byteCount, count))
        larger.base.update(from: base, count: count)
        owner = larger
        base = larger.base
        capacity = larger.byteCount
    }

    @inline(__always) private mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always) private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    @inline(__always) private mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The memory of a writer's text; large buffers on huge pages (`HugePages.allocate`, given back
    /// to be reused when the writer ends).
    private final class Owner {
        let base: UnsafeMutablePointer<UInt8>
        let byteCount: Int
        private let isHugePages: Bool

        init(byteCount: Int) {
            if byteCount >= HugePages.minimumByteCount {
                let (start, allocated) = HugePages.allocate(byteCount: byteCount)
                base = start.bindMemory(to: UInt8.self, capacity: allocated)
                self.byteCount = allocated
                isHugePages = true
            } else {
                base = .allocate(capacity: byteCount)
                self.byteCount = byteCount
                isHugePages = false
            }
        }

        deinit {
            if isHugePages {
                HugePages.recycle(UnsafeMutableRawPointer(base), byteCount: byteCount)
            } else {
                base.deallocate()
            }
        }
    }

    // MARK: Strings

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
        var text = value
        text.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            appendString(utf8)
        }
    }

    /// A string's UTF-8 quoted and escaped; room for it unescaped is reserved already.
    @inline(__always) private mutating func appendString(_ utf8: UnsafeBufferPointer<UInt8>) {
        base[count] = UInt8(ascii: "\"")
        count += 1
        // Runs of bytes that need no escaping (most strings are one run) are copied at once.
        if let start = utf8.baseAddress {
            var runStart = 0
            while true {
                let escape = Self.nextEscape(in: utf8, from: runStart)
                append(UnsafeBufferPointer(start: start + runStart, count: escape - runStart))
                guard escape < utf8.count else { break }
                appendEscape(of: start[escape])
                runStart = escape + 1
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// The escape of a quote, a backslash or a control character.
    private mutating func appendEscape(of byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            for digit in [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] { append(digit) }
        }
    }
}
