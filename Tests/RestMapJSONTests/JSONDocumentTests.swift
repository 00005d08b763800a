import Foundation
@testable import RestMapJSON
import Testing

@Suite struct JSONDocumentTests {
    @Test func readsNestedValuesLazily() throws {
        let document = try JSONDocument(string: #"{"a": [1, {"b": "x\ny"}, [true, false, null]], "c": {"d": -0.5e3}, "e": "caf\u00e9 \ud83d\ude00"}"#)
        let root = document.root
        #expect(root.kind == .object)
        #expect(root.count == 3)
        #expect(root.keys == ["a", "c", "e"])
        #expect(root["a"]?.count == 3)
        #expect(root["a"]?[1]?["b"]?.stringValue == "x\ny")
        #expect(root["a"]?[2]?.elements.map(\.kind) == [.bool, .bool, .null])
        #expect(root["a"]?[2]?[0]?.boolValue == true)
        #expect(root["c"]?["d"]?.number?.text == "-0.5e3")
        #expect(root["c"]?["d"]?.number?.double == -500)
        #expect(root["e"]?.stringValue == "café 😀")
        #expect(root["missing"] == nil)
        #expect(root["a"]?[3] == nil)
        #expect(root["a"]?["b"] == nil)
    }

    @Test func numbersStayExact() throws {
        let document = try JSONDocument(string: "[69726278940360707, 9223372036854775807, 9223372036854775808, -9223372036854775808, 150.115]")
        let numbers = document.root.elements.map { $0.number! }
        #expect(numbers[0].int64 == 69726278940360707)
        #expect(numbers[1].int64 == Int64.max)
        #expect(numbers[2].isInteger && numbers[2].int64 == nil && numbers[2].text == "9223372036854775808")
        #expect(numbers[3].int64 == Int64.min)
        #expect(!numbers[4].isInteger && numbers[4].text == "150.115")
    }

    @Test func duplicateKeysFirstWins() throws {
        #expect(try JSONDocument(string: #"{"a": 1, "a": 2}"#).root["a"]?.number?.int64 == 1)
        #expect(try JSONDocument(string: #"{"\u0061": 1}"#).root["a"]?.number?.int64 == 1)
    }

    /// `findMembers` finds what `subscript(key:)` finds, for every key at once: escaped keys in
    /// the document match, duplicate keys give the first member, absent keys and non-objects nothing.
    @Test func keySetFindsWhatTheSubscriptFinds() throws {
        let body = #"{"id": 1, "n\u0061me": "escaped", "id": 2, "": "empty", "nested": {"id": 3}, "é": [1, {"x": 4}], "tail": null}"#
        let root = try JSONDocument(string: body).root
        let keys = ["tail", "id", "name", "missing", "", "é", "nested", "x"]
        let set = JSONKeySet(keys)
        #expect(set.count == keys.count)
        var positions = [Int](repeating: 0, count: keys.count)
        positions.withUnsafeMutableBufferPointer { root.findMembers(set, into: $0) }
        for (index, key) in keys.enumerated() {
            let found = positions[index] < 0 ? nil : root.member(atPosition: positions[index])
            #expect(found?.byteOffset == root[key]?.byteOffset, "\(key)")
        }
        #expect(positions[3] == -1 && positions[7] == -1)
        #expect(root.member(atPosition: positions[1]).number?.int64 == 1)
        #expect(root.member(atPosition: positions[2]).stringValue == "escaped")
        // Not an object: nothing is found.
        positions.withUnsafeMutableBufferPointer { root["é"]!.findMembers(set, into: $0) }
        #expect(positions.allSatisfy { $0 == -1 })
    }

    @Test func unescapedStringBytesAreReadInPlace() throws {
        let root = try JSONDocument(string: #"{"plain": "2013-03-13T18:10:21Z", "escaped": "a\u0062", "empty": "", "number": 1}"#).root
        let text = { (key: String) in root[key]?.withUnescapedStringUTF8 { String(decoding: $0, as: UTF8.self) } }
        #expect(text("plain") == .some("2013-03-13T18:10:21Z"))
        #expect(text("empty") == .some(""))
        // Strings with escapes and other kinds give nil: read those with `stringValue`.
        #expect(text("escaped") == .some(nil))
        #expect(root["escaped"]?.stringValue == "ab")
        #expect(text("number") == .some(nil))
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try JSONDocument(string: #"["\ud800x"]"#).root[0]?.stringValue == "\u{FFFD}x")
    }

    @Test func deepNestingIsRefusedWithoutOverflowingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            try JSONDocument(string: deep)
        } throws: { error in
            (error as? JSONParseError)?.message == "nesting deeper than 512 levels"
        }
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try JSONDocument(string: allowed).root.count == 1)
    }

