#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where reading an array's elements begins, or where a reading of them stopped.
public enum JSONArrayCursor: Sendable, Equatable {
    /// A place in the array where an element is due.
    public struct Element: Sendable, Equatable {
        /// The input offset: the element's first byte, or whitespace before it.
        public var offset: Int
        /// Whether a `,` came before (`false`: the array's first element is due, or its `]`).
        public var afterComma: Bool

        /// The place at input offset `offset`, after a `,` or not.
        public init(offset: Int, afterComma: Bool) {
            self.offset = offset
            self.afterComma = afterComma
        }
    }

    /// An element is due at a place.
    case element(Element)
    /// The array and the document after it were read to the end, or their framing failed.
    case ended

    /// Whether the cursor is at or after input offset `offset` (an ended one is after all).
    func lies(atOrAfter offset: Int) -> Bool {
        switch self {
        case .ended: true
        case .element(let element): element.offset >= offset
        }
    }
}

/// Bytes of a regular file read in turn from an offset, as a stream reads them.
public struct JSONPositionalReader: JSONByteSource {
    /// The file read.
    public let bytes: JSONPositionalBytes
    /// The input offset of the next byte read.
    public private(set) var offset: Int

    /// Reads `bytes` from input offset `offset` on.
    public init(_ bytes: JSONPositionalBytes, from offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        let count = try bytes.read(at: offset, into: buffer)
        offset += count
        return count
    }
}

/// How deep a byte of an array's input is: `depth` containers inside the element there (0:
/// between elements, or in a string or scalar element), and whether it is in a string. A
/// negative depth is past the array's `]`.
public struct JSONArrayNesting: Sendable, Equatable {
    /// Containers open inside the element (negative: past the array).
    public var depth: Int
    /// Whether the byte is in a string.
    public var inString: Bool

    /// Between the array's elements.
    public static let elementLevel = JSONArrayNesting(depth: 0, inString: false)
}

/// What one chunk of an array's input does to the nesting, worked out without knowing the
/// nesting at its first byte: once as if it began outside a string, once inside one. Of the two,
/// the one that holds is exact for valid JSON; for other input it is only a guess, which
/// `JSONPositionalArrayChunks.cut` never relies on.
public struct JSONArrayChunkSummary: Sendable {
    /// The change of depth over the chunk, the lowest depth reached (from 0 at its first byte),
    /// and whether it ends in a string.
    struct Walk: Sendable {
        var delta = 0
        var minimum = 0
        var endsInString: Bool

        mutating func close() {
            delta -= 1
            minimum = min(minimum, delta)
        }
    }

    var fromOutside = Walk(endsInString: false)
    var fromInside = Walk(endsInString: true)
    /// Whether the chunk's first byte is escaped, if it is in a string (an odd run of
    /// backslashes before it).
    var escapedAtStart: Bool

    /// The nesting after the chunk, from the nesting at its first byte.
    public func nesting(after start: JSONArrayNesting) -> JSONArrayNesting {
        guard start.depth >= 0 else { return start }
        let walk = start.inString ? fromInside : fromOutside
        if start.depth + walk.minimum < 0 { return JSONArrayNesting(depth: -1, inString: false) }
        return JSONArrayNesting(depth: start.depth + walk.delta, inString: walk.endsInString)
    }
}

/// Where the elements of a chunk begin, found from the nesting at its first byte.
public enum JSONArrayChunkClaim: Sendable, Equatable {
    /// Reading the chunk's elements begins at this cursor.
    case cursor(JSONArrayCursor)
    /// No element begins in the chunk: one that began before it covers it, or only whitespace
    /// and separators are in it.
    case noElementStarts
    /// The bytes around the chunk's start do not say (malformed framing, a failed read).
    case unknown
}

/// A chunk's elements read from where its claim says they begin, before the chunk before it is
/// read; kept only when that proves right (`JSONPositionalArrayChunks.settle`).
public struct JSONArrayChunkGuess: Sendable {
    public let claim: JSONArrayChunkClaim
    /// The cut from the claimed cursor, when the claim is one.
    public let cut: JSONArrayChunkCut?
}

