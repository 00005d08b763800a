import Foundation
import RestMapJSON
import Testing

/// An array in a regular file cut into chunks by the threads that map them: each chunk's elements
/// read from the cursor where the chunk before stopped are the stream's, and for valid JSON the
/// cursor guessed from the chunks' summaries is that cursor.
@Suite("Arrays in a file, in chunks")
struct JSONPositionalArrayTests {
    /// An element's text and index, or the error that ended the input.
    typealias Reading = (elements: [(String, Int)], failure: JSONStreamError?)

    /// What `JSONElementStream` gives reading the whole input.
    func streamed(_ text: [UInt8], layout: JSONStreamLayout, limit: Int) -> Reading {
        var stream = JSONElementStream(source: InMemorySource(text), layout: layout, bufferSize: 64, maximumElementBytes: limit)
        var elements: [(String, Int)] = []
        do throws(JSONStreamError) {
            while let batch = try stream.nextBatch(targetBytes: 64) { elements += Self.texts(of: batch) }
            return (elements, nil)
        } catch {
            return (elements, error)
        }
    }

    static func texts(of batch: JSONElementBatch) -> [(String, Int)] {
        batch.ranges.enumerated().map { (String(decoding: batch.bytes[$0.element], as: UTF8.self), batch.firstIndex + $0.offset) }
    }

    /// Each chunk cut from the cursor where the chunk before stopped, numbered after it, as
    /// `ArrayChunkChain` does; also whether every claim guessed from the summaries (or, `byShape`,
    /// from the elements' shape, when the first element is an object) was that cursor.
    func chunked(_ bytes: JSONPositionalBytes, layout: JSONStreamLayout, chunkBytes: Int, limit: Int,
                 byShape: Bool = false) -> (reading: Reading, misses: Int) {
        var header = JSONElementStream(source: JSONPositionalReader(bytes), layout: layout, bufferSize: 64, maximumElementBytes: limit)
        let entry: JSONArrayCursor
        do throws(JSONStreamError) { entry = try header.arrayEntry() } catch { return (([], error), 0) }
        var chunks = JSONPositionalArrayChunks(bytes: bytes, layout: layout, entry: entry, chunkBytes: chunkBytes, maximumElementBytes: limit)
        var numbers: [Int] = []
        while let number = chunks.nextChunk() { numbers.append(number) }
        #expect(numbers == Array(numbers.indices))
        // The summaries in reverse order (any thread, any order), then the nestings in order, then
        // each chunk's guess in reverse order again.
        let summaries = numbers.reversed().map { chunks.summarize(chunk: $0) }.reversed()
        var nesting = JSONArrayNesting.elementLevel
        var claims: [JSONArrayChunkClaim] = []
        for (number, summary) in zip(numbers, summaries) {
            let summary = summary!
            claims.append(number == 0 ? .cursor(entry) : chunks.claim(chunk: number, nesting: nesting, summary: summary))
            nesting = summary.nesting(after: nesting)
        }
        if byShape, let key = chunks.leadingKey() {
            claims = numbers.map { $0 == 0 ? .cursor(entry) : chunks.claimByShape(chunk: $0, key: key) }
        }
        let guesses = numbers.reversed().map { chunks.guess(chunk: $0, claim: claims[$0]) }.reversed() as [JSONArrayChunkGuess]
        // Each chunk settled, in order, against where the chunk before stopped.
        var cursor = entry
        var elements: [(String, Int)] = []
        var misses = 0
        for number in numbers {
            let (cut, held) = chunks.settle(chunk: number, guess: guesses[number], truth: cursor)
            if !held { misses += 1 }
            if let batch = cut.batch {
                elements += Self.texts(of: batch).map { ($0.0, $0.1 + elements.count) }
            }
            if var failure = cut.failure {
                failure.element = failure.element.map { $0 + elements.count - cut.elementCount }
                return ((elements, failure), misses)
            }
            cursor = cut.exit
        }
        #expect(cursor == .ended, "the last chunk reads to the end")
        return ((elements, nil), misses)
    }

