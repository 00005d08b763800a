#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file's bytes from an offset on, read at any offset by any thread (`pread`), so
/// that the threads mapping a stream read their own parts of it side by side.
public struct JSONPositionalBytes: Sendable {
    /// The file; not owned (never closed here).
    public let descriptor: Int32
    /// Where the input begins in the file.
    public let start: Int

    /// The file's bytes from `start` on; `nil` when `descriptor` is not a regular file (a pipe,
    /// a terminal, a socket) or `start` is not an offset in it.
    public init?(descriptor: Int32, from start: Int) {
        var status = stat()
        guard start >= 0, fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.descriptor = descriptor
        self.start = start
    }

    /// The number of input bytes the file holds now (it may still grow).
    public func count() -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return 0 }
        return max(Int(status.st_size) - start, 0)
    }

    /// Reads up to `buffer.count` bytes at input offset `offset`; fewer only at the end of the file.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(start + offset + filled))
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(at: offset + filled)
            }
            filled += count
        }
        return filled
    }
}

/// NDJSON in chunks of whole lines cut by the threads that map them: chunk `k` holds the lines
/// that begin in bytes `k × chunkBytes ..< (k + 1) × chunkBytes` of the input, and the thread that
/// maps it reads them itself (`read(chunk:)`), from the byte before its range to the newline that
/// ends its last line. The calling thread only numbers the chunks (`nextChunk()`), so neither
/// reading nor cutting waits for one thread. Split and numbered as `JSONLineChunks` chunks are,
/// they give the same elements, indices and line numbers.
public struct JSONPositionalLineChunks: Sendable {
    public let bytes: JSONPositionalBytes
    private let chunkBytes: Int
    private let maximumElementBytes: Int
    private let buffers: JSONChunkBuffers
    /// The input's length as last seen, and the next chunk's number.
    private var knownCount: Int
    private var issued = 0
    /// How far past its range a chunk reads at first, for the end of its last line.
    private static let readPast = 64 << 10

    /// - Parameters:
    ///   - chunkBytes: the bytes of input each chunk's lines begin in (at most `maximumElementBytes`).
    ///   - maximumElementBytes: the most bytes one line may have, as `JSONElementStream` has it.
    ///   - buffers: where chunks are given back once split, to read later chunks into.
    public init(bytes: JSONPositionalBytes, chunkBytes: Int = 1 << 20, maximumElementBytes: Int = JSONDocument.maximumByteCount,
                buffers: JSONChunkBuffers = JSONChunkBuffers()) {
        self.bytes = bytes
        self.buffers = buffers
        (self.chunkBytes, self.maximumElementBytes) = lineChunkLimits(chunkBytes: chunkBytes, maximumElementBytes: maximumElementBytes)
        knownCount = bytes.count()
    }

    /// The next chunk's number; `nil` once the chunks cover the input (looked at again then, for
    /// a file that grew).
    public mutating func nextChunk() -> Int? {
        if issued * chunkBytes >= knownCount { knownCount = bytes.count() }
        guard issued * chunkBytes < knownCount else { return nil }
        defer { issued += 1 }
        return issued
    }

    /// The lines beginning in chunk `number`'s range (none when a longer line covers it), and the
    /// error that ends the input after them: a read that failed, or the chunk's last line over the
    /// limit (its `element` is for the caller to set: the lines before it are counted elsewhere).
    public func read(chunk number: Int) -> (chunk: JSONLineChunk, failure: JSONStreamError?) {
        let begin = number * chunkBytes, end = begin + chunkBytes
        // From the byte before the range: a line begins at `begin` when that byte is a newline.
        // The first read goes a little past the range, where the chunk's last line usually ends.
        let from = max(begin - 1, 0)
        var storage = buffers.take(count: end - from + min(chunkBytes, Self.readPast))
        var filled = 0
        var endOfInput = false
        func readMore(atLeast room: Int) throws(JSONStreamError) {
            if storage.count < filled + room {
                var larger = buffers.take(count: max(filled + room, 2 * storage.count))
                larger.withUnsafeMutableBufferPointer { target in
                    storage.withUnsafeBufferPointer { old in target.baseAddress!.update(from: old.baseAddress!, count: filled) }
                }
                storage = larger
            }
            var failure: JSONStreamError?
            let count = storage.withUnsafeMutableBytes { target in
                do throws(JSONStreamError) {
                    return try bytes.read(at: from + filled, into: UnsafeMutableRawBufferPointer(rebasing: target[filled...]))
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if count < storage.count - filled { endOfInput = true }
            filled += count
        }
        func chunk(start: Int, stop: Int) -> JSONLineChunk {
            JSONLineChunk(storage: storage, start: start, count: stop - start, offset: from + start)
        }
        do throws(JSONStreamError) {
            try readMore(atLeast: end - from)
            // The first line: at `begin`, or after the first newline from the byte before it.
            let rangeEnd = min(end - from, filled)
            guard let first = begin == 0 ? 0 : storage.firstNewline(in: 0..<rangeEnd).map({ $0 + 1 }), first < rangeEnd else {
                return (chunk(start: 0, stop: 0), nil)
            }
            // The last line begins at the last newline before `end`, and ends at the next one
            // (or the end of the input); the lines before it are shorter than the chunk.
            let lastStart = storage.lastNewline(in: first..<(rangeEnd - 1)).map { $0 + 1 } ?? first
            var searched = rangeEnd - 1
            while true {
                let newline = storage.firstNewline(in: max(searched, lastStart)..<filled)
                if (newline ?? filled) - lastStart > maximumElementBytes {
                    let failure = JSONStreamError.oversized(maximumElementBytes: maximumElementBytes, bytesRead: from + filled,
                                                            offset: from + lastStart, element: nil)
                    return (chunk(start: first, stop: lastStart), failure)
                }
                if let newline { return (chunk(start: first, stop: newline + 1), nil) }
                if endOfInput { return (chunk(start: first, stop: filled), nil) }
                searched = filled
                try readMore(atLeast: max(chunkBytes, filled - lastStart))
            }
        } catch {
            return (chunk(start: 0, stop: 0), error)
        }
    }
}

extension [UInt8] {
    /// The first newline in `range`.
    fileprivate func firstNewline(in range: Range<Int>) -> Int? {
        guard !range.isEmpty else { return nil }
        return withUnsafeBytes { raw in
            memchr(raw.baseAddress! + range.lowerBound, 0x0A, range.count).map { UnsafeRawPointer($0) - raw.baseAddress! }
        }
    }

    /// The last newline in `range`, searched from its end (lines are short next to a chunk).
    fileprivate func lastNewline(in range: Range<Int>) -> Int? {
        withUnsafeBufferPointer { bytes in range.reversed().first { bytes[$0] == 0x0A } }
    }
}