/// The elements read from a chunk: a batch of them (numbered from 0), where reading stopped,
/// and the error that ended the stream there, if one did.
public struct JSONArrayChunkCut: Sendable {
    /// The chunk's elements, numbered from 0; `nil` when none begins in it.
    public var batch: JSONElementBatch?
    /// Where reading stopped: the first element after the chunk, or `.ended`.
    public var exit: JSONArrayCursor
    /// What ended the stream after the elements (framing, an element over the limit, a read).
    public var failure: JSONStreamError?

    /// The number of elements read.
    public var elementCount: Int { batch?.ranges.count ?? 0 }

    /// A cut of `batch`'s elements that stopped at `exit`, then failed with `failure` if given.
    public init(batch: JSONElementBatch?, exit: JSONArrayCursor, failure: JSONStreamError? = nil) {
        self.batch = batch
        self.exit = exit
        self.failure = failure
    }
}

/// A JSON array in a regular file in chunks cut by the threads that map them: chunk `k` holds the
/// elements that begin in bytes `k × chunkBytes ..< (k + 1) × chunkBytes` after the array's `[`.
///
/// Which bytes begin an element depends on every byte before (a `,` in a string is not a
/// separator), so a thread cannot simply start reading in the middle. Instead:
///
/// 1. `summarize` walks a chunk once, for both possible starts (outside a string, inside one),
///    with no knowledge of what came before; any thread can do it, in any order.
/// 2. The nesting at each chunk's first byte follows from the summaries of the chunks before it,
///    one step per chunk (`JSONArrayChunkSummary.nesting(after:)`).
/// 3. `claim` turns that nesting into the cursor of the chunk's first element, looking only at
///    the bytes around its start, and `cut` reads the chunk's elements from it: parsed where they
///    lie, or, when they do not parse so, cut one by one with `JSONElementStream`, as reading the
///    whole input would.
/// 4. What makes the result exact is not the guess but a check: a chunk's elements count only
///    when its claimed cursor equals the cursor where the `cut` of the chunk before it stopped;
///    otherwise it is cut again from there. For valid JSON the two always agree.
public struct JSONPositionalArrayChunks: Sendable {
    /// The file the array is in.
    public let bytes: JSONPositionalBytes
    private let layout: JSONStreamLayout
    /// The input offset after the array's `[`, where chunk 0 begins.
    public let arrayStart: Int
    private let chunkBytes: Int
    private let maximumElementBytes: Int
    private var knownCount: Int
    private var issued = 0
    /// Whether the input has an array (`false`: it is empty, and there are no chunks).
    private let hasArray: Bool

    /// - Parameters:
    ///   - entry: the cursor after the array's `[` (`JSONElementStream.arrayEntry()`); `.ended`
    ///     gives no chunks.
    ///   - chunkBytes: the bytes of input each chunk's elements begin in.
    ///   - maximumElementBytes: the most bytes one element may have, as `JSONElementStream` has it.
    public init(bytes: JSONPositionalBytes, layout: JSONStreamLayout, entry: JSONArrayCursor, chunkBytes: Int = 1 << 20,
                maximumElementBytes: Int = JSONDocument.maximumByteCount) {
        self.bytes = bytes
        self.layout = layout
        self.chunkBytes = max(chunkBytes, 1)
        self.maximumElementBytes = maximumElementBytes
        if case .element(let element) = entry {
            arrayStart = element.offset
            knownCount = bytes.count()
            hasArray = true
        } else {
            arrayStart = 0
            knownCount = 0
            hasArray = false
        }
    }

    /// The next chunk's number; `nil` once the chunks cover the input (looked at again then, for
    /// a file that grew).
    public mutating func nextChunk() -> Int? {
        guard hasArray else { return nil }
        if arrayStart + issued * chunkBytes >= knownCount { knownCount = bytes.count() }
        // Chunk 0 even when nothing follows the '[': reading it finds the array unterminated.
        guard issued == 0 || arrayStart + issued * chunkBytes < knownCount else { return nil }
        defer { issued += 1 }
        return issued
    }

    /// The input offsets whose elements belong to chunk `number`.
    public func range(of number: Int) -> Range<Int> {
        arrayStart + number * chunkBytes ..< arrayStart + (number + 1) * chunkBytes
    }

