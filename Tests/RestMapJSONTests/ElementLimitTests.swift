import RestMapJSON
import Testing

/// `JSONElementStream(maximumElementBytes:)`: an element or line longer than the limit ends the
/// stream as soon as that many of its bytes are read, instead of growing the buffer without end.
@Suite("JSON element stream limit")
struct ElementLimitTests {
    func elementCounts(_ text: String, layout: JSONStreamLayout, limit: Int) throws(JSONStreamError) -> [Int] {
        var stream = JSONElementStream(source: InMemorySource(Array(text.utf8)), layout: layout, bufferSize: 64,
                                       maximumElementBytes: limit)
        var counts: [Int] = []
        while let batch = try stream.nextBatch(targetBytes: 64) { counts += batch.ranges.map(\.count) }
        return counts
    }

    @Test("Elements and lines up to the limit pass; a longer one fails with an error that is not 'malformed' and says how much was read")
    func limit() throws {
        let short = "\"" + String(repeating: "a", count: 98) + "\""   // 100 bytes
        #expect(try elementCounts("[\(short),\(short)]", layout: .array(keys: []), limit: 100) == [100, 100])
        #expect(try elementCounts("\(short)\n\(short)\n", layout: .lines, limit: 100) == [100, 100])
        let long = "\"" + String(repeating: "b", count: 400) + "\""
        for (text, layout) in [("[\(short),\(long)]", JSONStreamLayout.array(keys: [])), ("\(short)\n\(long)\n", .lines)] {
            do {
                _ = try elementCounts(text, layout: layout, limit: 100)
                Issue.record("no error for \(layout)")
            } catch {
                #expect(!error.isMalformed)
                #expect(error.element == 1)
                #expect(error.description.contains("an element (or line) is larger than 100 bytes, the most one may have; reading stopped after"),
                        "\(error)")
            }
        }
    }
}