    @Test(arguments: [
        ("", "empty document", 1, 1),
        ("  \n ", "empty document", 2, 2),
        ("{\"a\": 1,}", "expected a string key", 1, 9),
        ("[1, 2\n, 3 4]", "expected ',' or ']' after an array element", 2, 5),
        ("{\"a\" 1}", "expected ':' after an object key", 1, 6),
        ("[01]", "a number cannot have leading zeros", 1, 3),
        ("[\"a\tb\"]", "control character byte 0x9 in a string must be escaped", 1, 4),
        ("[tru]", "invalid literal: expected 'true'", 1, 2),
        ("{\"a\": [1, 2}", "expected ',' or ']' after an array element", 1, 12),
        ("[1] 2", "unexpected text after the document", 1, 5),
    ])
    func errorsNameWhatAndWhere(text: String, message: String, line: Int, column: Int) {
        #expect {
            try JSONDocument(string: text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.message == message && error.line == line && error.column == column
        }
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        #expect {
            try JSONDocument(bytes: [0x5B, 0x22, 0x61, 0xC3, 0x28, 0x22, 0x5D])
        } throws: { error in
            (error as? JSONParseError)?.offset == 3
        }
    }

    /// Strings are checked for escapes eight bytes at a time: a special byte at any position of
    /// the words or of the tail is escaped; bytes that need none (space, DEL, non-ASCII) are copied.
    @Test(arguments: ["\"", "\\", "\n", "\u{0}", "\u{1F}", " ", "\u{7F}", "é", "!", "]"])
    func writerFindsEscapesAtEveryPosition(_ special: String) throws {
        let escapes = special.unicodeScalars.first!.value < 0x20 || special == "\"" || special == "\\"
        for length in [1, 7, 8, 9, 16, 19] {
            for position in 0..<length {
                let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position - 1)
                var writer = JSONWriter()
                writer.string(text)
                #expect(try JSONDocument(bytes: writer.bytes).root.stringValue == text)
                #expect((writer.bytes.count > text.utf8.count + 2) == escapes, "\(length) \(position)")
            }
        }
    }

    @Test func writerEscapesAndRoundTrips() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("text")
        writer.string("quote \" backslash \\ slash / tab \t nul \u{0} é")
        writer.key("list")
        writer.beginArray()
        writer.integer(-3)
        writer.double(2.5)
        writer.double(4)
        writer.raw("150.115")
        writer.bool(true)
        writer.null()
        writer.endArray()
        writer.key("empty")
        writer.beginObject()
        writer.endObject()
        writer.endObject()
        #expect(writer.string == #"{"text":"quote \" backslash \\ slash / tab \t nul \u0000 é","list":[-3,2.5,4,150.115,true,null],"empty":{}}"#)
        let reparsed = try JSONDocument(bytes: writer.bytes).root
        #expect(reparsed["text"]?.stringValue == "quote \" backslash \\ slash / tab \t nul \u{0} é")
        #expect(reparsed["list"]?.count == 6)
    }

    @Test func writerWritesEveryInt64AndEncodedText() throws {
        var writer = JSONWriter()
        writer.beginArray()
        for value in [Int64.min, -1_000_000_007, -1, 0, 9, 10, 1_234_567_890_123, Int64.max] { writer.integer(value) }
        writer.beginObject()
        writer.key(encoded: JSONWriter.encoded("k\"ey"))
        writer.value(encoded: JSONWriter.encoded("v\n"))
        writer.key("date")
        writer.unescapedString { $0 += Array("2013-03-13T18:10:21Z".utf8) }
        writer.endObject()
        writer.endArray()
        writer.endLine()
        #expect(writer.string == #"[-9223372036854775808,-1000000007,-1,0,9,10,1234567890123,9223372036854775807,{"k\"ey":"v\n","date":"2013-03-13T18:10:21Z"}]"# + "\n")
        let reparsed = try JSONDocument(bytes: writer.bytes).root
        let elements = Array(reparsed.elements)
        #expect(elements.first?.number?.int64 == Int64.min)
        #expect(elements.last?["k\"ey"]?.stringValue == "v\n")

        // Top-level values separated by commas: an array's elements without its brackets.
        var elementsOnly = JSONWriter()
        elementsOnly.beginObject()
        elementsOnly.endObject()
        elementsOnly.comma()
        elementsOnly.integer(2)
        #expect(elementsOnly.string == "{},2")

        var pretty = JSONWriter(pretty: true)
        pretty.beginObject()
        pretty.key(encoded: JSONWriter.encoded("a"))
        pretty.integer(-12)
        pretty.endObject()
        #expect(pretty.string == "{\n  \"a\": -12\n}")
    }

    @Test func prettyWriterIndents() {
        var writer = JSONWriter(pretty: true)
        writer.beginArray()
        writer.beginObject()
        writer.key("a")
        writer.integer(1)
        writer.endObject()
        writer.endArray()
        #expect(writer.string == "[\n  {\n    \"a\": 1\n  }\n]")
    }

    /// A run of elements cut out of an array at commas parses in place, the cut bytes standing
    /// for its brackets; a cut that is not between two elements fails instead of parsing.
    @Test func elementRunsCutAtCommasParseInPlace() throws {
        let body = Array(#"[{"a": [1, "x,y"]}, {"b": null} , 7,"z"]"#.utf8)
        let commas = body.indices.filter { body[$0] == UInt8(ascii: ",") }
        // Between the elements: after `}` at 17, after `}` at 31, after 7 at 35.
        let cuts = [0, commas[2], commas[3], commas[4], body.count - 1]
        let runs = try zip(cuts, cuts.dropFirst()).map { try JSONDocument(elementsIn: body, range: $0...$1) }
        #expect(runs.map { $0.root.count } == [1, 1, 1, 1])
        #expect(runs[0].root[0]?["a"]?[1]?.stringValue == "x,y")
        #expect(runs[1].root[0]?["b"]?.isNull == true)
        #expect(runs[2].root[0]?.number?.int64 == 7)
        #expect(runs[3].root[0]?.stringValue == "z")
        #expect(runs[1].root[0]?.byteOffset == 2)   // counted from the run's first byte
        let whole = try JSONDocument(elementsIn: body, range: 0...(body.count - 1))
        #expect(whole.root.count == 4)
        // Cut inside an object's array and inside a string: neither run is whole elements.
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: body, range: 0...commas[0]) }
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: body, range: commas[1]...(body.count - 1)) }
    }

    /// A copy of a writer shares its text until one of them writes; then each has its own.
    /// A run read from a file: it parses up to the first element after a `,` that begins at or
    /// after the stop, and says where that element begins.
    @Test func elementRunsStopAtTheFirstElementAfterTheStop() throws {
        let body = Array(#", {"a": "x,]"} ,  [1, 2],"s",  3 , {"b": 4}]"#.utf8)
        let second = body.firstIndex(of: UInt8(ascii: "["))!
        // Stopping anywhere after the first element's start: the elements before the next start.
        for stop in 3...second {
            let run = try JSONDocument(elementsIn: body, stoppingAt: stop)
            #expect(run.root.count == 1 && run.stoppedAt == second, "stop \(stop)")
            #expect(run.root[0]?["a"]?.stringValue == "x,]")
        }
        // Stopping at or before the first element's start: none before it.
        let first = try JSONDocument(elementsIn: body, stoppingAt: 2)
        #expect(first.root.count == 0 && first.stoppedAt == 2)
        let third = try JSONDocument(elementsIn: body, stoppingAt: second + 1)
        #expect(third.root.count == 2 && body[third.stoppedAt!] == UInt8(ascii: "\""))
        // Whitespace, then an element at or after the stop: nothing before it.
        let leading = Array("   7, 8".utf8)
        let none = try JSONDocument(elementsIn: leading, stoppingAt: 2)
        #expect(none.root.count == 0 && none.stoppedAt == 3)
        // The array's end, input that ends first, a malformed element: errors (cut another way).
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: body, stoppingAt: body.count) }
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: Array(", 1, 2".utf8), stoppingAt: 100) }
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: Array(", 1, ]".utf8), stoppingAt: 3) }
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: Array(", {1}, 2".utf8), stoppingAt: 4) }
        #expect(throws: JSONParseError.self) { try JSONDocument(elementsIn: Array(", 1, 2,   ".utf8), stoppingAt: 7) }
    }

    @Test func copiesOfAWriterWriteApart() {
        var first = JSONWriter()
        first.beginArray()
        first.integer(-1)
        var second = first
        second.integer(Int64.min)
        second.unescapedString(maximumByteCount: 4) { target in
            for (offset, byte) in "2013".utf8.enumerated() { target[offset] = byte }
            return 4
        }
        second.endArray()
        first.string("x\n\"y\u{1}")
        first.bool(true)
        first.null()
        first.beginObject()
        first.key("k")
        first.double(0.5)
        first.endObject()
        first.endArray()
        #expect(second.string == #"[-1,-9223372036854775808,"2013"]"#)
        #expect(first.string == #"[-1,"x\n\"y\u0001",true,null,{"k":0.5}]"#)
        #expect(first.byteCount == first.bytes.count)
    }

    /// `reserveAhead` moves a large output to a buffer twice as large once less than a quarter is
    /// left, without changing what was written.
    @Test func reservingAheadKeepsTheWrittenBytes() {
        var writer = JSONWriter()
        writer.beginArray()
        var expected = "["
        var moves = 0, movesNotDoubling = 0, lowOnRoomAfterwards = 0
        for index in 0..<400_000 {
            writer.string("item \(index)")
            expected += (index > 0 ? "," : "") + "\"item \(index)\""
            let before = writer.capacity
            writer.reserveAhead()
            let capacity = writer.capacity
            if capacity != before {
                moves += 1
                if capacity < 2 * before { movesNotDoubling += 1 }
            }
            if 2 * capacity >= HugePages.minimumByteCount, capacity - writer.byteCount < capacity / 4 { lowOnRoomAfterwards += 1 }
        }
        writer.endArray()
        expected += "]"
        #expect(moves > 0, "a 5 MB output never moved ahead")
        #expect(movesNotDoubling == 0)
        #expect(lowOnRoomAfterwards == 0)
        #expect(writer.capacity >= HugePages.minimumByteCount / 2)
        #expect(writer.string == expected)
    }
}