    // MARK: Reading a chunk

    /// Reads the chunk's elements from `cursor` (the cursor where the chunk before stopped, for
    /// the result to be exact) up to the first element beginning after the chunk.
    ///
    /// The chunk is read and parsed in one piece when it can be: its bytes and a little after
    /// them parse as elements up to one beginning after the chunk, none over the limit. Otherwise
    /// (an element that is not valid JSON, a long last element, the end of the array) it is cut
    /// with `JSONElementStream`, which gives exactly what reading the whole input gives.
    public func cut(chunk number: Int, from cursor: JSONArrayCursor) -> JSONArrayChunkCut {
        guard case .element(let element) = cursor else { return JSONArrayChunkCut(batch: nil, exit: .ended) }
        let stop = range(of: number).upperBound
        if element.offset >= stop { return JSONArrayChunkCut(batch: nil, exit: cursor) }
        if let parsed = parsedRun(from: element, stop: stop) { return parsed }
        var stream = JSONElementStream(resuming: element, source: JSONPositionalReader(bytes, from: element.offset), layout: layout,
                                       stopOffset: stop, bufferSize: max(stop - element.offset, 0) + (64 << 10),
                                       maximumElementBytes: maximumElementBytes)
        var cut = JSONArrayChunkCut(batch: nil, exit: .ended)
        do throws(JSONStreamError) {
            cut.batch = try stream.nextBatch(targetBytes: .max)
            // A failure after the elements comes with the next call.
            if cut.batch != nil { _ = try stream.nextBatch(targetBytes: .max) }
            cut.exit = stream.stoppedAt ?? .ended
        } catch {
            cut.failure = error
        }
        return cut
    }

    /// The chunk's elements read from where `claim` says they begin (nothing is read for the
    /// other claims).
    public func guess(chunk number: Int, claim: JSONArrayChunkClaim) -> JSONArrayChunkGuess {
        guard case .cursor(let cursor) = claim else { return JSONArrayChunkGuess(claim: claim, cut: nil) }
        return JSONArrayChunkGuess(claim: claim, cut: cut(chunk: number, from: cursor))
    }

    /// The chunk's elements from `truth`, the cursor where the chunk before it stopped: the
    /// guess's when its claim agrees with `truth` (`guessed`), cut from `truth` otherwise.
    public func settle(chunk number: Int, guess: JSONArrayChunkGuess?, truth: JSONArrayCursor) -> (cut: JSONArrayChunkCut, guessed: Bool) {
        switch (guess?.claim, guess?.cut) {
        case (.cursor(let claimed)?, let guessed?) where claimed == truth:
            return (guessed, true)
        case (.noElementStarts?, _) where truth.lies(atOrAfter: range(of: number).upperBound):
            return (JSONArrayChunkCut(batch: nil, exit: truth), true)
        default:
            return (cut(chunk: number, from: truth), false)
        }
    }

    /// The chunk's elements parsed where they lie, from the byte before `element` to a little
    /// past `stop`; `nil` when they do not parse so (see `cut`).
    private func parsedRun(from element: JSONArrayCursor.Element, stop: Int) -> JSONArrayChunkCut? {
        // The byte before the element stands for '[' (a ',', whitespace, the array's own '[').
        let begin = element.offset - 1
        guard let run = bytes.read(at: begin, count: stop + readPast - begin) else { return nil }
        guard let document = try? JSONDocument(elementsIn: run, stoppingAt: stop - begin), let stopped = document.stoppedAt else { return nil }
        if document.root.count == 0 {
            // Only whitespace before an element beginning after the chunk.
            return JSONArrayChunkCut(batch: nil, exit: .element(.init(offset: begin + stopped, afterComma: element.afterComma)))
        }
        // Each element's bytes: from its first byte to the last before the ',' after it.
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(document.root.count)
        var previous: Int?
        for start in document.root.elements.map(\.byteOffset) + [stopped] {
            if let previous {
                var end = start - 1
                while isJSONWhitespace(run[end]) { end -= 1 }
                end -= 1   // the ','
                while isJSONWhitespace(run[end]) { end -= 1 }
                guard end + 1 - previous <= maximumElementBytes else { return nil }
                ranges.append(previous..<(end + 1))
            }
            previous = start
        }
        let batch = JSONElementBatch(bytes: run, ranges: ranges, firstIndex: 0, lines: [], parsed: document)
        return JSONArrayChunkCut(batch: batch, exit: .element(.init(offset: begin + stopped, afterComma: true)))
    }