    func check(_ input: String, layout: JSONStreamLayout = .array(keys: []), chunkSizes: [Int] = [1, 2, 3, 5, 8, 13, 64, 4096],
               limit: Int = JSONDocument.maximumByteCount, valid: Bool) throws {
        let text = Array(input.utf8)
        let expected = streamed(text, layout: layout, limit: limit)
        for chunkBytes in chunkSizes {
            for junk in [0, 3] {
                let (found, misses) = withTemporaryFile(text, junk: junk) { chunked($0, layout: layout, chunkBytes: chunkBytes, limit: limit) }
                let place = "\(input.prefix(60)) in chunks of \(chunkBytes)"
                #expect(found.elements.map(\.0) == expected.elements.map(\.0), "\(place)")
                #expect(found.elements.map(\.1) == expected.elements.map(\.1), "\(place)")
                #expect(found.failure == expected.failure, "\(place): \(String(describing: found.failure)) vs \(String(describing: expected.failure))")
                if valid { #expect(misses == 0, "\(place): a claim was not the cursor the chunk before stopped at") }
                // Claimed by shape, guesses may be wrong; what the chunks give may not.
                let (byShape, _) = withTemporaryFile(text, junk: junk) {
                    chunked($0, layout: layout, chunkBytes: chunkBytes, limit: limit, byShape: true)
                }
                #expect(byShape.elements.map(\.0) == expected.elements.map(\.0), "\(place), by shape")
                #expect(byShape.elements.map(\.1) == expected.elements.map(\.1), "\(place), by shape")
                #expect(byShape.failure == expected.failure, "\(place), by shape")
            }
        }
    }

    static let validInputs: [String] = [
        "[]",
        "  [ ]  ",
        "",
        #"[1]"#,
        #"[{"a": "x]}\"[{", "b": [1, {"c": null}]}, -12.5e3, "\\", true, [[], {}], "a\\\"b", "\\\\"]"#,
        #"[ "," , ",]" , "\"" , "\\\\\\\"" , {"k,": ["]", "[", "{"]} ]"#,
        "[\n" + (0..<60).map { #"{"id": \#($0), "s": "\#(String(repeating: "\\\\", count: $0 % 4))\#(String(repeating: "\\\"", count: $0 % 3))"}"# }
            .joined(separator: " ,\n  ") + "\n]\n",
        "[" + (0..<40).map { String($0 * 7919 % 1000) }.joined(separator: ",") + "]",
        "[" + String(repeating: " ", count: 50) + "1" + String(repeating: " ", count: 50) + "]",
        "[[[[[[1]]]]], {\"a\": {\"b\": {\"c\": [\"]]]]\"]}}}, \"tail\"]",
    ]

    @Test("Cut from where the chunk before stopped, chunks give the stream's elements; the guesses are right for valid JSON")
    func sameAsTheStream() throws {
        for input in Self.validInputs { try check(input, valid: true) }
    }

    /// Valid JSON values of every kind, strings full of escapes, brackets and commas, nested a
    /// few levels, with whitespace between tokens; the same for the same seed.
    static func generatedArray(seed: UInt64, count: Int) -> String {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        func space() -> String { ["", " ", "\n", "  \t", "\r\n "][next(5)] }
        func string() -> String {
            let pieces = ["a", "\\\\", "\\\"", "[", "]", "{", "}", ",", ":", " ", "\\n", "\\u00e9", "é", "\\/"]
            return "\"" + (0..<next(8)).map { _ in pieces[next(pieces.count)] }.joined() + "\""
        }
        func value(_ depth: Int) -> String {
            switch depth > 3 ? next(4) : next(7) {
            case 0: return string()
            case 1: return String(next(100_000) - 50_000) + (next(2) == 0 ? "" : ".5e-3")
            case 2: return ["true", "false", "null"][next(3)]
            case 3: return string()
            case 4, 5: return "{" + (0..<next(4)).map { _ in space() + string() + space() + ":" + space() + value(depth + 1) + space() }.joined(separator: ",") + "}"
            default: return "[" + (0..<next(4)).map { _ in space() + value(depth + 1) + space() }.joined(separator: ",") + "]"
            }
        }
        return space() + "[" + (0..<count).map { _ in space() + value(0) + space() }.joined(separator: ",") + "]" + space()
    }

    @Test("Generated arrays of every kind of value: the stream's elements, and every guess right, for any chunk size")
    func generated() throws {
        for seed: UInt64 in 1...12 {
            let text = Self.generatedArray(seed: seed, count: 40)
            #expect((try? JSONDocument(bytes: Array(text.utf8)))?.root.count == 40, "valid JSON: \(text)")
            try check(text, chunkSizes: [1, 2, 3, 4, 6, 9, 17, 31, 100, 1000], valid: true)
        }
    }

    @Test("The array at a key path, with members before and after it, in chunks")
    func keyPath() throws {
        let text = #"{"a": {"items": [0]}, "d\u0061ta": {"x": "}", "items": [1, {"y": "]"}, "\\"]}, "z": [3, {"w": "["}]}"#
        try check(text, layout: .array(keys: ["data", "items"]), valid: true)
        try check(#"{"data": {"items": [1]}} x"#, layout: .array(keys: ["data", "items"]), valid: false)
        try check(#"{"data": {"items": [1, 2]}, "more": [}"#, layout: .array(keys: ["data", "items"]), valid: false)
    }

    @Test("Broken framing ends the input with the stream's error, at the same element and byte")
    func malformed() throws {
        // Scalars holding brackets: chunks guess from nestings the stream does not see.
        for input in ["[x[, 1, 2], 3, 4]", #"[a{"k": [1, 2]}, 3, [4], 5]"#, "[", "[  \n", "{\"a\": [", "[1 2]", #"[{"a":1} x, {}]"#, #"[1"a,b", 2, 3]"#, "[,1]", "[1,,2]", "[1,]", "[{]", "[}]", "[1, 2", #"[ "abc"#,
                      "[1,2] x", #"[\"a", 1, 2]"#, #"[{"a": "\\"}, {"b": [1,2]}, ]"#, "[1, 2]]", "[{}}, 1]", #"[1, "\"]", 2]"#,
                      #"{"a": 1}"#, "[[1, 2], [3, [4, 5]]"] {
            try check(input, valid: false)
        }
    }

    @Test("A guess is kept only when its claim is where the chunk before stopped; otherwise the chunk is cut again from there")
    func settlingGuesses() throws {
        // Chunks of 8 bytes after the '[': 10 and 20, then 30 and 40, then 50.
        try withTemporaryFile(Array("[10, 20, 30, 40, 50]".utf8)) { bytes in
            var header = JSONElementStream(source: JSONPositionalReader(bytes), layout: .array(keys: []))
            let entry = try header.arrayEntry()
            let chunks = JSONPositionalArrayChunks(bytes: bytes, layout: .array(keys: []), entry: entry, chunkBytes: 8)
            let truth = chunks.cut(chunk: 0, from: entry).exit
            #expect(truth == .element(.init(offset: 9, afterComma: true)))
            func texts(_ cut: JSONArrayChunkCut) -> [String] { cut.batch.map { Self.texts(of: $0).map(\.0) } ?? [] }

            let right = chunks.settle(chunk: 1, guess: chunks.guess(chunk: 1, claim: .cursor(truth)), truth: truth)
            #expect(right.guessed && texts(right.cut) == ["30", "40"])
            let wrongClaim = JSONArrayChunkClaim.cursor(.element(.init(offset: 13, afterComma: true)))
            #expect(texts(chunks.guess(chunk: 1, claim: wrongClaim).cut!) == ["40"])
            let wrong = chunks.settle(chunk: 1, guess: chunks.guess(chunk: 1, claim: wrongClaim), truth: truth)
            #expect(!wrong.guessed && texts(wrong.cut) == ["30", "40"] && wrong.cut.exit == .element(.init(offset: 17, afterComma: true)))
            // "No element begins here" holds only when the chunk before stopped past this one.
            let none = chunks.settle(chunk: 1, guess: chunks.guess(chunk: 1, claim: .noElementStarts), truth: truth)
            #expect(!none.guessed && texts(none.cut) == ["30", "40"])
            let past = JSONArrayCursor.element(.init(offset: 17, afterComma: true))
            let passed = chunks.settle(chunk: 1, guess: chunks.guess(chunk: 1, claim: .noElementStarts), truth: past)
            #expect(passed.guessed && passed.cut.batch == nil && passed.cut.exit == past)
            #expect(!chunks.settle(chunk: 1, guess: chunks.guess(chunk: 1, claim: .unknown), truth: truth).guessed)
        }
    }

    @Test("A listing claimed by its elements' shape: the guesses right when the elements begin alike, whatever their strings hold; nested objects beginning alike only cost re-cuts")
    func claimedByShape() throws {
        func listing(tagKey: String = "label", _ name: (Int) -> String) -> String {
            "[\n" + (0..<300).map { #"  {"id": \#($0), "name": "\#(name($0))", "owner": {"login": "u\#($0 % 7)"}, "tags": [{"\#(tagKey)": 1}, {"\#(tagKey)": 2}]}"# }
                .joined(separator: ",\n") + "\n]"
        }
        let plain = listing { "repo \($0)" }
        // Every tenth name holds what a boundary between elements looks like (its quotes escaped);
        // or nested objects in an array begin with the elements' key.
        let tricky = listing { $0 % 10 == 3 ? #"x}, {\"id\": 1, \"y\": \"\#($0)"# : "repo \($0)" }
        let nested = listing(tagKey: "id") { "repo \($0)" }
        for (name, input) in [("plain", plain), ("tricky", tricky), ("nested", nested)] {
            let text = Array(input.utf8)
            let expected = streamed(text, layout: .array(keys: []), limit: JSONDocument.maximumByteCount)
            #expect(expected.elements.count == 300 && expected.failure == nil)
            try withTemporaryFile(text) { bytes in
                var header = JSONElementStream(source: JSONPositionalReader(bytes), layout: .array(keys: []))
                let chunks = JSONPositionalArrayChunks(bytes: bytes, layout: .array(keys: []), entry: try header.arrayEntry(), chunkBytes: 700)
                #expect(chunks.leadingKey() == Array(#""id""#.utf8))
            }
            for chunkBytes in [700, 4096] {
                let (found, misses) = withTemporaryFile(text) {
                    chunked($0, layout: .array(keys: []), chunkBytes: chunkBytes, limit: JSONDocument.maximumByteCount, byShape: true)
                }
                #expect(found.elements.map(\.0) == expected.elements.map(\.0), "\(name), chunks of \(chunkBytes)")
                #expect(found.elements.map(\.1) == expected.elements.map(\.1), "\(name), chunks of \(chunkBytes)")
                #expect(found.failure == nil)
                // Only a chunk no element begins in (the array's end) is not guessed, unless nested
                // objects begin with the key: a string cannot hold `{"id"` (its quotes are escaped).
                if name == "nested" {
                    #expect(misses > 1, "\(name), chunks of \(chunkBytes): no nested object misled a guess")
                } else {
                    #expect(misses <= 1, "\(name), chunks of \(chunkBytes): \(misses) wrong guesses")
                }
            }
        }
        // No leading key for arrays whose first element is not an object, or begins with an escaped key.
        for input in ["[1, {\"id\": 2}]", #"[{"i\"d": 1}]"#, "[[{\"id\": 1}]]", "[{}]"] {
            try withTemporaryFile(Array(input.utf8)) { bytes in
                var header = JSONElementStream(source: JSONPositionalReader(bytes), layout: .array(keys: []))
                let chunks = JSONPositionalArrayChunks(bytes: bytes, layout: .array(keys: []), entry: try header.arrayEntry(), chunkBytes: 4)
                #expect(chunks.leadingKey() == nil, "\(input)")
            }
        }
    }

    @Test("An element over the limit ends the input after the elements before it, with the stream's error")
    func oversized() throws {
        let short = "\"" + String(repeating: "a", count: 40) + "\""
        let long = "[\"" + String(repeating: "b", count: 200) + "\"]"
        try check("[\(short), \(short), \(long), \(short)]", chunkSizes: [1, 7, 50, 4096], limit: 100, valid: true)
    }
}
