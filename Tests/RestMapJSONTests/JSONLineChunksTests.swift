import Foundation
import RestMapJSON
import Testing

/// NDJSON cut into chunks of whole lines and split by the thread that maps each: the same
/// elements, element indices and line numbers as `JSONElementStream` gives, for any chunk size.
@Suite("NDJSON in chunks of whole lines")
struct JSONLineChunksTests {
    /// What `JSONElementStream` with `.lines` gives: each element's text and line number.
    func streamed(_ text: [UInt8], limit: Int = JSONDocument.maximumByteCount) throws(JSONStreamError) -> [(String, Int, Int)] {
        var stream = JSONElementStream(source: InMemorySource(text), layout: .lines, bufferSize: 64, maximumElementBytes: limit)
        var elements: [(String, Int, Int)] = []
        while let batch = try stream.nextBatch(targetBytes: 64) {
            for (position, range) in batch.ranges.enumerated() {
                elements.append((String(decoding: batch.bytes[range], as: UTF8.self), batch.firstIndex + position, batch.lines[position]))
            }
        }
        return elements
    }

    /// Chunks taken in order and numbered as `StreamMapping` numbers them: each element's text,
    /// index and line number.
    struct Numbering {
        var elements: [(String, Int, Int)] = []
        var (lines, index, offset) = (0, 0, 0)

        mutating func add(_ chunk: JSONLineChunk) {
            if chunk.count > 0 {
                #expect(chunk.offset == offset, "the chunks cover the input in order")
            }
            offset += chunk.bytes.count
            let (found, lineCount) = chunk.lines()
            let batch = chunk.batch(found, firstIndex: index, firstLine: lines + 1)
            for (position, range) in batch.ranges.enumerated() {
                elements.append((String(decoding: batch.bytes[range], as: UTF8.self), batch.firstIndex + position, batch.lines[position]))
            }
            lines += lineCount
            index += found.count
        }
    }

    /// The same through chunks of `chunkBytes`.
    func chunked(_ text: [UInt8], chunkBytes: Int, limit: Int = JSONDocument.maximumByteCount) throws(JSONStreamError) -> [(String, Int, Int)] {
        var chunks = JSONLineChunks(source: InMemorySource(text), chunkBytes: chunkBytes, maximumElementBytes: limit)
        var numbering = Numbering()
        do throws(JSONStreamError) {
            while let chunk = try chunks.next() { numbering.add(chunk) }
        } catch {
            var failure = error
            if chunks.failedOnOversizedLine { failure.element = numbering.index }
            throw failure
        }
        #expect(numbering.offset == text.count, "every byte is in one chunk")
        return numbering.elements
    }

    /// The same through chunks of a regular file read by offset, `junk` bytes into the file, each
    /// chunk read on its own as the mapping threads read them (in reverse order here), then
    /// numbered in order.
    func positional(_ text: [UInt8], chunkBytes: Int, limit: Int = JSONDocument.maximumByteCount,
                    junk: Int = 0) throws(JSONStreamError) -> [(String, Int, Int)] {
        try withTemporaryFile(text, junk: junk) { bytes throws(JSONStreamError) in
            try positional(bytes, count: text.count, chunkBytes: chunkBytes, limit: limit)
        }
    }

    func positional(_ bytes: JSONPositionalBytes, count: Int, chunkBytes: Int, limit: Int) throws(JSONStreamError) -> [(String, Int, Int)] {
        var chunks = JSONPositionalLineChunks(bytes: bytes, chunkBytes: chunkBytes, maximumElementBytes: limit)
        var numbers: [Int] = []
        while let number = chunks.nextChunk() { numbers.append(number) }
        #expect(numbers == Array(numbers.indices))
        let read = numbers.reversed().map { chunks.read(chunk: $0) }.reversed()
        var numbering = Numbering()
        for (chunk, failure) in read {
            numbering.add(chunk)
            if var failure {
                failure.element = numbering.index
                throw failure
            }
        }
        #expect(numbering.offset == count, "every byte is in one chunk")
        return numbering.elements
    }

    static let inputs: [String] = [
        "",
        "\n\n",
        #"{"a": 1}"#,
        "{\"a\": 1}\n{\"b\": [1, 2]}\n",
        "{\"a\": 1}\r\n\r\n   \n\t\n{\"b\": 2}\r\n{\"c\": 3}",
        "x\ny\n\nz\r",
        (0..<200).map { index in index % 7 == 0 ? "" : "{\"n\": \(index), \"s\": \"\(String(repeating: "q", count: index % 13))\"}" }.joined(separator: "\n"),
    ]