    /// How far past its range a chunk is read, for the end of its last element (one that ends
    /// further is cut element by element): 64 KiB, less for small chunks.
    private var readPast: Int { min(64 << 10, max(4 * chunkBytes, 4096)) }

    // MARK: Guessing where a chunk begins

    /// Walks chunk `number` for both possible starts; `nil` when it cannot be read.
    public func summarize(chunk number: Int) -> JSONArrayChunkSummary? {
        let range = range(of: number)
        guard let escaped = backslashesBefore(range.lowerBound) else { return nil }
        var summary = JSONArrayChunkSummary(escapedAtStart: escaped % 2 == 1)
        // `inString` is relative to a start outside a string; a start inside one sees it inverted.
        var inString = false
        var skip = summary.escapedAtStart ? 1 : 0
        let blockBytes = 64 << 10
        var block = [UInt8](repeating: 0, count: blockBytes)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = min(blockBytes, range.upperBound - offset)
            guard let count = bytes.read(at: offset, into: &block, count: wanted) else { return nil }
            block.withUnsafeBufferPointer { block in
                Self.walk(block.baseAddress!, count: count, skip: &skip, inString: &inString, summary: &summary)
            }
            if count < wanted { break }
            offset += count
        }
        summary.fromOutside.endsInString = inString
        summary.fromInside.endsInString = !inString
        return summary
    }

    /// Walks `count` bytes: every backslash escapes the byte after it (`skip` carries one over to
    /// the next block), every other `"` opens or closes a string, and each bracket counts for the
    /// start it is outside a string for.
    private static func walk(_ base: UnsafePointer<UInt8>, count: Int, skip: inout Int, inString: inout Bool,
                             summary: inout JSONArrayChunkSummary) {
        var index = skip
        while true {
            JSONStrings.skipPlainWords(base, at: &index, to: count, stoppingAt: .structure)
            guard index < count else { break }
            let byte = base[index]
            switch byte {
            case UInt8(ascii: "\\"):
                index += 2
                continue
            case UInt8(ascii: "\""):
                inString.toggle()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if inString { summary.fromInside.delta += 1 } else { summary.fromOutside.delta += 1 }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if inString { summary.fromInside.close() } else { summary.fromOutside.close() }
            default: break
            }
            index += 1
        }
        skip = index - count
    }

    /// The backslashes right before input offset `offset`; `nil` when they cannot be read, or run
    /// back further than `lookBack` (the chunk is then cut once the one before it is).
    private func backslashesBefore(_ offset: Int) -> Int? {
        // The array's '[' ends any run.
        lastByte(before: offset, notBefore: max(offset - lookBack, arrayStart - 1), skipping: { $0 == UInt8(ascii: "\\") })
            .map { offset - 1 - $0.offset }
    }

    /// How far back a chunk looks at most: no input makes the threads read back without end.
    private var lookBack: Int { max(chunkBytes, 64 << 10) }

    /// Where chunk `number`'s elements begin, given the nesting at its first byte (from the
    /// summaries of the chunks before it) and its own summary. Only bytes near its start are read.
    public func claim(chunk number: Int, nesting: JSONArrayNesting, summary: JSONArrayChunkSummary) -> JSONArrayChunkClaim {
        guard nesting.depth >= 0 else { return .cursor(.ended) }
        let range = range(of: number)
        let walk = nesting.inString ? summary.fromInside : summary.fromOutside
        // The chunk never comes back to the array's level: no element begins in it.
        if nesting.depth + walk.minimum > 0 { return .noElementStarts }
        var forward = ForwardBytes(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        if nesting.inString || nesting.depth > 0 {
            // The end of the element the chunk begins in.
            var scan = JSONValueScan(depth: nesting.depth, inString: nesting.inString, escaped: nesting.inString && summary.escapedAtStart)
            while true {
                // An element that runs past the chunk leaves none to begin in it.
                guard let byte = forward.next() else { return forward.atChunkEnd ? .noElementStarts : .unknown }
                if scan.ends(at: byte) { break }
            }
            return afterElement(&forward)
        }
        // At the array's level: what came before says what is due.
        guard let (before, place) = lastByte(before: range.lowerBound, notBefore: max(range.lowerBound - lookBack, arrayStart - 1),
                                             skipping: isJSONWhitespace) else { return .unknown }
        if place == arrayStart - 1 { return elementStart(&forward, afterComma: false) }
        switch before {
        case UInt8(ascii: ","):
            return elementStart(&forward, afterComma: true)
        case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\""):
            return afterElement(&forward)
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: ":"):
            return .unknown
        default:
            // A scalar element; when it runs into the chunk, it ends at the next delimiter.
            if place == range.lowerBound - 1 {
                while let byte = forward.peek(), !isJSONWhitespace(byte), byte != UInt8(ascii: ","), byte != UInt8(ascii: "]"),
                      byte != UInt8(ascii: "}") {
                    forward.advance()
                }
            }
            return afterElement(&forward)
        }
    }

    // MARK: Guessing by the elements' shape

    /// The key the array's first element begins with, quotes included, when that element is an
    /// object (`[{"id": …`); `nil` otherwise, or when the key holds an escape. The elements of
    /// a listing mostly begin alike, which `claimByShape` looks for.
    public func leadingKey() -> [UInt8]? {
        guard hasArray, let head = bytes.read(at: arrayStart, count: 4096) else { return nil }
        var index = 0
        func skipWhitespace() { while index < head.count, isJSONWhitespace(head[index]) { index += 1 } }
        skipWhitespace()
        guard index < head.count, head[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipWhitespace()
        guard index < head.count, head[index] == UInt8(ascii: "\"") else { return nil }
        let start = index
        index += 1
        while index < head.count, head[index] != UInt8(ascii: "\""), head[index] != UInt8(ascii: "\\") { index += 1 }
        guard index < head.count, head[index] == UInt8(ascii: "\"") else { return nil }
        return Array(head[start...index])
    }

    /// Where chunk `number`'s first element begins, guessed from the shape of the elements near
    /// its start instead of from the chunks before it: the first `{` at or after the chunk's first
    /// byte that follows a `}` and a `,` (whitespace around them allowed) and begins with `key`
    /// (`leadingKey()`). Reads only the first bytes of the chunk, so it costs next to nothing
    /// where `summarize` walks it all; `.unknown` when no such `{` is near its start.
    ///
    /// No string can mislead it (a quote in a string is escaped, so `{"id"` never appears in one),
    /// but nested objects in an array that begin with the same key do, and so do elements of
    /// other shapes: it is a guess like the other claims, and `settle` keeps the chunk's cut only
    /// when the chunk before it stopped at the claimed cursor.
    public func claimByShape(chunk number: Int, key: [UInt8]) -> JSONArrayChunkClaim {
        let range = range(of: number)
        // Enough before the chunk for the `}` and `,` of an element beginning at its first byte.
        let before = min(range.lowerBound - arrayStart, 256)
        let begin = range.lowerBound - before
        guard let window = bytes.read(at: begin, count: before + min(range.count, 64 << 10) + key.count + 64) else { return .unknown }
        let firstBrace = before
        let lastBrace = min(window.count, before + range.count)
        guard firstBrace < lastBrace else { return .unknown }
        return window.withUnsafeBufferPointer { window -> JSONArrayChunkClaim in
            for brace in firstBrace..<lastBrace where window[brace] == UInt8(ascii: "{") {
                var back = brace - 1
                while back >= 0, isJSONWhitespace(window[back]) { back -= 1 }
                guard back >= 0, window[back] == UInt8(ascii: ",") else { continue }
                back -= 1
                while back >= 0, isJSONWhitespace(window[back]) { back -= 1 }
                guard back >= 0, window[back] == UInt8(ascii: "}") else { continue }
                var keyStart = brace + 1
                while keyStart < window.count, isJSONWhitespace(window[keyStart]) { keyStart += 1 }
                guard keyStart + key.count <= window.count,
                      key.withUnsafeBufferPointer({ memcmp(window.baseAddress! + keyStart, $0.baseAddress!, key.count) == 0 })
                else { continue }
                return .cursor(.element(.init(offset: begin + brace, afterComma: true)))
            }
            return .unknown
        }
    }

    /// After an element: a `,` and the next element, or the array's `]`.
    private func afterElement(_ forward: inout ForwardBytes) -> JSONArrayChunkClaim {
        forward.skipWhitespace()
        guard let byte = forward.peek() else { return forward.atChunkEnd ? .noElementStarts : .unknown }
        switch byte {
        case UInt8(ascii: ","):
            forward.advance()
            return elementStart(&forward, afterComma: true)
        case UInt8(ascii: "]"):
            return .cursor(.ended)
        default:
            return .unknown
        }
    }

    /// Where an element is due: its first byte (or the array's `]`, when no `,` came before).
    private func elementStart(_ forward: inout ForwardBytes, afterComma: Bool) -> JSONArrayChunkClaim {
        forward.skipWhitespace()
        guard let byte = forward.peek() else { return forward.atChunkEnd ? .noElementStarts : .unknown }
        if byte == UInt8(ascii: "]") { return afterComma ? .unknown : .cursor(.ended) }
        return .cursor(.element(.init(offset: forward.offset, afterComma: afterComma)))
    }

    /// The last byte before input offset `offset` that `skipping` does not take, and its offset,
    /// looking back no further than `lowest`; `nil` when there is none, or a read fails.
    private func lastByte(before offset: Int, notBefore lowest: Int, skipping: (UInt8) -> Bool) -> (byte: UInt8, offset: Int)? {
        var end = offset
        var block = [UInt8](repeating: 0, count: 4096)
        while end > lowest {
            let begin = max(end - block.count, lowest)
            guard bytes.read(at: begin, into: &block, count: end - begin) == end - begin else { return nil }
            for index in stride(from: end - begin - 1, through: 0, by: -1) where !skipping(block[index]) {
                return (block[index], begin + index)
            }
            end = begin
        }
        return nil
    }
}

