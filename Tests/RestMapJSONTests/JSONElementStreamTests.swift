import RestMapJSON
import Testing

/// The stream splitter: elements of an array or lines, across buffer refills.
@Suite("JSON element stream")
struct JSONElementStreamTests {
    /// Every element's text, reading through a small buffer so elements straddle refills. The
    /// same text split in place (`init(bytes:layout:)`) gives the same elements or the same error.
    func elements(_ text: String, layout: JSONStreamLayout, bufferSize: Int = 64) throws(JSONStreamError) -> [String] {
        let streamed = Result { () throws(JSONStreamError) in
            try split(JSONElementStream(source: InMemorySource(Array(text.utf8)), layout: layout, bufferSize: bufferSize))
        }
        let inPlace = Result { () throws(JSONStreamError) in try split(JSONElementStream(bytes: Array(text.utf8), layout: layout)) }
        switch (streamed, inPlace) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.description == b.description)
        default: Issue.record("in place: \(inPlace), streamed: \(streamed)")
        }
        return try streamed.get()
    }

    func split<Source>(_ stream: JSONElementStream<Source>) throws(JSONStreamError) -> [String] {
        var stream = stream
        var found: [String] = []
        while let batch = try stream.nextBatch(targetBytes: 100) {
            found += batch.ranges.map { String(decoding: batch.bytes[$0], as: UTF8.self) }
            #expect((try? JSONDocument(bytes: batch.bytes))?.root.count == batch.ranges.count)
        }
        return found
    }

    @Test("Array elements with brackets and escaped quotes inside strings, split across refills")
    func arrayElements() throws {
        let items = [#"{"a": "x]}\"[{", "b": [1, {"c": null}]}"#, "-12.5e3", #""\\""#, "true", "[[], {}]", String(repeating: "7", count: 300)]
        let text = " [ " + items.joined(separator: " ,\n") + " ] \n"
        #expect(try elements(text, layout: .array(keys: [])) == items)
        #expect(try elements("[]", layout: .array(keys: [])).isEmpty)
        // An empty body has no elements, as it maps to no records whole; a body that is not an array fails.
        #expect(try elements("", layout: .array(keys: [])).isEmpty)
        #expect(try elements(" \n ", layout: .array(keys: ["data", "items"])).isEmpty)
        #expect(throws: JSONStreamError.self) { try elements("{}", layout: .array(keys: [])) }
    }

    @Test("The array at a key path; other members, escaped keys and what follows are skipped but checked")
    func keyPath() throws {
        let text = #"{"a": {"items": [0]}, "d\u0061ta": {"x": "}", "items": [1, 2]}, "z": [3]}"#
        #expect(try elements(text, layout: .array(keys: ["data", "items"])) == ["1", "2"])
        #expect(throws: JSONStreamError.self) { try elements(#"{"data": {"items": [1]}} x"#, layout: .array(keys: ["data", "items"])) }
        #expect { try elements(#"{"data": 1}"#, layout: .array(keys: ["items"])) } throws: {
            "\($0)".contains("no member 'items' holds an array")
        }
    }

    @Test("Broken framing names the byte and element")
    func framingErrors() throws {
        #expect { try elements("[1, 2", layout: .array(keys: [])) } throws: { "\($0)".contains("unterminated array") }
        #expect { try elements("[1 2]", layout: .array(keys: [])) } throws: { ($0 as? JSONStreamError)?.element == 0 }
        #expect { try elements("[1,]", layout: .array(keys: [])) } throws: { "\($0)".contains("expected a value after ','") }
        #expect { try elements(#"[{"a": "1]"#, layout: .array(keys: [])) } throws: { "\($0)".contains("unterminated string") }
        #expect { try elements(#"{"a": 1}"#, layout: .array(keys: [])) } throws: { "\($0)".contains("is not an array") }
    }

    @Test("Lines: blank lines skipped, CRLF, a last line without a newline, numbered from 1")
    func lines() throws {
        let text = "{\"a\": 1}\r\n\n  \n[2]\n" + String(repeating: " ", count: 100) + "3"
        var stream = JSONElementStream(source: InMemorySource(Array(text.utf8)), layout: .lines, bufferSize: 64)
        var found: [(String, Int)] = []
        while let batch = try stream.nextBatch(targetBytes: 10) {
            found += zip(batch.ranges, batch.lines).map { (String(decoding: batch.bytes[$0.0], as: UTF8.self), $0.1) }
        }
        #expect(found.map(\.0) == [#"{"a": 1}"#, "[2]", String(repeating: " ", count: 100) + "3"])
        #expect(found.map(\.1) == [1, 4, 5])
        var inPlace = JSONElementStream(bytes: Array(text.utf8), layout: .lines)
        var lines: [Int] = []
        while let batch = try inPlace.nextBatch(targetBytes: 10) { lines += batch.lines }
        #expect(lines == [1, 4, 5])
    }
}