/// Huge-page buffers given back are reused by the next allocation that fits, a few at most.
@Suite struct RecycledBufferTests {
    @Test func keepsAFewAndGivesTheSmallestThatFits() {
        var recycled = HugePages.Recycled()
        var kept: [Bool] = []
        var taken: [UInt?] = []
        taken.append(recycled.take(atLeast: 1)?.address)
        kept.append(recycled.keep(address: 0x40_0000, byteCount: 4 << 20))
        kept.append(recycled.keep(address: 0x80_0000, byteCount: 2 << 20))
        kept.append(recycled.keep(address: 0xC0_0000, byteCount: 8 << 20))
        taken.append(recycled.take(atLeast: 16 << 20)?.address)
        taken.append(recycled.take(atLeast: 1 << 19)?.address)   // more than twice as large: not given
        taken.append(recycled.take(atLeast: 3 << 20)?.address)
        taken.append(recycled.take(atLeast: 2 << 20)?.address)
        #expect(kept == [true, true, true])
        #expect(taken == [nil, nil, nil, 0x40_0000, 0x80_0000])
        #expect(recycled.count == 1)
        // At most `maximumCount` buffers and `maximumByteCount` bytes are kept.
        kept = [recycled.keep(address: 0x100_0000, byteCount: HugePages.Recycled.maximumByteCount)]
        for index in 1..<HugePages.Recycled.maximumCount {
            kept.append(recycled.keep(address: UInt(index) << 30, byteCount: 2 << 20))
        }
        kept.append(recycled.keep(address: 0x200_0000, byteCount: 2 << 20))
        #expect(kept == [false] + Array(repeating: true, count: HugePages.Recycled.maximumCount - 1) + [false])
        #expect(recycled.count == HugePages.Recycled.maximumCount)
    }