/// Bytes read forward from an offset, block by block, up to the end of a chunk.
private struct ForwardBytes {
    let bytes: JSONPositionalBytes
    /// The input offset of the next byte.
    private(set) var offset: Int
    let end: Int
    private var block: [UInt8] = []
    private var blockStart = 0

    init(bytes: JSONPositionalBytes, offset: Int, end: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
        self.blockStart = offset
    }

    /// Whether the chunk's bytes are all read (rather than the input ending or failing).
    var atChunkEnd: Bool { offset >= end }

    /// The next byte, without moving on; `nil` at the end of the chunk or the input.
    mutating func peek() -> UInt8? {
        guard offset < end else { return nil }
        if offset - blockStart >= block.count {
            var fresh = [UInt8](repeating: 0, count: min(16 << 10, end - offset))
            guard let count = bytes.read(at: offset, into: &fresh, count: fresh.count), count > 0 else { return nil }
            fresh.removeSubrange(count...)
            block = fresh
            blockStart = offset
        }
        return block[offset - blockStart]
    }

    mutating func advance() {
        offset += 1
    }

    mutating func next() -> UInt8? {
        defer { if offset < end { offset += 1 } }
        return peek()
    }

    mutating func skipWhitespace() {
        while let byte = peek(), isJSONWhitespace(byte) { advance() }
    }
}

extension JSONPositionalBytes {
    /// Up to `count` bytes at input offset `offset` (fewer only at the end of the file), read
    /// straight into a new array; `nil` when the read fails.
    fileprivate func read(at offset: Int, count: Int) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(JSONStreamError) {
                initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failed = true
            }
        }
        return failed ? nil : bytes
    }

    /// Reads up to `count` bytes at input offset `offset` into the start of `buffer`; how many
    /// (fewer only at the end of the file), or `nil` when the read fails.
    fileprivate func read(at offset: Int, into buffer: inout [UInt8], count: Int) -> Int? {
        buffer.withUnsafeMutableBytes { target in
            do throws(JSONStreamError) {
                return try read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: target[..<count]))
            } catch {
                return nil
            }
        }
    }
}
