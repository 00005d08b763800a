import RestMapPlugins
import RestMapPluginKit
import Testing

@Suite struct CSVTests {
    func decode(_ text: String, arguments: [String: Value] = [:]) throws -> String {
        let decoder = try #require(BuiltPlugins.loaded.bodyDecoder(forMediaType: "text/csv; charset=utf-8"))
        return String(decoding: try decoder.decode(Array(text.utf8), arguments), as: UTF8.self)
    }

    @Test func quotesNewlinesAndThousandsSeparators() throws {
        let csv = "\u{FEFF}name,comment,visits\r\n\"Smith, J.\",\"said \"\"hi\"\"\nthen left\",\"234,310\"\r\nLee,,\"1,234.5\"\r\n"
        #expect(try decode(csv) == #"[{"name":"Smith, J.","comment":"said \"hi\"\nthen left","visits":"234,310"},{"name":"Lee","comment":"","visits":"1,234.5"}]"#)
    }

    @Test func delimiterLineEndingsAndBlankLines() throws {
        #expect(try decode("a;b\n1;2\n\n3;4", arguments: ["delimiter": .string(";")]) == #"[{"a":"1","b":"2"},{"a":"3","b":"4"}]"#)
        #expect(try decode("a,b\r1,2\r") == #"[{"a":"1","b":"2"}]"#)
        #expect(try decode("") == "[]")
        #expect(try decode("a,b\n") == "[]")
    }

    @Test func raggedRowNamesItsLine() {
        #expect(throws: PluginError.bodyDecoderFailed(mediaType: "text/csv", message: "line 4 has 3 fields, but the header has 2")) {
            try decode("a,b\n1,\"x\ny\"\n3,4,5\n")
        }
        #expect(throws: PluginError.bodyDecoderFailed(mediaType: "text/csv", message: "line 2: a quoted field is never closed")) {
            try decode("a\n\"open")
        }
    }

    @Test func numbers() throws {
        #expect(try transform("csv.number", .string("234,310")) == .integer(234_310))
        #expect(try transform("csv.number", .string("-1,234.5")) == .decimal(Decimal(string: "-1234.5")!))
        #expect(try transform("csv.number", .string("1.234,5"), arguments: ["thousands": .string("."), "decimal": .string(",")])
            == .decimal(Decimal(string: "1234.5")!))
        #expect(try transform("csv.number", .string("")) == .null)
        #expect(try transform("csv.number", .integer(3)) == .integer(3))
        #expect(throws: PluginError.transformerFailed(transformer: "csv.number", message: "'12a' is not a number")) {
            try transform("csv.number", .string("12a"))
        }
    }

    @Test func splitAndJoin() throws {
        #expect(try transform("csv.split", .string(" a, b ,c ")) == .array([.string("a"), .string("b"), .string("c")]))
        #expect(try transform("csv.split", .string("a|b"), arguments: ["separator": .string("|")]) == .array([.string("a"), .string("b")]))
        #expect(try transform("csv.split", .string("")) == .array([]))
        #expect(try reverse("csv.split", .array([.string("a"), .integer(2)])) == .string("a,2"))
        #expect(try transform("csv.join", .array([.string("a"), .string("b")]), arguments: ["separator": .string("; ")]) == .string("a; b"))
        #expect(try reverse("csv.join", .string("a; b"), arguments: ["separator": .string(";")]) == .array([.string("a"), .string("b")]))
    }
}

import Foundation