    /// A large document's tape goes back when the document ends, and the next one of that size
    /// is parsed into it (all values still read right).
    @Test func aTapeIsReusedByTheNextDocument() throws {
        let body = Array(("[" + (0..<200_000).map { #"{"n": \#($0)}"# }.joined(separator: ",") + "]").utf8)
        var sums: [Int64] = []
        for _ in 0..<3 {
            let document = try JSONDocument(bytes: body)
            sums.append(document.root.elements.reduce(0) { $0 + ($1["n"]?.number?.int64 ?? 0) })
            #expect(HugePages.recycledCount <= HugePages.Recycled.maximumCount)
        }
        #expect(sums == Array(repeating: Int64(199_999 * 200_000 / 2), count: 3))
    }

}

/// Escaped strings decode the same wherever the escapes sit: in runs of plain text longer and
/// shorter than eight bytes, back to back, at either end, with surrogate pairs and lone ones.
@Suite struct UnescapingTests {
    @Test(arguments: [
        (#""\"quoted\" word""#, "\"quoted\" word"),
        (#""Repository number 0 with a \"quoted\" word and more text after it""#, "Repository number 0 with a \"quoted\" word and more text after it"),
        (#""\\\/\b\f\n\r\t""#, "\\/\u{8}\u{C}\n\r\t"),
        (#""caf\u00e9 \ud83d\ude00 end""#, "café 😀 end"),
        (#""lone \ud800 and \udc00 surrogates""#, "lone \u{FFFD} and \u{FFFD} surrogates"),
        (#""ünïcödé before \n and after ünïcödé, long enough to cross words""#, "ünïcödé before \n and after ünïcödé, long enough to cross words"),
        (#""\u0041""#, "A"),
    ])
    func decodes(json: String, expected: String) throws {
        #expect(try JSONDocument(string: json).root.stringValue == expected)
    }
}

/// Two values have the same text when their bytes up to their last scalar are the same.
@Suite struct SameTextTests {
    @Test func valuesWithTheSameTextAreRecognizedAndOthersAreNot() throws {
        let document = try JSONDocument(string: #"""
            [{"login": "octocat", "id": 1, "tags": ["a", {}], "site": null},
             {"login": "octocat", "id": 1, "tags": ["a", {}], "site": null} ,
             {"login": "octocat", "id": 1, "tags": ["a", {}], "site": false},
             {"login": "octocat", "id": 10, "tags": ["a", {}], "site": null},
             {"login": "octocat", "id": 1, "tags": ["a", []], "site": null},
             {"login": "octocat",  "id": 1, "tags": ["a", {}], "site": null},
             {"login": "octocat", "id": 1, "tags": ["a", {}], "site": null, "more": "x"},
             {}, {  }, "s", "s", 12, 12.5, [[]], [[], []]]
            """#)
        let nodes = Array(document.root.elements)
        #expect(nodes[0].hasSameText(as: nodes[1]))
        for other in 2...6 { #expect(!nodes[0].hasSameText(as: nodes[other]), "element \(other)") }
        #expect(nodes[7].hasSameText(as: nodes[8]))
        #expect(nodes[9].hasSameText(as: nodes[10]))
        #expect(!nodes[11].hasSameText(as: nodes[12]))
        #expect(!nodes[13].hasSameText(as: nodes[14]))
        #expect(nodes[0].hasSameText(as: nodes[0]))
    }
}