    @Test("Any chunk size gives the stream's elements, indices and line numbers")
    func sameAsTheStream() throws {
        for input in Self.inputs {
            let text = Array(input.utf8)
            let expected = try streamed(text)
            for chunkBytes in [1, 2, 3, 7, 64, 1000, 1 << 20] {
                let found = try chunked(text, chunkBytes: chunkBytes)
                #expect(found.map(\.0) == expected.map(\.0), "\(input.prefix(40)), chunks of \(chunkBytes)")
                #expect(found.map(\.1) == expected.map(\.1) && found.map(\.2) == expected.map(\.2), "\(input.prefix(40)), chunks of \(chunkBytes)")
                for junk in [0, 3] {
                    let read = try positional(text, chunkBytes: chunkBytes, junk: junk)
                    #expect(read.map(\.0) == expected.map(\.0), "\(input.prefix(40)), file chunks of \(chunkBytes)")
                    #expect(read.map(\.1) == expected.map(\.1) && read.map(\.2) == expected.map(\.2), "\(input.prefix(40)), file chunks of \(chunkBytes)")
                }
            }
        }
    }

    @Test("A line over the limit ends the input after the lines before it, with the stream's error and element")
    func oversizedLine() throws {
        let short = "\"" + String(repeating: "a", count: 98) + "\""   // 100 bytes
        let long = "\"" + String(repeating: "b", count: 400) + "\""
        for text in ["\(short)\n\n\(short)\n\(long)\n\(short)\n", "\(short)\n\(long)", long] {
            for chunkBytes in [1, 50, 100, 4096] {
                var delivered = 0
                do {
                    var chunks = JSONLineChunks(source: InMemorySource(Array(text.utf8)), chunkBytes: chunkBytes, maximumElementBytes: 100)
                    while let chunk = try chunks.next() { delivered += chunk.lines().elements.count }
                    Issue.record("no error for chunks of \(chunkBytes)")
                } catch {
                    #expect(!error.isMalformed)
                    #expect(error.description.contains("an element (or line) is larger than 100 bytes, the most one may have; reading stopped after"))
                }
                // Every short line before the long one was delivered.
                #expect(delivered == text.components(separatedBy: long)[0].split(separator: "\n").count, "chunks of \(chunkBytes)")
                let expected: JSONStreamError?
                do { _ = try streamed(Array(text.utf8), limit: 100); expected = nil } catch { expected = error }
                #expect(expected != nil)
                do {
                    _ = try chunked(Array(text.utf8), chunkBytes: chunkBytes, limit: 100)
                    Issue.record("no error for chunks of \(chunkBytes)")
                } catch {
                    #expect(error.element == expected?.element && error.offset == expected?.offset, "\(error) vs \(String(describing: expected))")
                }
                do {
                    _ = try positional(Array(text.utf8), chunkBytes: chunkBytes, limit: 100)
                    Issue.record("no error for file chunks of \(chunkBytes)")
                } catch {
                    #expect(!error.isMalformed)
                    #expect(error.description.contains("an element (or line) is larger than 100 bytes, the most one may have"))
                    #expect(error.element == expected?.element && error.offset == expected?.offset, "\(error) vs \(String(describing: expected))")
                }
            }
        }
    }

    @Test("A source that fails gives the whole lines read before it, then its error")
    func failingSource() throws {
        struct Failing: JSONByteSource {
            var text: [UInt8]
            var position = 0
            mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
                guard position < text.count else { throw JSONStreamError(message: "gone", offset: position, element: nil, isMalformed: false) }
                let count = min(buffer.count, text.count - position, 5)
                for index in 0..<count { buffer[index] = text[position + index] }
                position += count
                return count
            }
        }
        var chunks = JSONLineChunks(source: Failing(text: Array("{\"a\":1}\n{\"b\":2}\n{\"c\"".utf8)), chunkBytes: 4)
        var lines: [String] = []
        do {
            while let chunk = try chunks.next() {
                lines += chunk.lines().elements.map { String(decoding: chunk.bytes[$0.range], as: UTF8.self) }
            }
            Issue.record("no error")
        } catch {
            #expect(error.message == "gone")
            #expect(!chunks.failedOnOversizedLine)
        }
        #expect(lines == [#"{"a":1}"#, #"{"b":2}"#])
    }
}
