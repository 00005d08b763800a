import Glibc
import Synchronization

/// NDJSON in chunks of whole lines, cut without looking at the lines: each chunk ends after the
/// last newline of what was read, and the bytes after it begin the next chunk. The thread that
/// reads only finds one newline per chunk; the thread that maps a chunk splits it into lines
/// (`JSONLineChunk.lines()`) and makes it a batch (`JSONLineChunk.batch`), which gives the same
/// elements, indices and line numbers as `JSONElementStream` with `.lines`.
public struct JSONLineChunks<Source: JSONByteSource> {
    private var source: Source
    private let chunkBytes: Int
    private let maximumElementBytes: Int
    /// The beginning of a line, read with the chunk before.
    private var carry: [UInt8] = []
    /// The input offset of the next chunk's first byte.
    private var offset = 0
    private var atEnd = false
    private var pendingFailure: JSONStreamError?
    /// Whether the last error thrown is a line over the limit: its `element` is not known here
    /// (the lines before it are counted by the threads that split the chunks).
    public private(set) var failedOnOversizedLine = false

    /// Chunks given back (`JSONLineChunk.recycle`) to read the next ones into.
    private let buffers: JSONChunkBuffers

    /// - Parameters:
    ///   - chunkBytes: about how many bytes a chunk holds (at most `maximumElementBytes`, so a line
    ///     over the limit is never inside one chunk).
    ///   - maximumElementBytes: the most bytes one line may have, as `JSONElementStream` has it.
    ///   - buffers: where chunks are given back once split, to read later chunks into.
    public init(source: Source, chunkBytes: Int = 1 << 20, maximumElementBytes: Int = JSONDocument.maximumByteCount,
                buffers: JSONChunkBuffers = JSONChunkBuffers()) {
        self.source = source
        self.buffers = buffers
        (self.chunkBytes, self.maximumElementBytes) = lineChunkLimits(chunkBytes: chunkBytes, maximumElementBytes: maximumElementBytes)
    }

    /// The next chunk of whole lines; `nil` once the input is over. A source error or a line over
    /// the limit is thrown after the whole lines read before it were given.
    public mutating func next() throws(JSONStreamError) -> JSONLineChunk? {
        if let pendingFailure {
            self.pendingFailure = nil
            throw pendingFailure
        }
        failedOnOversizedLine = false
        // What was carried holds no newline: it is the beginning of a line.
        var buffer = Buffer(storage: carry, filled: carry.count)
        carry = []
        var lastNewline: Int?
        while true {
            if let end = lastNewline, buffer.filled >= chunkBytes { return take(&buffer, through: end) }
            let lineStart = (lastNewline ?? -1) + 1
            if buffer.filled - lineStart > maximumElementBytes { return try oversized(&buffer, lineStart: lineStart) }
            if atEnd {
                // The last line of the input may have no newline.
                guard buffer.filled > 0 else { return nil }
                return take(&buffer, through: buffer.filled - 1)
            }
            let start = buffer.filled
            let failure = readMore(into: &buffer)
            if let failure {
                // Deliver the whole lines read so far; the failure comes with the next call.
                atEnd = true
                guard let end = lastNewline else { throw failure }
                pendingFailure = failure
                return take(&buffer, through: end)
            }
            if buffer.filled == start { atEnd = true }
            if let found = buffer.lastNewline(from: start) { lastNewline = found }
        }
    }

    /// Bytes read for the next chunk: `storage[..<filled]` (the rest of `storage` is room).
    private struct Buffer {
        var storage: [UInt8]
        var filled: Int

        /// The last newline at or after `start`, searched from the end (lines are short next to a chunk).
        func lastNewline(from start: Int) -> Int? {
            storage.withUnsafeBufferPointer { bytes in
                var position = filled - 1
                while position >= start {
                    if bytes[position] == 0x0A { return position }
                    position -= 1
                }
                return nil
            }
        }
    }

    /// Reads up to a chunk more (or as much again as `buffer` holds, for a long line) after the
    /// bytes of `buffer`, into a buffer given back when there is one (memory already touched,
    /// cheaper than fresh pages the kernel clears); the source's error, if any.
    private mutating func readMore(into buffer: inout Buffer) -> JSONStreamError? {
        let start = buffer.filled
        let room = max(chunkBytes, start)
        if buffer.storage.count < start + room {
            var larger = buffers.take(count: start + room)
            larger.withUnsafeMutableBufferPointer { target in
                buffer.storage.withUnsafeBufferPointer { old in
                    if let from = old.baseAddress, start > 0 { target.baseAddress!.update(from: from, count: start) }
                }
            }
            buffer.storage = larger
        }
        var failure: JSONStreamError?
        let count = buffer.storage.withUnsafeMutableBytes { bytes -> Int in
            do throws(JSONStreamError) {
                return try source.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + room)]))
            } catch {
                failure = error
                return 0
            }
        }
        buffer.filled += count
        return failure
    }

    /// The chunk `buffer[...end]`; what follows it is carried to the next chunk.
    private mutating func take(_ buffer: inout Buffer, through end: Int) -> JSONLineChunk {
        if end + 1 < buffer.filled { carry = Array(buffer.storage[(end + 1)..<buffer.filled]) }
        let chunk = JSONLineChunk(storage: buffer.storage, count: end + 1, offset: offset)
        offset += end + 1
        buffer = Buffer(storage: [], filled: 0)
        return chunk
    }

    /// The error for a line over the limit that starts at `lineStart` of `buffer`, thrown after
    /// the whole lines before it are given.
    private mutating func oversized(_ buffer: inout Buffer, lineStart: Int) throws(JSONStreamError) -> JSONLineChunk {
        let failure = JSONStreamError.oversized(maximumElementBytes: maximumElementBytes, bytesRead: offset + buffer.filled,
                                                offset: offset + lineStart, element: nil)
        atEnd = true
        failedOnOversizedLine = true
        guard lineStart > 0 else { throw failure }
        pendingFailure = failure
        let chunk = take(&buffer, through: lineStart - 1)
        carry = []
        return chunk
    }
}

/// The line limit within what a document may hold, and a chunk size within it (so a line over the
/// limit is never inside one chunk), both at least 1.
func lineChunkLimits(chunkBytes: Int, maximumElementBytes: Int) -> (chunkBytes: Int, maximumElementBytes: Int) {
    let maximumElementBytes = min(max(maximumElementBytes, 1), JSONDocument.maximumByteCount)
    return (max(min(chunkBytes, maximumElementBytes), 1), maximumElementBytes)
}

/// Buffers of chunks that have been split, kept to read later chunks into (a few: the chunks in
/// flight).
public final class JSONChunkBuffers: Sendable {
    private let kept = Mutex<[[UInt8]]>([])
    private static let most = 64

    public init() {}

    /// A buffer of at least `count` bytes, whose contents are not cleared.
    func take(count: Int) -> [UInt8] {
        if let buffer = kept.withLock({ $0.popLast() }), buffer.count >= count { return buffer }
        return [UInt8](repeating: 0, count: count)
    }

    /// Keeps a buffer for `take`.
    func give(_ buffer: [UInt8]) {
        kept.withLock { kept in
            if kept.count < Self.most { kept.append(buffer) }
        }
    }
}

/// Whole lines of NDJSON (the last one ends with a newline unless it ends the input).
///
/// A class, so that the thread that splits it can give its buffer back (`recycle`) without
/// another reference keeping the buffer from being reused. It is handed from the reading thread
/// to the one that splits it and used by one thread at a time: that makes it `Sendable`.
public final class JSONLineChunk: @unchecked Sendable {
    /// The lines are `storage[start..<(start + count)]`; the rest is what was read around them
    /// or room of a reused buffer.
    private var storage: [UInt8]
    private let start: Int
    /// The number of bytes of the lines.
    public let count: Int
    /// The input offset of the first byte.
    public let offset: Int

    init(storage: [UInt8], start: Int = 0, count: Int, offset: Int) {
        self.storage = storage
        self.start = start
        self.count = count
        self.offset = offset
    }

    /// The bytes of the lines (indexed as the ranges `lines()` gives).
    public var bytes: ArraySlice<UInt8> { storage[start..<(start + count)] }

    /// Gives the chunk's buffer back, to read a later chunk into; the chunk is empty afterwards.
    public func recycle(into buffers: JSONChunkBuffers) {
        let buffer = storage
        storage = []
        buffers.give(buffer)
    }

    /// The lines that hold something (blank ones are skipped, a carriage return before a newline
    /// is not part of its line), each with its line number within the chunk (from 0), and how many
    /// lines the chunk has in all.
    public func lines() -> (elements: [(range: Range<Int>, line: Int)], lineCount: Int) {
        var elements: [(range: Range<Int>, line: Int)] = []
        var line = 0
        var position = start
        let linesEnd = start + count
        storage.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while position < linesEnd {
                let newline = memchr(base + position, 0x0A, linesEnd - position).map { UnsafeRawPointer($0) - base }
                var end = newline ?? linesEnd
                if newline != nil, end > position, raw[end - 1] == 0x0D { end -= 1 }
                if !raw[position..<end].allSatisfy(isJSONWhitespace) { elements.append((position..<end, line)) }
                line += 1
                position = (newline ?? linesEnd) + 1
            }
        }
        return (elements, line)
    }

    /// The chunk's lines as a batch whose first element has index `firstIndex` in the stream and
    /// whose first line is line `firstLine` (1-based) of the input.
    public func batch(_ elements: [(range: Range<Int>, line: Int)], firstIndex: Int, firstLine: Int) -> JSONElementBatch {
        var batch = JSONElementBatch(bytes: [UInt8(ascii: "[")], ranges: [], firstIndex: firstIndex, lines: [])
        batch.bytes.reserveCapacity(count + 2)
        batch.ranges.reserveCapacity(elements.count)
        batch.lines.reserveCapacity(elements.count)
        for (range, line) in elements {
            if !batch.ranges.isEmpty { batch.bytes.append(UInt8(ascii: ",")) }
            let start = batch.bytes.count
            batch.bytes.append(contentsOf: storage[range])
            batch.ranges.append(start..<batch.bytes.count)
            batch.lines.append(firstLine + line)
        }
        batch.bytes.append(UInt8(ascii: "]"))
        return batch
    }
}
